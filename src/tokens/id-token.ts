import { claimsForScope } from './claims.js';
import { timeOrderedJti } from './jti.js';
import { seconds } from './minting.js';
import { sha256 } from '../secrets.js';
import type { RealmSigner } from './signer.js';
import type { UserTokensRequest } from './token-requests.js';

/** CIBA Core §10.3.1: the ID token of pushed tokens names their request, and hashes the refresh token too. */
const AUTH_REQ_ID_CLAIM = 'urn:openid:params:jwt:claim:auth_req_id';
const RT_HASH_CLAIM = 'urn:openid:params:jwt:claim:rt_hash';

/** OIDC Core §3.1.3.6: the left half of a token's SHA-256 (both RS256 and ES256 hash with SHA-256). */
function halfHash(token: string): string {
  const digest = sha256(token);
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/**
 * OIDC Core §2: the ID token of a person's tokens, with the claims the scope releases (the
 * standard ones, then those its scopes map: `mapped`), signed with the client's
 * `id_token_signed_response_alg`; it expires with the access token (`lifetime`). `sub` is the
 * person as the client sees them (src/tokens/subject.ts).
 */
export function signIdToken(
  signer: RealmSigner,
  request: UserTokensRequest,
  sub: string,
  tokens: { accessToken: string; refreshToken?: string | undefined },
  lifetime: (nowMs: number) => number,
  mapped?: Readonly<Record<string, unknown>>,
): Promise<string> {
  const { realm, client, user, signIn } = request;
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  return signer.sign(realm.name, client.id_token_signed_response_alg, {
    ...claimsForScope(user, request.scope),
    ...mapped,
    iss: realm.issuer,
    sub,
    aud: client.client_id,
    exp: now + lifetime(nowMs),
    iat: now,
    // The moment of issue in milliseconds (src/tokens/jti.ts): an ID token presented later (a
    // subject token, a hint) is told from one issued in the same second before a password change.
    jti: timeOrderedJti(nowMs),
    auth_time: seconds(signIn.authTime),
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    at_hash: halfHash(tokens.accessToken),
    amr: [...signIn.amr],
    acr: signIn.acr,
    sid: signIn.sid,
    ...(request.authReqId === undefined ? {} : pushedClaims(request.authReqId, tokens.refreshToken)),
  });
}

function pushedClaims(authReqId: string, refreshToken: string | undefined): Record<string, string> {
  return { [AUTH_REQ_ID_CLAIM]: authReqId, ...(refreshToken === undefined ? {} : { [RT_HASH_CLAIM]: halfHash(refreshToken) }) };
}
