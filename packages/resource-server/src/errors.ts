import type { FastifyReply } from 'fastify';
import { DPOP_SIGNING_ALGS } from './shared/dpop-algorithms.js';

/** The error codes of RFC 6750 §3.1 and RFC 9449 §7.1; undefined for a request that carried no token at all. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';

const STATUS: Record<BearerErrorCode, number> = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  invalid_dpop_proof: 401,
  use_dpop_nonce: 401,
};

/**
 * Why a request may not reach a protected route. Without a code, the request carried no
 * token: RFC 6750 §3.1 says such an answer names no error, only the challenge.
 */
export class BearerError extends Error {
  constructor(
    readonly code: BearerErrorCode | undefined,
    description: string,
    /** The scopes the route needs, for `insufficient_scope`. */
    readonly scope?: string,
    /** The scheme of the challenge: the one the token came with (RFC 9449 §7.1). */
    readonly scheme: 'Bearer' | 'DPoP' = 'Bearer',
  ) {
    super(description);
    this.name = 'BearerError';
  }

  get status(): number {
    return this.code === undefined ? 401 : STATUS[this.code];
  }
}

/**
 * The authorization server (discovery, key set or introspection) could not answer: the token
 * can be neither accepted nor refused, so the client is asked to come back (503).
 */
export class AuthorizationServerUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthorizationServerUnavailable';
  }
}

/** RFC 7230 quoted-string content: printable ASCII, without the quote and backslash it would need escaped. */
const quoted = (value: string): string => `"${value.replace(/[^\x20-\x7e]|["\\]/g, '')}"`;

/**
 * The RFC 6750 §3 challenge (RFC 9449 §7.1's for the DPoP scheme, with the algorithms accepted)
 * and its JSON twin, with `Cache-Control: no-store`. Every challenge names the API's metadata
 * document (RFC 9728 §5.1), where a client learns which authorization server to ask.
 */
export function sendBearerError(reply: FastifyReply, realm: string, error: BearerError, resourceMetadata: string | undefined): FastifyReply {
  const attributes = [`realm=${quoted(realm)}`];
  if (error.code !== undefined) {
    attributes.push(`error=${quoted(error.code)}`, `error_description=${quoted(error.message)}`);
    if (error.scope !== undefined) attributes.push(`scope=${quoted(error.scope)}`);
  }
  if (resourceMetadata !== undefined) attributes.push(`resource_metadata=${quoted(resourceMetadata)}`);
  if (error.scheme === 'DPoP') attributes.push(`algs=${quoted(DPOP_SIGNING_ALGS.join(' '))}`);
  return reply
    .code(error.status)
    .header('www-authenticate', `${error.scheme} ${attributes.join(', ')}`)
    .header('cache-control', 'no-store')
    .send(error.code === undefined ? { error_description: error.message } : { error: error.code, error_description: error.message });
}

export function sendUnavailable(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', '1')
    .header('cache-control', 'no-store')
    .send({ error: 'temporarily_unavailable', error_description: 'the authorization server could not be reached; try again' });
}
