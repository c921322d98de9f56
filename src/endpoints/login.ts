import type { FastifyPluginAsync } from 'fastify';
import { type AuthorizationFlow, SESSION_LIFETIME_SECONDS } from '../authn/authorization-flow.js';
import type { BrowserCookies } from '../authn/browser.js';
import { PASSWORD_AMR, passwordAloneSignsIn, verifyPassword } from '../authn/password.js';
import { randomSecret, sha256 } from '../crypto/hash.js';
import { formParams } from '../http/form-params.js';
import { signInPage } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';
import type { Store } from '../store/index.js';
import { InvalidFormError } from './pages.js';

/** One message whatever was wrong, so that the page does not tell which usernames exist. */
const WRONG_CREDENTIALS = 'The username or password is incorrect.';

/**
 * The sign-in page of a transaction (CONTRACT.md §4): username and password, checked with
 * argon2id; success starts a session stored in the database, with its secret in a cookie.
 */
export function loginPage(deps: { store: Store; flow: AuthorizationFlow; cookies: BrowserCookies }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;
  return async (app) => {
    app.get<{ Querystring: Record<string, unknown> }>('/login', async (request, reply) => {
      const realm = request.realm;
      const { id, transaction, browserHash } = await flow.resume(request, realm, formParams(request.query, ['transaction']).transaction);
      const page = signInPage({
        realm: realm.name,
        hidden: { transaction: id, csrf: cookies.csrfToken(browserHash, id) },
        ...(transaction.request.loginHint === undefined ? {} : { username: transaction.request.loginHint }),
        formTargets: [transaction.request.redirectUri],
      });
      return sendPage(reply, page.options, page.body);
    });

    app.post('/login', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, ['transaction', 'csrf', 'username', 'password']);
      const { id, transaction, client, browserHash } = await flow.resume(request, realm, form.transaction);
      if (!cookies.csrfTokenMatches(request, realm, id, form.csrf)) throw new InvalidFormError();

      const rerender = (error: string) => {
        const page = signInPage({
          realm: realm.name,
          hidden: { transaction: id, csrf: cookies.csrfToken(browserHash, id) },
          ...(form.username === undefined ? {} : { username: form.username }),
          error,
          formTargets: [transaction.request.redirectUri],
        });
        return sendPage(reply, page.options, page.body);
      };
      if (!passwordAloneSignsIn(realm.settings)) {
        return rerender('This realm asks for a sign-in method that is not available here.');
      }
      if (form.username === undefined || form.password === undefined) return rerender('Enter your username and password.');
      const user = await verifyPassword(store.users, realm.name, form.username, form.password);
      if (!user) return rerender(WRONG_CREDENTIALS);

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
      return flow.continueAfterSignIn(reply, realm, client, id, transaction.request, session);
    });
  };
}
