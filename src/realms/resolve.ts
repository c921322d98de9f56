import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../errors.js';
import type { RealmStore } from '../store/realms.js';
import type { RequestRealm } from '../records/realm.js';
import { ROOT_REALM, issuerOf } from '../records/realm-names.js';

// Per-request state: the realm a request addresses is known only once its path is read, and
// everything that answers the request (its handler, the error handler's page) reads it there.
declare module 'fastify' {
  interface FastifyRequest {
    realm: RequestRealm;
  }
}

/**
 * Makes `request.realm` the realm named by the `:realm` path parameter.
 *
 * - `endpoints`: the root realm where there is no parameter (it lives at /oauth2 only, never
 *   at /oauth2/root); an unknown realm, or one whose OAuth 2.0 provider is disabled, answers
 *   404 on every path below it (CONTRACT.md §2).
 * - `admin`: any existing realm by its name, enabled or not.
 */
export function resolveRealmFromPath(app: FastifyInstance, realms: RealmStore, baseUrl: string, mode: 'endpoints' | 'admin'): void {
  app.decorateRequest('realm', null as unknown as RequestRealm);
  app.addHook('onRequest', async (request) => {
    const param = (request.params as { realm?: string }).realm;
    const name = mode === 'admin' ? param : param === ROOT_REALM ? undefined : (param ?? ROOT_REALM);
    const realm = name === undefined ? undefined : await realms.get(name);
    if (!realm || (mode === 'endpoints' && !realm.settings.oauth2_enabled)) throw new OAuthError('not_found', 'no such realm');
    request.realm = { name: realm.name, issuer: issuerOf(baseUrl, realm.name), settings: realm.settings, journeys: realm.journeys, texts: realm.texts };
  });
}
