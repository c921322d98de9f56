import type { FastifyPluginAsync } from 'fastify';
import { CONSOLE_ASSETS, CONSOLE_VERSION } from './assets.js';
import { CONSOLE_CSP, CONSOLE_PAGE } from './page.js';

/** Versioned files (src/admin/console/assets.ts): a copy may be kept a year. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `/admin/console`: the admin console, a page and its scripts and stylesheet. None of them
 * holds data (the page asks for the admin token and calls the admin API with it), so they
 * are served without the token: register this plugin outside the admin API's token hook.
 */
export function adminConsole(): FastifyPluginAsync {
  return async (app) => {
    // '/' under the prefix answers both /admin/console and /admin/console/.
    app.get('/', async (_request, reply) =>
      reply
        .headers({
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': CONSOLE_CSP,
          'x-frame-options': 'DENY',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cross-origin-opener-policy': 'same-origin',
          // The page names the files' version: a new one must be seen after an upgrade.
          'cache-control': 'no-cache',
        })
        .send(CONSOLE_PAGE),
    );
    for (const asset of CONSOLE_ASSETS) {
      app.get(`/${CONSOLE_VERSION}/${asset.name}`, async (_request, reply) =>
        reply
          .headers({
            'content-type': asset.contentType,
            'cache-control': ASSET_CACHE_CONTROL,
            'x-content-type-options': 'nosniff',
            'cross-origin-resource-policy': 'same-origin',
          })
          .send(asset.body),
      );
    }
  };
}
