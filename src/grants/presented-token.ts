import type { JWTPayload } from 'jose';
import { type TrustedJwtDeps, UntrustedJwtError, verifyTrustedJwt } from '../assertions/trusted-jwt.js';
import { userByMapping } from '../authn/user-by-subject.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import { isScopeString, scopeNames } from '../records/scope.js';
import { type Actor, type SignIn, type TokenStore, isLive } from '../store/tokens.js';
import type { UserStore } from '../store/users.js';
import { type JwtAccessTokenVerifier, looksLikeJwt } from '../tokens/jwt-access-token.js';
import { sha256 } from '../secrets.js';

/** RFC 8693 §3: the token types a subject or actor token may be. */
export const TOKEN_TYPES = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
} as const;

/** A subject or actor token, as token exchange uses it. */
export interface PresentedToken {
  /** The `sub` of tokens issued from it: a user's id, or a client's id. */
  readonly subject: string;
  /** The person behind it, if any. */
  readonly userId: string | undefined;
  /** What it allows; undefined when it carries no scope (an ID token). */
  readonly scope: readonly string[] | undefined;
  /** Who acts for its subject already (RFC 8693 §4.1). */
  readonly act: Actor | undefined;
  /** RFC 8693 §4.4: who may act for its subject; undefined when it does not say. */
  readonly mayAct: { readonly sub?: string; readonly iss?: string } | undefined;
  /** How the token names its subject, and who issued it: what an `act` or `may_act` claim names. */
  readonly claimed: { readonly sub: string; readonly iss: string };
  /** This realm's token: its grant and sign-in, which tokens exchanged from it join, so that they end with it. */
  readonly grantId?: string;
  /** When that grant began, for `grant_max_lifetime`: known of a stored token (a JWT does not carry it). */
  readonly grantStartedAt?: Date | undefined;
  readonly signIn?: SignIn | undefined;
}

export interface PresentedTokenDeps extends TrustedJwtDeps {
  tokens: Pick<TokenStore, 'find'>;
  jwtAccessTokens: JwtAccessTokenVerifier;
  users: UserStore;
}

/**
 * RFC 8693 §2.2.2: an invalid or unacceptable subject or actor token is `invalid_request`
 * (not invalid_grant); `role` names which one in the description.
 */
const unacceptable = (role: string, why: string) => new OAuthError('invalid_request', `the ${role} is not accepted: ${why}`);

/**
 * Reads a subject or actor token of a supported type: this realm's own live access token
 * (opaque or JWT), or a JWT or ID token from an issuer the realm trusts (kind `jwt`), whose
 * subject maps to a user of the realm.
 *
 * A subject or actor token must be meant for the exchanging client (CONTRACT.md §7): this
 * realm's token issued to it or naming its `client_id` in `aud`; a trusted issuer's naming this
 * realm's issuer or token endpoint in `aud`. Else a client could trade any token it came across
 * for its own, or name anyone whose token it came across as the one who acts (`act`).
 */
export async function readPresentedToken(
  deps: PresentedTokenDeps,
  realm: RequestRealm,
  clientId: string,
  role: 'subject_token' | 'actor_token',
  token: string,
  type: string,
): Promise<PresentedToken> {
  if (type === TOKEN_TYPES.accessToken) {
    const own = await ownAccessToken(deps, realm, token);
    if (!own) throw unacceptable(role, 'it is not an active access token of this realm');
    if (own.issuedTo !== clientId && !own.audience?.includes(clientId)) {
      throw unacceptable(role, 'it was not issued to this client, and its aud does not name this client');
    }
    return own.token;
  }
  if (type === TOKEN_TYPES.jwt || type === TOKEN_TYPES.idToken) return trustedJwt(deps, realm, clientId, role, token);
  throw new OAuthError('invalid_request', `${role}_type is not supported: use an access_token, jwt or id_token type`);
}

