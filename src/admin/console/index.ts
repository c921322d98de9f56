import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ClientStore } from '../../store/clients.js';
import { CONSOLE_ASSETS, CONSOLE_VERSION } from './assets.js';
import { ensureConsoleClient } from './client.js';
import { CONSOLE_CSP, CONSOLE_PAGE } from './page.js';

/** Versioned files (src/admin/console/assets.ts): a copy may be kept a year. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The page, under its headers: it holds no data, and names the files' version, which must be seen after an upgrade. */
function sendPage(reply: FastifyReply): FastifyReply {
  return reply
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONSOLE_CSP,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // The callback's URL holds the authorization code: sent to no one.
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cache-control': 'no-cache',
    })
    .send(CONSOLE_PAGE);
}

/**
 * `/admin/console`: the admin console, a page and its scripts and stylesheet. None of them
 * holds data (the page signs in through `root`, or asks for the admin token, and calls the admin
 * API with the token), so they are served without one: register this plugin outside the admin
 * API's token hook. `/admin/console/callback` is the redirect URI of its client, made here.
 */
export function adminConsole(deps: { clients: Pick<ClientStore, 'get' | 'create'>; baseUrl: string }): FastifyPluginAsync {
  return async (app) => {
    await ensureConsoleClient(deps.clients, deps.baseUrl);
    // '/' under the prefix answers both /admin/console and /admin/console/.
    app.get('/', async (_request, reply) => sendPage(reply));
    // The page again: its script reads the code and state from the URL, then takes them out of it.
    app.get('/callback', async (_request, reply) => sendPage(reply));
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
