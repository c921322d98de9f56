import type { FastifyPluginAsync } from 'fastify';
import { PAGE_SCRIPT, PASSKEY_PAGE_SCRIPT, WEBAUTHN_SCRIPT } from '../pages/assets/scripts.js';

/** The pages ask for a script by a URL that names its version, so a copy may be kept a year. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `{issuer}/assets/webauthn.js` and `{issuer}/assets/passkey.js`: the scripts of the pages
 * with passkey forms; `{issuer}/assets/page.js`: the show-password button and local times. The
 * only scripts the pages' CSP allows (`script-src 'self'`).
 */
export function staticAssets(): FastifyPluginAsync {
  return async (app) => {
    for (const asset of [WEBAUTHN_SCRIPT, PASSKEY_PAGE_SCRIPT, PAGE_SCRIPT]) {
      app.get(`/assets/${asset.name}`, async (_request, reply) =>
        reply
          .headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': CACHE_CONTROL, 'x-content-type-options': 'nosniff' })
          .send(asset.body),
      );
    }
  };
}
