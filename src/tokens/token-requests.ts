import type { RequestRealm } from '../records/realm.js';
import type { AuthorizationDetail } from '../records/authorization-details.js';
import type { AskedClaims } from '../records/claims-parameter.js';
import type { Client } from '../store/clients.js';
import type { NewAuditEvent } from '../store/audit-events.js';
import type { Actor, NewToken, SignIn } from '../store/tokens.js';
import type { User } from '../store/users.js';

/** The token response of RFC 6749 §5.1 (CONTRACT.md §3). */
export interface TokenResponse {
  access_token: string;
  /**
   * RFC 9449 §5: `DPoP` when the access token is bound to the key of the request's DPoP proof;
   * RFC 8693 §2.2.1: `N_A` when token exchange issues no access token (an ID-JAG, a transaction token).
   */
  token_type: 'Bearer' | 'DPoP' | 'N_A';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
  issued_token_type?: string;
  /** RFC 9396 §7: the authorization details the access token carries. */
  authorization_details?: readonly AuthorizationDetail[];
}

export interface AccessTokenRequest {
  realm: RequestRealm;
  client: Client;
  grantType: string;
  scope: readonly string[];
  /** `sub`: the user's id, or the client's id when no person is behind the token. */
  subject: string;
  userId?: string;
  /** RFC 8705 §3: the thumbprint of the client certificate to bind the token to. */
  certificateThumbprint?: string | undefined;
  /** RFC 9449 §5: the thumbprint of the DPoP proof's key to bind the token to. */
  keyThumbprint?: string | undefined;
  /** RFC 8693 §4.1: who acts for the subject (token exchange). */
  act?: Actor | undefined;
  /** RFC 8693 §2.1: where the token may be used; the realm's issuer when absent. */
  audience?: readonly string[] | undefined;
  /** The scopes a token for `audience` may carry (src/resources/targets.ts); the others of `scope` are left out. Undefined: any. */
  audienceScopes?: readonly string[] | undefined;
  /** The grant the token joins (token exchange); a new one when absent. */
  grantId?: string | undefined;
  /** When the grant it joins began; now when absent. */
  grantStartedAt?: Date | undefined;
  /** The sign-in behind the grant it joins, so that signing out ends it too. */
  signIn?: SignIn | undefined;
  /** The client's address, for the audit trail. */
  address?: string | undefined;
  /** RFC 9396: the authorization details the access token carries (client credentials). */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
}

/** Tokens for a person: an access token, a refresh token when asked, an ID token for `openid`. */
export interface UserTokensRequest {
  realm: RequestRealm;
  client: Client;
  grantType: string;
  user: User;
  /** The access token's scope. */
  scope: readonly string[];
  /** The grant the tokens join; a new one when absent. */
  grantId?: string;
  /** When the grant they join began (its first token); now when absent, for a new grant. */
  grantStartedAt?: Date | undefined;
  signIn: SignIn;
  /**
   * When the credentials the tokens rest on were read (the password grant's), if not now: a
   * password change after it denies their JWT access token though it is signed later.
   */
  credentialsReadAt?: Date | undefined;
  /** The scope of the refresh token to issue (the whole grant's), or none. */
  refreshScope?: readonly string[];
  /** From the authorization request, for the ID token (OIDC Core §3.1.3.6). */
  nonce?: string | undefined;
  /** CIBA Core §10.3.1: the request whose tokens are pushed, named in the ID token with the refresh token's hash. */
  authReqId?: string | undefined;
  /** RFC 8705 §3: the thumbprint of the client certificate to bind the tokens to. */
  certificateThumbprint?: string | undefined;
  /**
   * RFC 9449 §5: the thumbprint of the DPoP proof's key to bind the access token to, and a public
   * client's refresh token; a confidential client's refresh token is bound by its authentication.
   */
  keyThumbprint?: string | undefined;
  /** The client's address, for the audit trail. */
  address?: string | undefined;
  /** The access token's `aud` (RFC 8707, RFC 8693 §2.1); the realm's issuer when absent. */
  audience?: readonly string[] | undefined;
  /**
   * The scopes an access token for `audience` may carry (src/resources/targets.ts): the access
   * token leaves the others of `scope` out; the refresh and ID tokens keep them. Undefined: any.
   */
  audienceScopes?: readonly string[] | undefined;
  /** The audiences of the whole grant, kept with the refresh token (none when given as undefined); `audience` when not given. */
  refreshAudience?: readonly string[] | undefined;
  /** OIDC Core §5.5: the claims the grant's request asked for, kept with its tokens (src/tokens/asked-claims.ts). */
  askedClaims?: AskedClaims | undefined;
  /** RFC 9396: the authorization details the access token carries, perhaps narrowed from the grant's. */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
  /** The whole grant's, kept with the refresh token; `authorizationDetails` when not given. */
  refreshAuthorizationDetails?: readonly AuthorizationDetail[] | undefined;
}

/**
 * A grant's tokens, minted: the rows of those stored, and the row of their `token.issued`
 * event, for the store to write together (none when nothing is stored: the audit trail then
 * records the event). Once they are written, `complete` signs what is signed and answers;
 * `written` is what the writing statement decided, when it decides something (the person
 * behind a refresh token it used).
 */
export interface MintedTokens<Written = void> {
  readonly rows: readonly NewToken[];
  readonly event: NewAuditEvent | undefined;
  complete(written: Written): Promise<TokenResponse>;
}

/** RFC 9396 §7: the token response's `authorization_details`, when the access token carries some. */
export const grantedDetails = (details: readonly AuthorizationDetail[] | undefined): Pick<TokenResponse, 'authorization_details'> =>
  details ? { authorization_details: details } : {};

/**
 * Whether a grant for a person brings a refresh token (CONTRACT.md §3): the client lists
 * the refresh_token grant and the realm issues them.
 */
export function issuesRefreshTokens(realm: RequestRealm, client: Client): boolean {
  return realm.settings.issue_refresh_tokens && client.grant_types.includes('refresh_token');
}
