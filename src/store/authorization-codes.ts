import type { AuthorizationDetail } from '../records/authorization-details.js';
import type { AskedClaims } from '../records/claims-parameter.js';
import type { Db } from './db.js';
import { noteSessionClient } from './sessions.js';
import { StatementParams } from './statement.js';

/** What a code was issued for (RFC 6749 §4.1.2), and what its tokens and ID token need. */
export interface AuthorizationCode {
  realm: string;
  clientId: string;
  /** The grant the code's tokens belong to: a second use of the code revokes it. */
  grantId: string;
  userId: string;
  sid: string;
  scope: string;
  redirectUri: string;
  /** Whether the authorization request named the redirect URI (RFC 6749 §4.1.3). */
  redirectUriGiven: boolean;
  codeChallenge: string | undefined;
  nonce: string | undefined;
  authTime: Date;
  amr: readonly string[];
  /** The acr of the journey walked (CONTRACT.md §8). */
  acr: string;
  expiresAt: Date;
  /** RFC 9449 §10 `dpop_jkt`: the thumbprint of the DPoP key whose proof the exchange needs. */
  dpopJkt?: string | undefined;
  /** RFC 8707 §2.1: the resources the request named, which the exchange may narrow; none when it named none. */
  resources?: readonly string[] | undefined;
  /** OIDC Core §5.5: the claims the request asked for by name, per destination; none when it asked for none. */
  askedClaims?: AskedClaims | undefined;
  /** RFC 9396: the authorization details the person consented to; none when the request carried none. */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
}

export interface CodeRow {
  realm: string;
  client_id: string;
  grant_id: string;
  user_id: string;
  sid: string;
  scope: string;
  redirect_uri: string;
  redirect_uri_given: boolean;
  code_challenge: string | null;
  nonce: string | null;
  auth_time: Date;
  amr: string[];
  acr: string | null;
  expires_at: Date;
  dpop_jkt: string | null;
  resources: string[] | null;
  asked_claims: AskedClaims | null;
  authorization_details: AuthorizationDetail[] | null;
}

export const CODE_COLUMNS = `realm, client_id, grant_id, user_id, sid, scope, redirect_uri, redirect_uri_given, code_challenge,
                 nonce, auth_time, amr, acr, expires_at, dpop_jkt, resources, asked_claims, authorization_details`;

export const toCode = (row: CodeRow): AuthorizationCode => ({
  realm: row.realm,
  clientId: row.client_id,
  grantId: row.grant_id,
  userId: row.user_id,
  sid: row.sid,
  scope: row.scope,
  redirectUri: row.redirect_uri,
  redirectUriGiven: row.redirect_uri_given,
  codeChallenge: row.code_challenge ?? undefined,
  nonce: row.nonce ?? undefined,
  authTime: row.auth_time,
  amr: row.amr,
  acr: row.acr ?? '0',
  expiresAt: row.expires_at,
  dpopJkt: row.dpop_jkt ?? undefined,
  resources: row.resources ?? undefined,
  askedClaims: row.asked_claims ?? undefined,
  authorizationDetails: row.authorization_details ?? undefined,
});

/** The statement that stores a code; with `from`, once per row of that CTE (none: no code). */
export function insertCode(params: StatementParams, codeHash: Buffer, code: AuthorizationCode, from?: string): string {
  const values = [
    params.add(codeHash),
    params.add(code.realm),
    params.add(code.clientId),
    `${params.add(code.grantId)}::uuid`,
    `${params.add(code.userId)}::uuid`,
    `${params.add(code.sid)}::uuid`,
    params.add(code.scope),
    params.add(code.redirectUri),
    `${params.add(code.redirectUriGiven)}::boolean`,
    `${params.add(code.codeChallenge ?? null)}::text`,
    `${params.add(code.nonce ?? null)}::text`,
    `${params.add(code.authTime)}::timestamptz`,
    `${params.add(code.amr)}::text[]`,
    `${params.add(code.acr)}::text`,
    `${params.add(code.expiresAt)}::timestamptz`,
    `${params.add(code.dpopJkt ?? null)}::text`,
    `${params.add(code.resources ? [...code.resources] : null)}::text[]`,
    `${params.add(code.askedClaims ? JSON.stringify(code.askedClaims) : null)}::jsonb`,
    `${params.add(code.authorizationDetails ? JSON.stringify(code.authorizationDetails) : null)}::jsonb`,
  ];
  return `INSERT INTO authorization_codes (code_hash, ${CODE_COLUMNS}) SELECT ${values.join(', ')} ${from ? `FROM ${from}` : ''}`;
}

/** Codes by the SHA-256 of their value. */
export class AuthorizationCodeStore {
  constructor(private readonly db: Db) {}

  /** Stores the code, and records its client among its session's (`noteSessionClient`), in one statement. */
  async insert(codeHash: Buffer, code: AuthorizationCode): Promise<void> {
    const params = new StatementParams();
    const noted = noteSessionClient(params, code.realm, code.sid, code.clientId);
    await this.db.query(`WITH noted AS (${noted}) ${insertCode(params, codeHash, code)}`, params.values);
  }
}
