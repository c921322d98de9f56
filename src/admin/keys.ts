import type { FastifyPluginAsync } from 'fastify';
import { generateRealmKeys } from '../tokens/signing-keys.js';
import type { AdminDeps } from './deps.js';

type Params = { Params: { realm: string } };

/** A replaced key keeps verifying for the longest a token it signed may live, plus clock skew. */
/** How long a replaced signing key keeps verifying beyond the longest access token it may have signed. */
const RETIRED_KEY_GRACE_SECONDS = 300;

/** `/admin/realms/{realm}/keys`: the published signing keys, and rotation of both algorithms. */
export function keyRoutes({ store, encryption, keyPairs }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/keys', async (request) => {
      const keys = await store.signingKeys.published(request.params.realm);
      return {
        keys: keys.map((key) => ({
          kid: key.kid,
          alg: key.alg,
          current: key.retiredAt === undefined,
          ...(key.retiredAt ? { retired_at: key.retiredAt.toISOString() } : {}),
        })),
      };
    });

    app.post<Params>('/keys/rotate', async (request) => {
      const realm = request.realm;
      const keys = await generateRealmKeys(realm.name, encryption, keyPairs);
      await store.signingKeys.rotate(realm.name, keys, realm.settings.access_token_lifetime + RETIRED_KEY_GRACE_SECONDS);
      return { keys: keys.map((key) => ({ kid: key.kid, alg: key.alg })) };
    });
  };
}
