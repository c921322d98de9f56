import type { IncomingHttpHeaders } from 'node:http';
import { DpopProofError } from './dpop-proof.js';

/** What of a request the DPoP header is read from: a Fastify request, or Node's own. */
export interface HeadersOf {
  readonly headers: IncomingHttpHeaders;
  readonly raw?: { readonly rawHeaders?: readonly string[] };
}

/**
 * The request's DPoP proof (RFC 9449 §4.1), or undefined when it sends none. More than one DPoP
 * header is a bad proof (§4.3 item 1): Node.js joins repeated headers with a comma, which no
 * compact JWS holds, and the raw headers still count them.
 */
export function dpopProofOf(request: HeadersOf): string | undefined {
  const value = request.headers.dpop;
  if (value === undefined) return undefined;
  const repeated =
    Array.isArray(value) ||
    value.includes(',') ||
    (request.raw?.rawHeaders ?? []).filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'dpop').length > 1;
  if (repeated) throw new DpopProofError('invalid_dpop_proof', 'the request has more than one DPoP header');
  return value.trim();
}
