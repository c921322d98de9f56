import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationFlow } from './authorization-flow.js';
import type { BrowserCookies } from './browser-cookies.js';
import { formParams } from '../http/form-params.js';
import { deviceCodePage } from '../pages/device.js';
import { type Text } from '../pages/i18n/index.js';
import { messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import { addressKey } from '../address-key.js';
import type { RequestRealm } from '../records/realm.js';
import { formatUserCode, normaliseUserCode } from '../requests/user-code.js';
import type { AttemptLimit } from '../store/attempt-counters.js';
import type { Store } from '../store/index.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

/** The CSRF subject of the code form, which belongs to no transaction yet. */
const CSRF_SUBJECT = 'device user code';

/**
 * RFC 8628 §5.1: user codes are short, so wrong guesses are limited, per browser (its binding
 * cookie, which the form's CSRF token requires) and per address (which a browser that drops
 * its cookies cannot escape). Counted in the database: the same on every instance.
 */
const WRONG_CODE_WINDOW_SECONDS = 15 * 60;
const WRONG_CODES_PER_BROWSER = 5;
const WRONG_CODES_PER_ADDRESS = 20;

function wrongCodeLimits(request: FastifyRequest, realm: RequestRealm, browserHash: Buffer): AttemptLimit[] {
  const key = (whose: string) => `device-user-code:${realm.name}:${whose}`;
  return [
    { key: key(`browser:${browserHash.toString('hex')}`), max: WRONG_CODES_PER_BROWSER, windowSeconds: WRONG_CODE_WINDOW_SECONDS },
    { key: key(`address:${addressKey(request.ip)}`), max: WRONG_CODES_PER_ADDRESS, windowSeconds: WRONG_CODE_WINDOW_SECONDS },
  ];
}

/**
 * The device page (RFC 8628 §3.3, CONTRACT.md §4): the person types the code their device
 * shows (or arrives with it filled in from `verification_uri_complete`, and confirms it), then
 * signs in and allows or denies on the consent page, which names the code again.
 */
export function deviceVerificationPage(deps: { store: Store; flow: AuthorizationFlow; cookies: BrowserCookies }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;

  function showForm(reply: FastifyReply, browserHash: Buffer, shown: { userCode?: string | undefined; error?: Text; status?: number } = {}) {
    const t = messagesOf(reply.request);
    const page = deviceCodePage(t, {
      hidden: { csrf: cookies.csrfToken(browserHash, CSRF_SUBJECT) },
      userCode: shown.userCode,
      error: shown.error?.(t),
      status: shown.status,
    });
    return sendPage(reply, page.options, page.body);
  }

  return async (app) => {
    app.get('/device/user', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      const browserHash = cookies.bindBrowser(request, reply, realm);
      await flow.currentSession(request, realm); // the language of a signed-in person (CONTRACT.md §16)
      // RFC 8628 §3.3.1: a code in the link is shown for the person to confirm, never used unseen.
      return showForm(reply, browserHash, { userCode: formParams(request.query, ['user_code']).user_code });
    });

    app.post('/device/user', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, ['csrf', 'user_code']);
      const session = await flow.currentSession(request, realm); // its language too (CONTRACT.md §16)
      const browserHash = cookies.browserHash(request, realm);
      if (!browserHash || !cookies.csrfTokenMatches(request, realm, CSRF_SUBJECT, form.csrf)) throw new InvalidFormError();

      // The guess takes its place in the budgets before it is looked up, so that concurrent
      // guesses cannot pass them (CONTRACT.md §7); a right code gives its place back.
      const reservation = await store.attemptCounters.reserve(wrongCodeLimits(request, realm, browserHash));
      if ('wait' in reservation) {
        const { wait } = reservation;
        reply.header('retry-after', String(wait));
        const error: Text = (t) => t.device.tooManyWrongCodes(Math.ceil(wait / 60));
        return showForm(reply, browserHash, { userCode: form.user_code, error, status: 429 });
      }

      const userCode = form.user_code === undefined ? undefined : normaliseUserCode(form.user_code);
      const pending = userCode === undefined ? undefined : await store.pendingAuthorizations.findDeviceByUserCode(realm.name, userCode);
      const client = pending && (await store.clients.get(realm.name, pending.clientId));
      if (!pending || !client) {
        return showForm(reply, browserHash, { userCode: form.user_code, error: (t) => t.device.unknownCode });
      }

      await store.attemptCounters.release(reservation.reserved);
      const purpose = { kind: 'device', pendingId: pending.id, userCode: formatUserCode(userCode!), scope: pending.scope } as const;
      const fit = await flow.fitOf(request, reply, realm, purpose, client, session);
      return flow.begin(request, reply, realm, { clientId: client.client_id, purpose, fit });
    });
  };
}
