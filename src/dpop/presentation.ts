import type { RequestRealm } from '../records/realm.js';
import { DpopProofError } from './proof.js';
import type { DpopProofs, ProvedRequest } from './proofs.js';
import { resourceRefusal } from './refusals.js';

/** The scheme an access token came with (RFC 6750 §2.1, RFC 9449 §7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

/** RFC 9449 §7.1: `DPoP` (any case) and a token68, as RFC 6750's `Bearer`. */
const DPOP = /^DPoP +([A-Za-z0-9\-._~+/]+=*) *$/i;
const DPOP_SCHEME = /^DPoP(?: |$)/i;

/** The token of an `Authorization: DPoP …` header; undefined for another scheme. A malformed one is 400 with a DPoP challenge. */
export function dpopAuthorization(realm: RequestRealm, authorization: string | undefined): string | undefined {
  if (authorization === undefined || !DPOP_SCHEME.test(authorization)) return undefined;
  const token = DPOP.exec(authorization)?.[1];
  if (token === undefined) throw resourceRefusal(realm.name, 'invalid_request', 'the Authorization header is malformed');
  return token;
}

/**
 * RFC 9449 §7.1 at a protected resource of this server (UserInfo, at `path`): a token sent with
 * the DPoP scheme is accepted only when it is bound to a DPoP key and the request's proof, made
 * for this request and carrying the token's hash (`ath`), is of that key; a token bound to a
 * DPoP key is never accepted as a bearer token, or its binding would mean nothing. Refusals are
 * 401 with a DPoP challenge (and the realm's nonce when it demands them).
 */
export async function checkDpopPresentation(
  dpop: DpopProofs,
  request: ProvedRequest,
  realm: RequestRealm,
  path: string,
  presented: { token: string; scheme: TokenScheme },
  boundKey: string | undefined,
): Promise<void> {
  if (presented.scheme === 'Bearer') {
    if (boundKey !== undefined) {
      throw resourceRefusal(realm.name, 'invalid_token', 'the access token is bound to a DPoP key: send it with the DPoP scheme and a proof');
    }
    return;
  }
  const nonceHeaders = dpop.nonceHeaders(realm);
  if (boundKey === undefined) throw resourceRefusal(realm.name, 'invalid_token', 'the access token is not bound to a DPoP key', nonceHeaders);
  let proof;
  try {
    proof = await dpop.verify(request, realm, path, presented.token);
  } catch (error) {
    if (error instanceof DpopProofError) throw resourceRefusal(realm.name, error.code, error.message, nonceHeaders);
    throw error;
  }
  if (!proof) throw resourceRefusal(realm.name, 'invalid_dpop_proof', 'a DPoP proof is required with the DPoP scheme', nonceHeaders);
  if (proof.thumbprint !== boundKey) throw resourceRefusal(realm.name, 'invalid_token', 'the access token is bound to another DPoP key', nonceHeaders);
}
