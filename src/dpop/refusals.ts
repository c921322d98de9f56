import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import { DPOP_SIGNING_ALGS } from './algorithms.js';
import { DpopProofError, type VerifiedProof } from './proof.js';
import type { DpopProofs, ProvedRequest } from './proofs.js';

/**
 * At the token endpoint and PAR (RFC 9449 §5, §8): 400 in the RFC 6749 §5.2 shape, with the
 * realm's current nonce when it demands them, so that the client can retry at once.
 */
function authorizationServerRefusal(error: DpopProofError, nonceHeaders: Record<string, string>): OAuthError {
  return new OAuthError(error.code, error.message, { headers: nonceHeaders });
}

/**
 * The request's proof at the token endpoint or PAR (`path`), verified, and spent unless `spend`
 * is false (the caller spends it with what it writes: DpopProofs.check); a bad one is refused
 * as authorizationServerRefusal says.
 */
export async function proofAtAuthorizationServer(
  dpop: DpopProofs,
  request: ProvedRequest,
  realm: RequestRealm,
  path: string,
  { spend = true }: { spend?: boolean } = {},
): Promise<VerifiedProof | undefined> {
  return refusingProofErrors(dpop, realm, () => (spend ? dpop.verify(request, realm, path) : dpop.check(request, realm, path)));
}

/** Runs `work`, refusing a DpopProofError it throws (a proof found spent as its tokens were written) as authorizationServerRefusal says. */
export async function refusingProofErrors<T>(dpop: DpopProofs, realm: RequestRealm, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DpopProofError) throw authorizationServerRefusal(error, dpop.nonceHeaders(realm));
    throw error;
  }
}

/** RFC 7230 quoted-string content: printable ASCII, without the quote and backslash it would need escaped. */
const quoted = (value: string): string => `"${value.replace(/[^\x20-\x7e]|["\\]/g, '')}"`;

/**
 * At a protected resource (RFC 9449 §7.1, §9): a `DPoP` challenge naming the error (with the
 * statuses of RFC 6750 §3.1: 400, 401, or 403 and the `scope` needed), and the algorithms
 * accepted, and the realm's current nonce when it demands them.
 */
export function resourceRefusal(
  realm: string,
  code: 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_token' | 'invalid_request' | 'insufficient_scope',
  description: string,
  nonceHeaders: Record<string, string> = {},
  scope?: string,
): OAuthError {
  const challenge = `DPoP realm=${quoted(realm)}, error=${quoted(code)}${scope ? `, scope=${quoted(scope)}` : ''}, algs=${quoted(DPOP_SIGNING_ALGS.join(' '))}`;
  const status = code === 'invalid_request' ? 400 : code === 'insufficient_scope' ? 403 : 401;
  return new OAuthError(code, description, { status, headers: { 'www-authenticate': challenge, ...nonceHeaders } });
}
