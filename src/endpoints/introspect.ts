import type { FastifyPluginAsync } from 'fastify';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import type { RequestRealm } from '../records/realm.js';
import type { AuthorizationDetail } from '../records/authorization-details.js';
import { scopeNames } from '../records/scope.js';
import type { Client, ClientStore } from '../store/clients.js';
import { type Actor, type TokenStore, isLive } from '../store/tokens.js';
import type { UserStore } from '../store/users.js';
import { accessTokenType, confirmationOf, isSenderConstrained } from '../tokens/binding.js';
import { type JwtAccessTokenVerifier, looksLikeJwt } from '../tokens/jwt-access-token.js';
import type { ScopeClaims } from '../tokens/scope-claims.js';
import { sha256 } from '../secrets.js';
import type { RealmSigner } from '../tokens/signer.js';
import { type Subjects, sectorOf } from '../tokens/subject.js';
import { INTROSPECTION_JWT_TYPE, asksForIntrospectionJwt, signIntrospection } from './introspection-jwt.js';

const INACTIVE = Object.freeze({ active: false });

/**
 * Token introspection (RFC 7662). A confidential client of the realm may introspect the
 * tokens issued to it, or any token of the realm with `introspect_any_token`. Whatever is
 * not an active token it may see is `{active: false}` alone. A client that asks for
 * `application/token-introspection+jwt` gets that answer signed (RFC 9701).
 */
export function introspectionEndpoint(deps: {
  authenticator: ClientAuthenticator;
  tokens: TokenStore;
  users: UserStore;
  jwtAccessTokens: JwtAccessTokenVerifier;
  scopeClaims: Pick<ScopeClaims, 'claimsFor'>;
  signer: RealmSigner;
  clients: Pick<ClientStore, 'get'>;
  subjects: Pick<Subjects, 'for'>;
}): FastifyPluginAsync {
  return async (app) => {
    app.post('/introspect', async (request, reply) => {
      const realm = request.realm;
      const client = await deps.authenticator.authenticate(request, '/introspect');
      if (client.client_type === 'public') throw new OAuthError('invalid_client', 'public clients cannot introspect');
      // The hint is only a hint (RFC 7662 §2.1); it is read so that a repeated one is refused.
      const { token } = formParams(request.body, ['token', 'token_type_hint']);
      if (!token) throw new OAuthError('invalid_request', 'token is required');
      const active = looksLikeJwt(token) ? await jwtToken(deps, realm, token) : await storedToken(deps, realm, token);
      const answer = await describe(deps, realm, client, active);
      if (!asksForIntrospectionJwt(request.headers.accept)) return answer;
      const jwt = await signIntrospection(deps.signer, realm, client, answer);
      return reply.type(INTROSPECTION_JWT_TYPE).send(jwt);
    });
  };
}

