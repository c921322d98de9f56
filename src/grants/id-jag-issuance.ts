import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { ClientMetadata } from '../records/client.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import { isScopeString, namedBriefly, scopeNames, scopesOutside } from '../records/scope.js';
import type { Client } from '../store/clients.js';
import type { RevokedJwts } from '../store/revoked-jwts.js';
import type { SigningKeyStore } from '../store/signing-keys.js';
import type { User } from '../store/users.js';
import { ownIdTokenClaims } from '../tokens/own-id-token.js';
import type { RealmSigner } from '../tokens/signer.js';
import type { Subjects } from '../tokens/subject.js';
import type { TokenResponse } from '../tokens/token-requests.js';
import type { GrantRequest } from './grant-handler.js';
import { type PresentedTokenDeps, TOKEN_TYPES, ownAccessToken } from './presented-token.js';

/** draft-ietf-oauth-identity-assertion-authz-grant §4.3: the token type of an ID-JAG. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
/** Its §3: the `typ` header of an ID-JAG (RFC 8725 §3.11). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** CONTRACT.md §15: an ID-JAG lives at most 5 minutes; it is redeemed at once. */
export const ID_JAG_LIFETIME = 300;

type IdJagAudience = NonNullable<ClientMetadata['id_jag_audiences']>[number];

export interface IdJagIssuanceDeps extends Pick<PresentedTokenDeps, 'tokens' | 'jwtAccessTokens' | 'users'> {
  signer: Pick<RealmSigner, 'sign'>;
  signingKeys: SigningKeyStore;
  revokedJwts: Pick<RevokedJwts, 'isDenied'>;
  subjects: Pick<Subjects, 'for'>;
}

/** The person a subject token speaks for, and what it says about their sign-in. */
interface IdJagSubject {
  readonly user: User;
  /** Whether the person let the client see their email (an ID token with `email`, an access token with the `email` scope). */
  readonly email: boolean;
  readonly signIn: Readonly<Record<string, unknown>>;
}

const refused = (why: string) => new OAuthError('invalid_request', `the subject_token is not accepted: ${why}`);

/**
 * The identity provider's side of ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §4.3,
 * CONTRACT.md §15): a confidential client trades an ID token or access token this realm issued
 * to it, for its person, for a signed assertion (`typ: oauth-id-jag+jwt`) addressed to the
 * authorization server of another trust domain that its `id_jag_audiences` lists (`audience`:
 * that server's issuer), naming the client's `client_id` there, the `resource` and the `scope`
 * asked (within the entry's `scope`, when it has one). The person consented to the client's
 * asking (the consent page names these servers). It lives 5 minutes, is used once by the other
 * server, and comes with no refresh token (§4.3.2: SHOULD NOT).
 */
export async function issueIdJag(deps: IdJagIssuanceDeps, request: GrantRequest<string>): Promise<TokenResponse> {
  const { realm, client, params, askedTargets } = request;
  if (params.actor_token !== undefined) throw new OAuthError('invalid_request', 'an ID-JAG has no actor: actor_token is not used (draft-ietf-oauth-identity-assertion-authz-grant §4.3)');
  const entry = audienceEntry(realm, client, askedTargets?.audience ?? []);
  const scope = askedScope(params.scope, entry);
  const resource = askedTargets?.resource ?? [];
  const subject = await subjectOf(deps, realm, client, params.subject_token!, params.subject_token_type!);

  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const { user } = subject;
  const email = subject.email && typeof user.claims.email === 'string' ? user.claims.email : undefined;
  const payload: JWTPayload = {
    iss: realm.issuer,
    // As the client knows the person (OpenID Connect Core §8): what it presents is theirs at the other server.
    sub: deps.subjects.for(client, user.id),
    aud: entry.issuer,
    client_id: entry.client_id,
    jti,
    iat: now,
    exp: now + ID_JAG_LIFETIME,
    ...(resource.length === 0 ? {} : { resource: resource.length === 1 ? resource[0] : [...resource] }),
    ...(scope === undefined ? {} : { scope: scope.join(' ') }),
    ...subject.signIn,
    // Its §3: the email lets the other server find a person who has not signed in through this realm yet.
    ...(email === undefined ? {} : { email, email_verified: user.claims.email_verified === true }),
  };
  const assertion = await deps.signer.sign(realm.name, realm.settings.signing_alg, payload, ID_JAG_TYP);
  request.audit.record(
    {
      realm: realm.name,
      type: 'id_jag.issued',
      clientId: client.client_id,
      userId: user.id,
      address: request.address,
      details: { audience: entry.issuer, audience_client_id: entry.client_id, jti, scope: scope?.join(' ') ?? null, resource },
    },
    realm.settings.audit_event_lifetime,
  );
  return {
    access_token: assertion,
    issued_token_type: ID_JAG_TOKEN_TYPE,
    token_type: 'N_A',
    expires_in: ID_JAG_LIFETIME,
    scope: scope?.join(' ') ?? '',
  };
}

