import type { FastifyPluginAsync } from 'fastify';
import type { SigningKeyStore } from '../store/signing-keys.js';

/** The realm's public signing keys (RFC 7517 §5): the current ones and those still verifying. */
export function jwksEndpoint(deps: { signingKeys: SigningKeyStore }): FastifyPluginAsync {
  return async (app) => {
    app.get('/connect/jwk_uri', async (request, reply) => {
      const keys = await deps.signingKeys.published(request.realm.name);
      reply.header('cache-control', 'public, max-age=300');
      return { keys: keys.map((key) => key.publicJwk) };
    });
  };
}
