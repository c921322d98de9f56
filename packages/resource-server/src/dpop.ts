import type { FastifyRequest } from 'fastify';
import { dpopProofOf } from './shared/dpop-header.js';
import { DpopProofError, verifyDpopProof } from './shared/dpop-proof.js';
import type { AccessTokenClaims } from './claims.js';
import { BearerError } from './errors.js';
import type { Settings } from './options.js';

/** The URL the client sent the request to, as its proof's `htu` must name it (RFC 9449 §4.3 item 9). */
function requestUrl(request: FastifyRequest, settings: Settings): string {
  return settings.dpop.origin === undefined ? `${request.protocol}://${request.host}${request.url}` : `${settings.dpop.origin}${request.url}`;
}

/**
 * RFC 9449 §7.1: a token sent with the DPoP scheme is accepted when it is bound to a key
 * (`cnf.jkt`) and the request carries a proof of that key, made for this request and carrying
 * the token's hash (`ath`), not used before; a token bound to a key is never accepted as a
 * bearer token. Refusals are BearerErrors of the DPoP scheme.
 */
export async function checkDpopBinding(
  claims: AccessTokenClaims,
  request: FastifyRequest,
  presented: { scheme: 'Bearer' | 'DPoP'; token: string },
  settings: Settings,
): Promise<void> {
  const cnf: unknown = claims.cnf;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as Record<string, unknown>).jkt : undefined;
  if (presented.scheme === 'Bearer') {
    if (jkt !== undefined) throw new BearerError('invalid_token', 'the token is bound to a DPoP key: send it with the DPoP scheme and a proof', undefined, 'DPoP');
    return;
  }
  if (typeof jkt !== 'string') throw new BearerError('invalid_token', 'the token is not bound to a DPoP key', undefined, 'DPoP');
  let verified;
  try {
    const proof = dpopProofOf(request);
    if (proof === undefined) throw new DpopProofError('invalid_dpop_proof', 'a DPoP proof is required with the DPoP scheme');
    verified = await verifyDpopProof(proof, {
      method: request.method,
      url: requestUrl(request, settings),
      accessToken: presented.token,
      clockSkewSeconds: settings.dpop.clockSkewSeconds,
    });
  } catch (error) {
    if (error instanceof DpopProofError) throw new BearerError(error.code, error.message, undefined, 'DPoP');
    throw error;
  }
  if (verified.thumbprint !== jkt) throw new BearerError('invalid_token', 'the token is bound to another DPoP key', undefined, 'DPoP');
  if (!(await settings.dpop.replay.use(verified.thumbprint, verified.jti, verified.acceptableUntil))) {
    throw new BearerError('invalid_dpop_proof', 'the DPoP proof was used before (its jti is spent)', undefined, 'DPoP');
  }
}