/** The client's `id_jag_audiences` entry of the one `audience` asked: the issuer of an authorization server of another trust domain. */
function audienceEntry(realm: RequestRealm, client: Client, audience: readonly string[]): IdJagAudience {
  if (audience.length !== 1) {
    throw new OAuthError('invalid_target', 'an ID-JAG needs exactly one audience: the issuer of the authorization server it is for');
  }
  const entry = client.id_jag_audiences?.find((candidate) => candidate.issuer === audience[0]);
  if (!entry) throw new OAuthError('invalid_target', "the audience is not an authorization server of the client's id_jag_audiences");
  // Its §8.3: an ID-JAG crosses trust domains; this realm does not redeem its own.
  if (entry.issuer === realm.issuer) throw new OAuthError('invalid_target', 'an ID-JAG is for the authorization server of another trust domain, not this realm');
  return entry;
}

/** The scopes asked for at the other server, within the entry's `scope` when it lists some; undefined when none are asked. */
function askedScope(requested: string | undefined, entry: IdJagAudience): string[] | undefined {
  if (requested === undefined) return undefined;
  if (!isScopeString(requested)) throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
  const names = scopeNames(requested);
  if (entry.scope !== undefined) {
    const wider = scopesOutside(names, scopeNames(entry.scope));
    if (wider.length > 0) throw new OAuthError('invalid_scope', `the client may not ask this authorization server for: ${namedBriefly(wider)}`);
  }
  return names;
}

/**
 * The person of the subject token: an ID token this realm issued to the client (`aud`), or an
 * access token issued to it; live, and of an enabled person (a service's token speaks for nobody).
 */
async function subjectOf(deps: IdJagIssuanceDeps, realm: RequestRealm, client: Client, token: string, type: string): Promise<IdJagSubject> {
  if (type === TOKEN_TYPES.idToken) {
    // Its `sub` names the person to this client alone, and cannot be reversed; the denials of the person's tokens name their own id.
    if (client.subject_type === 'pairwise') throw refused(`a pairwise client's ID token does not name its person here: present its access token (${TOKEN_TYPES.accessToken})`);
    const claims = await ownIdTokenClaims(deps, realm, client.client_id, token);
    if (!claims) throw refused('it is not a live ID token this realm issued to this client');
    const user = await enabledPerson(deps, realm, claims.sub);
    const signIn = { auth_time: claims.auth_time, amr: claims.amr, acr: claims.acr };
    return { user, email: claims.email !== undefined, signIn: Object.fromEntries(Object.entries(signIn).filter(([, value]) => value !== undefined)) };
  }
  if (type === TOKEN_TYPES.accessToken) {
    const own = await ownAccessToken(deps, realm, token);
    if (!own) throw refused('it is not an active access token of this realm');
    // Stricter than an exchange for an access token (CONTRACT.md §7): the person let this client alone speak for them.
    if (own.issuedTo !== client.client_id) throw refused('it was not issued to this client');
    if (own.token.userId === undefined) throw refused('no person is behind it');
    const user = await enabledPerson(deps, realm, own.token.userId);
    return { user, email: own.token.scope?.includes('email') ?? false, signIn: own.token.signIn ? { auth_time: Math.floor(own.token.signIn.authTime.getTime() / 1000) } : {} };
  }
  throw new OAuthError('invalid_request', `subject_token_type is not supported for an ID-JAG: use ${TOKEN_TYPES.idToken} or ${TOKEN_TYPES.accessToken}`);
}

async function enabledPerson(deps: Pick<IdJagIssuanceDeps, 'users'>, realm: RequestRealm, userId: string): Promise<User> {
  const user = await deps.users.getById(realm.name, userId);
  if (!user) throw refused('its person no longer exists');
  if (!user.enabled) throw refused('its person is disabled');
  return user;
}
