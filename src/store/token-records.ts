import type { AuthorizationDetail } from '../records/authorization-details.js';
import type { AskedClaims } from '../records/claims-parameter.js';

/** What a stored token is, as it is written and read (src/store/tokens.ts). */

export type TokenKind = 'access_token' | 'refresh_token';

export interface TokenRecord {
  realm: string;
  clientId: string;
  kind: TokenKind;
  /** Shared by every token of one grant, so that one statement revokes them all. */
  grantId: string;
  /** When the grant began (its first token's issuance); the token's own `issuedAt` when absent. */
  grantStartedAt?: Date | undefined;
  grantType: string;
  /** `sub`: the user's id, or the client's id when no person is behind the token. */
  subject: string;
  userId: string | undefined;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  /** The sign-in behind a person's token, for the ID tokens of later refreshes. */
  signIn?: SignIn;
  /** RFC 8705 §3: the SHA-256 thumbprint (base64url) of the client certificate the token is bound to. */
  certificateThumbprint?: string | undefined;
  /** RFC 9449 §6: the JWK SHA-256 thumbprint (RFC 7638, base64url) of the DPoP key the token is bound to. */
  keyThumbprint?: string | undefined;
  /** RFC 8693 §4.1: who acts for the subject, in an exchanged token. */
  act?: Actor | undefined;
  /** RFC 8693 §2.1 `audience` and `resource`: where the token may be used; else the realm's issuer. */
  audience?: readonly string[] | undefined;
  /** OIDC Core §5.5: the claims the grant's authorization request asked for by name, for UserInfo and later ID tokens. */
  askedClaims?: AskedClaims | undefined;
  /** RFC 9396: the authorization details the token carries (the refresh token: the whole grant's). */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
}

/** RFC 8693 §4.1: the actor's `sub` (and `iss`), and the earlier actor it acts for, if any. */
export interface Actor {
  readonly sub: string;
  readonly iss?: string;
  readonly act?: Actor;
}

/** When and how the person behind a grant signed in, and in which session. */
export interface SignIn {
  authTime: Date;
  amr: readonly string[];
  /** The acr of the journey walked (CONTRACT.md §8). */
  acr: string;
  sid: string;
  /**
   * The fingerprint of the password the sign-in checked (src/authn/password-verification.ts
   * passwordFingerprint), when it is written with its tokens: they are written only while it is
   * still the person's (src/store/token-statements.ts insertTokens). Not stored.
   */
  passwordOf?: string | undefined;
}

export interface StoredToken extends TokenRecord {
  revokedAt: Date | undefined;
  /** When a rotated refresh token was exchanged for a new one. */
  usedAt: Date | undefined;
}

/**
 * A token of this realm that is neither revoked, replaced by rotation, nor expired: the only
 * kind a client may learn about.
 */
export function isLive(token: StoredToken | undefined, realm: string): token is StoredToken {
  return token !== undefined && token.realm === realm && !token.revokedAt && !token.usedAt && token.expiresAt.getTime() > Date.now();
}

export interface TokenRow {
  realm: string;
  client_id: string;
  kind: TokenKind;
  grant_id: string;
  grant_started_at: Date | null;
  grant_type: string;
  subject: string;
  user_id: string | null;
  scope: string;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  used_at: Date | null;
  auth_time: Date | null;
  amr: string[] | null;
  acr: string | null;
  sid: string | null;
  cnf_x5t_s256: string | null;
  act: Actor | null;
  aud: string[] | null;
  cnf_jkt: string | null;
  asked_claims: AskedClaims | null;
  authorization_details: AuthorizationDetail[] | null;
}

/**
 * The token's client exists: the client it was issued to, not one created since under the same
 * client_id. Tokens have no foreign key to clients (migrations/008_token_client_check_on_read.sql),
 * so every read of a token as live checks it.
 */
export const CLIENT_EXISTS = `EXISTS (SELECT 1 FROM clients c
                                WHERE c.realm = t.realm AND c.client_id = t.client_id AND c.internal_id = t.client_internal_id)`;

export const TOKEN_COLUMNS = `t.realm, t.client_id, t.kind, t.grant_id, t.grant_started_at, t.grant_type, t.subject, t.user_id, t.scope, t.issued_at, t.expires_at,
                 t.revoked_at, t.used_at, t.auth_time, t.amr, t.acr, t.sid, t.cnf_x5t_s256, t.act, t.aud, t.cnf_jkt, t.asked_claims, t.authorization_details`;

export const toToken = (row: TokenRow): StoredToken => ({
  realm: row.realm,
  clientId: row.client_id,
  kind: row.kind,
  grantId: row.grant_id,
  grantStartedAt: row.grant_started_at ?? row.issued_at,
  grantType: row.grant_type,
  subject: row.subject,
  userId: row.user_id ?? undefined,
  scope: row.scope,
  issuedAt: row.issued_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at ?? undefined,
  usedAt: row.used_at ?? undefined,
  signIn: row.auth_time && row.sid ? { authTime: row.auth_time, amr: row.amr ?? [], acr: row.acr ?? '0', sid: row.sid } : undefined,
  certificateThumbprint: row.cnf_x5t_s256 ?? undefined,
  keyThumbprint: row.cnf_jkt ?? undefined,
  act: row.act ?? undefined,
  audience: row.aud ?? undefined,
  askedClaims: row.asked_claims ?? undefined,
  authorizationDetails: row.authorization_details ?? undefined,
});

/**
 * A token to write: its hash, and the internal id of the client it is issued to, as the
 * issuer read the client (the cache's copy; the statement reads no client). A token whose
 * client has been deleted since carries an id that no client has, or none: it is never read,
 * and is deleted when it expires (migrations/008_token_client_check_on_read.sql).
 */
export type NewToken = TokenRecord & { hash: Buffer; clientInternalId: string | null };
