import type { FastifyRequest } from 'fastify';
import { BearerError } from './errors.js';

/** RFC 6750 §2.1 and RFC 9449 §7.1: `Bearer` or `DPoP` (any case), one or more spaces, a b64token. */
const SCHEME = /^(bearer|dpop)(?: +(.*))?$/i;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The access token of a request and its scheme, from its Authorization header (RFC 6750 §2.1,
 * RFC 9449 §7.1), the only place this API reads one; undefined when the request carries none.
 *
 * - Another scheme (Basic…) is no access token: the answer is the bare challenge.
 * - `Bearer` or `DPoP` with nothing, or something that is no b64token, is a malformed request.
 * - A token in the query string (`access_token`, RFC 6750 §2.3) is refused outright: URLs are
 *   logged and leaked, and RFC 9700 §2.4.2 says not to send tokens there. Form-encoded body
 *   tokens (§2.2) are not read.
 */
export function accessTokenOf(request: FastifyRequest): { scheme: 'Bearer' | 'DPoP'; token: string } | undefined {
  const query = request.query;
  if (typeof query === 'object' && query !== null && Object.hasOwn(query, 'access_token')) {
    throw new BearerError('invalid_request', 'access tokens are not accepted in the query string; send them in the Authorization header');
  }
  const header = request.headers.authorization;
  if (header === undefined || header === '') return undefined;
  const match = SCHEME.exec(header.trim());
  if (!match) return undefined;
  const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const token = match[2];
  if (token === undefined || !B64TOKEN.test(token)) {
    throw new BearerError('invalid_request', 'the Authorization header does not hold one access token', undefined, scheme);
  }
  return { scheme, token };
}

/** A JWS in compact serialization has exactly two dots; an opaque token (realmgate's: 43 base64url characters) has none. */
export function looksLikeJwt(token: string): boolean {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  return second > 0 && token.indexOf('.', second + 1) === -1;
}