/** This realm's live access token, whom it is meant for (the client it was issued to, and its `aud`), and when it expires (epoch seconds). */
export async function ownAccessToken(
  deps: Pick<PresentedTokenDeps, 'tokens' | 'jwtAccessTokens' | 'users'>,
  realm: RequestRealm,
  token: string,
): Promise<{ token: PresentedToken; issuedTo: string; audience: readonly string[] | undefined; expiresAt: number } | undefined> {
  const jwt = looksLikeJwt(token);
  const found = jwt ? await deps.jwtAccessTokens.active(realm, token) : await storedAccessToken(deps.tokens, realm, token);
  if (!found) return undefined;
  // A JWT access token of a grant that stored nothing outlives its person's disable (CONTRACT.md §10): their flag is read
  // here. A stored token was revoked by the disable.
  if (jwt && found.userId !== undefined && !(await deps.users.getById(realm.name, found.userId))?.enabled) return undefined;
  return {
    token: {
      subject: found.subject,
      userId: found.userId,
      scope: scopeNames(found.scope),
      act: found.act,
      mayAct: undefined,
      claimed: { sub: found.subject, iss: realm.issuer },
      grantId: found.grantId,
      grantStartedAt: 'grantStartedAt' in found ? found.grantStartedAt : undefined,
      signIn: 'signIn' in found ? found.signIn : undefined,
    },
    issuedTo: found.clientId,
    audience: found.audience,
    expiresAt: typeof found.expiresAt === 'number' ? found.expiresAt : Math.floor(found.expiresAt.getTime() / 1000),
  };
}

async function storedAccessToken(tokens: PresentedTokenDeps['tokens'], realm: RequestRealm, token: string) {
  const stored = await tokens.find(sha256(token));
  return isLive(stored, realm.name) && stored.kind === 'access_token' ? stored : undefined;
}

async function trustedJwt(deps: PresentedTokenDeps, realm: RequestRealm, clientId: string, role: string, token: string): Promise<PresentedToken> {
  let verified;
  try {
    // Which clients may exchange the issuer's tokens is its `client_ids`; a subject or actor
    // token must also be meant for this realm (RFC 8693 §2.1 leaves the policy to the server).
    verified = await verifyTrustedJwt(deps, realm, clientId, token, {
      requiredClaims: ['sub'],
      // A token, not an assertion made for us: it may name other audiences beside this realm.
      audience: [realm.issuer, `${realm.issuer}/access_token`],
      audienceMayBeArray: true,
    });
  } catch (error) {
    if (error instanceof UntrustedJwtError) throw unacceptable(role, error.message);
    throw error;
  }
  const { issuer, claims } = verified;
  // An ID-JAG is redeemed once, by the client it names, with the JWT bearer grant (CONTRACT.md §15): never traded here.
  if (issuer.id_jag) throw unacceptable(role, 'its issuer is trusted for ID-JAGs alone, which the JWT bearer grant redeems');
  const sub = claims.sub!;
  const user = await userByMapping(deps.users, realm.name, issuer.subject_mapping, sub);
  if (!user) throw unacceptable(role, 'its subject is not a user of this realm');
  if (!user.enabled) throw unacceptable(role, 'its subject is disabled');
  return {
    subject: user.id,
    userId: user.id,
    scope: scopeClaim(claims, role),
    act: actorClaim(claims.act, issuer.issuer),
    mayAct: mayActClaim(claims),
    claimed: { sub, iss: issuer.issuer },
  };
}

/** The token's `scope`; undefined when it has none (an ID token). A malformed one is refused, not ignored. */
function scopeClaim(claims: JWTPayload, role: string): string[] | undefined {
  if (claims.scope === undefined) return undefined;
  if (typeof claims.scope !== 'string' || !isScopeString(claims.scope)) throw unacceptable(role, 'its scope claim is malformed');
  return scopeNames(claims.scope);
}

/**
 * An `act` claim as RFC 8693 §4.1 shapes it (a `sub`, maybe an `iss`, maybe a nested `act`);
 * else nothing. An actor without `iss` is named by the token's issuer, and says so here, where
 * it would otherwise read as one of this realm's.
 */
function actorClaim(value: unknown, tokenIssuer: string, depth = 0): Actor | undefined {
  if (typeof value !== 'object' || value === null || depth > 10) return undefined;
  const { sub, iss, act } = value as Record<string, unknown>;
  if (typeof sub !== 'string') return undefined;
  const nested = actorClaim(act, tokenIssuer, depth + 1);
  return { sub, iss: typeof iss === 'string' ? iss : tokenIssuer, ...(nested ? { act: nested } : {}) };
}

/** RFC 8693 §4.4 `may_act`; one that is present but malformed names nobody, so that no actor passes. */
function mayActClaim(claims: JWTPayload): PresentedToken['mayAct'] {
  const value = claims.may_act;
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) return {};
  const { sub, iss } = value as Record<string, unknown>;
  return { ...(typeof sub === 'string' ? { sub } : {}), ...(typeof iss === 'string' ? { iss } : {}) };
}
