import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { SigningKeyStore } from '../store/signing-keys.js';

/**
 * How long a verifier may reuse the key set. A rotation makes the new key current at once
 * (on every instance), so a verifier that does not refetch on an unknown `kid` (jose's
 * remote key set does) fails new tokens for at most this long; retired keys stay published
 * far longer (src/admin/keys.ts), so old tokens keep verifying either way. Refetching is cheap:
 * an unchanged set answers 304 to the ETag.
 */
const MAX_AGE_SECONDS = 60;

/** RFC 9110 §13.1.2: does If-None-Match name this entity tag (weak comparison)? */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** The realm's public signing keys (RFC 7517 §5): the current ones and those still verifying. */
export function jwksEndpoint(deps: { signingKeys: SigningKeyStore }): FastifyPluginAsync {
  return async (app) => {
    app.get('/connect/jwk_uri', async (request, reply) => {
      const keys = await deps.signingKeys.published(request.realm.name);
      const body = JSON.stringify({ keys: keys.map((key) => key.publicJwk) });
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      reply.header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`).header('etag', etag);
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type('application/json; charset=utf-8').send(body);
    });
  };
}