/** What introspection tells of an active token, whether stored or stateless. */
interface ActiveToken {
  clientId: string;
  userId: string | undefined;
  subject: string;
  scope: string;
  /** RFC 9449 §6.2: `DPoP` for an access token bound to a DPoP key. */
  tokenType: 'Bearer' | 'DPoP' | 'refresh_token';
  /** Seconds since the epoch. */
  expiresAt: number;
  issuedAt: number;
  certificateThumbprint?: string | undefined;
  keyThumbprint?: string | undefined;
  act?: Actor | undefined;
  audience?: readonly string[] | undefined;
  /** RFC 9396 §9.2: the authorization details the token carries. */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
  /** A JWT access token (RFC 9068): nothing stored that a disable or a deletion would revoke. */
  stateless?: true;
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

async function storedToken(deps: { tokens: TokenStore }, realm: RequestRealm, token: string): Promise<ActiveToken | undefined> {
  const stored = await deps.tokens.find(sha256(token));
  if (!isLive(stored, realm.name)) return undefined;
  // Field by field, not `{ ...stored, … }`: see readClientCredentials (src/client-auth/credentials.ts).
  return {
    clientId: stored.clientId,
    userId: stored.userId,
    subject: stored.subject,
    scope: stored.scope,
    tokenType: stored.kind === 'access_token' ? accessTokenType(stored) : 'refresh_token',
    expiresAt: seconds(stored.expiresAt),
    issuedAt: seconds(stored.issuedAt),
    certificateThumbprint: stored.certificateThumbprint,
    keyThumbprint: stored.keyThumbprint,
    act: stored.act,
    // A refresh token keeps its grant's audiences for later refreshes; its own audience is this server.
    audience: stored.kind === 'access_token' ? stored.audience : undefined,
    authorizationDetails: stored.authorizationDetails,
  };
}

/** A stateless access token (RFC 9068): verified against the realm's published keys, its `jti` and grant checked against the deny list. */
async function jwtToken(deps: { jwtAccessTokens: JwtAccessTokenVerifier }, realm: RequestRealm, token: string): Promise<ActiveToken | undefined> {
  const jwt = await deps.jwtAccessTokens.active(realm, token);
  return jwt && { ...jwt, tokenType: accessTokenType(jwt), stateless: true };
}

/**
 * The username of the token's person while the token stands for them. A stored token of a
 * deleted or disabled person was deleted or revoked with them; a JWT of a grant that stored
 * nothing (an assertion's) is found by neither, so its person's record is read (CONTRACT.md §10).
 */
async function usernameWhileActive(users: UserStore, realm: RequestRealm, token: ActiveToken & { userId: string }): Promise<string | undefined> {
  if (!token.stateless) return users.usernameOf(realm.name, token.userId);
  const user = await users.getById(realm.name, token.userId);
  return user?.enabled ? user.username : undefined;
}

/**
 * What the caller may be told of the token's person (OpenID Connect Core §8, CONTRACT.md §13).
 * A public caller sees the `sub` of the token's client (read then only, cached as every client's
 * is: src/store/clients.ts) and the username. A pairwise caller sees the person as it knows them
 * (its own sector's `sub`), never the username nor a local or another sector's subject: of
 * another client's token it learns no `act` unless that client shares its sector.
 */
async function personAsSeenBy(
  deps: { clients: Pick<ClientStore, 'get'>; subjects: Pick<Subjects, 'for'> },
  realm: RequestRealm,
  caller: Client,
  token: ActiveToken & { userId: string },
  username: string,
): Promise<{ sub: string; username?: string; hideActor: boolean }> {
  const issuedTo = token.clientId === caller.client_id ? caller : await deps.clients.get(realm.name, token.clientId);
  if (caller.subject_type !== 'pairwise') {
    return { sub: issuedTo === undefined ? token.userId : deps.subjects.for(issuedTo, token.userId), username, hideActor: false };
  }
  const sameSector = issuedTo?.subject_type === 'pairwise' && sectorOf(issuedTo) === sectorOf(caller);
  return { sub: deps.subjects.for(caller, token.userId), hideActor: !sameSector };
}

/**
 * The RFC 7662 §2.2 answer: active only for a token the client may see, whose person (if any)
 * still exists; with the claims its scopes map about that person for `introspection`, as they
 * are now (CONTRACT.md §10).
 */
async function describe(
  deps: { users: UserStore; scopeClaims: Pick<ScopeClaims, 'claimsFor'>; clients: Pick<ClientStore, 'get'>; subjects: Pick<Subjects, 'for'> },
  realm: RequestRealm,
  client: Client,
  token: ActiveToken | undefined,
) {
  if (!token || (token.clientId !== client.client_id && !client.introspect_any_token)) return INACTIVE;
  // A token whose person no longer exists (issued while the user was being deleted) or is disabled is not active.
  const username = token.userId === undefined ? undefined : await usernameWhileActive(deps.users, realm, { ...token, userId: token.userId });
  if (token.userId !== undefined && username === undefined) return INACTIVE;
  const mapped = token.userId === undefined ? undefined : await deps.scopeClaims.claimsFor(realm.name, scopeNames(token.scope), token.userId, ['introspection']);
  const person = token.userId === undefined || username === undefined ? undefined : await personAsSeenBy(deps, realm, client, { ...token, userId: token.userId }, username);
  // Set member by member rather than spread from conditional literals: every introspection answers here.
  const answer: Record<string, unknown> = mapped?.introspection === undefined ? {} : { ...mapped.introspection };
  answer.active = true;
  answer.scope = token.scope;
  answer.client_id = token.clientId;
  if (person?.username !== undefined) answer.username = person.username;
  answer.sub = person?.sub ?? token.subject;
  answer.token_type = token.tokenType;
  answer.exp = token.expiresAt;
  answer.iat = token.issuedAt;
  answer.iss = realm.issuer;
  if (token.audience !== undefined) answer.aud = token.audience.length === 1 ? token.audience[0] : token.audience;
  if (isSenderConstrained(token)) answer.cnf = confirmationOf(token);
  if (token.act !== undefined && !person?.hideActor) answer.act = token.act;
  if (token.authorizationDetails !== undefined) answer.authorization_details = token.authorizationDetails;
  answer.realm = realm.name;
  return answer;
}
