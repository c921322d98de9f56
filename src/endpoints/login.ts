import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { type AuthorizationFlow, type ResumedTransaction, SESSION_LIFETIME_SECONDS, formTargetsOf } from '../authn/authorization-flow.js';
import type { BrowserCookies } from '../authn/browser.js';
import { PASSWORD_AMR, passwordAloneSignsIn, verifyPassword } from '../authn/password.js';
import { randomSecret, sha256 } from '../crypto/hash.js';
import { formParams } from '../http/form-params.js';
import { signInPage } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Store } from '../store/index.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

/** One message whatever was wrong, so that the page does not tell which usernames exist. */
const WRONG_CREDENTIALS = 'The username or password is incorrect.';

/**
 * The sign-in page of a transaction (CONTRACT.md §4): username and password, checked with
 * argon2id; success starts a session stored in the database, with its secret in a cookie.
 */
export function loginPage(deps: { store: Store; flow: AuthorizationFlow; cookies: BrowserCookies }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;

  /** The sign-in form of a transaction, with the username to show and what went wrong. */
  function showForm(
    reply: FastifyReply,
    realm: RequestRealm,
    resumed: ResumedTransaction,
    shown: { username?: string | undefined; error?: string } = {},
  ) {
    const page = signInPage({
      realm: realm.name,
      hidden: { transaction: resumed.id, csrf: cookies.csrfToken(resumed.browserHash, resumed.id) },
      ...(shown.username === undefined ? {} : { username: shown.username }),
      ...(shown.error === undefined ? {} : { error: shown.error }),
      formTargets: formTargetsOf(resumed.transaction.purpose),
    });
    return sendPage(reply, page.options, page.body);
  }

  return async (app) => {
    app.get('/login', GET_ONLY, async (request, reply) => {
      const resumed = await flow.resume(request, request.realm, formParams(request.query, ['transaction']).transaction);
      const { purpose } = resumed.transaction;
      return showForm(reply, request.realm, resumed, { username: purpose.kind === 'authorize' ? purpose.request.loginHint : undefined });
    });

    app.post('/login', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, ['transaction', 'csrf', 'username', 'password']);
      const resumed = await flow.resume(request, realm, form.transaction);
      if (!cookies.csrfTokenMatches(request, realm, resumed.id, form.csrf)) throw new InvalidFormError();

      const refuse = (error: string) => showForm(reply, realm, resumed, { username: form.username, error });
      if (!passwordAloneSignsIn(realm.settings)) return refuse('This realm asks for a sign-in method that is not available here.');
      if (form.username === undefined || form.password === undefined) return refuse('Enter your username and password.');
      const user = await verifyPassword(store.users, realm.name, form.username, form.password);
      app.metrics.signIns.inc({ outcome: user ? 'success' : 'failure' });
      if (!user) return refuse(WRONG_CREDENTIALS);

      // A new sign-in replaces the browser's previous session (no session fixation).
      const previous = cookies.sessionSecret(request, realm);
      if (previous !== undefined) await store.sessions.delete(sha256(previous));
      const secret = randomSecret();
      const session = await store.sessions.create(sha256(secret), {
        realm: realm.name,
        userId: user.id,
        authTime: new Date(),
        amr: PASSWORD_AMR,
        lifetimeSeconds: SESSION_LIFETIME_SECONDS,
      });
      cookies.setSession(reply, realm, secret, SESSION_LIFETIME_SECONDS);
      return flow.continueAfterSignIn(reply, realm, resumed, session);
    });
  };
}
