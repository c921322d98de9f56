import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION_PARAMETERS } from '../../src/requests/authorization-request.js';
import { REDIRECT_URI, TestBrowser, formFor, hiddenInputs, location, pkce } from '../support/flow.js';
import {
  BUDGET,
  type FormPair,
  type HostileFixture,
  OAUTH_ENDPOINTS,
  POST_LOGOUT_URI,
  type Route,
  expectAnswer,
  formBytes,
  formContentType,
  hostileForm,
  hostileProperty,
  hostileText,
  queryString,
  registeredRoutes,
  routableSegment,
  send,
  startHostileApp,
} from '../support/hostile.js';
import { basic, postForm } from '../support/oauth.js';

/** The fields each page reads (src/endpoints/*, src/account/*, src/authn/nodes/*). */
const PAGE_FIELDS: Record<string, readonly string[]> = {
  '/authorize': [...AUTHORIZATION_PARAMETERS, 'request', 'ui_locales', 'acr_values', 'claims'],
  '/login': [
    ...['transaction', 'csrf', 'step', 'option', 'username', 'password', 'otp', 'recovery_code', 'credential', 'passkey_name', 'unavailable', 'provider'],
    ...['email', 'given_name', 'family_name', 'resend'],
  ],
  '/broker/:alias/callback': ['state', 'code', 'error', 'error_description', 'iss'],
  '/consent': ['transaction', 'csrf', 'decision'],
  '/device/user': ['user_code', 'csrf'],
  '/bc-approve': ['request', 'csrf', 'decision', 'answered'],
  '/connect/endSession': ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id', 'csrf', 'decision'],
  '/account': ['notice', 'mac'],
  '/account/enrolment-code': ['csrf', 'otp', 'resend'],
  '/account/otp/enrol': ['csrf'],
  '/account/otp/confirm': ['csrf', 'otp'],
  '/account/otp/remove': ['csrf'],
  '/account/passkeys/register': ['csrf', 'passkey_name', 'credential'],
  '/account/passkeys/delete': ['csrf', 'credential_id'],
  '/account/recovery-codes': ['csrf'],
  '/account/applications/revoke': ['client_id', 'csrf'],
  '/account/sessions/end': ['sid', 'csrf'],
  '/account/sessions/end-all': ['csrf'],
  '/account/profile/names': ['csrf', 'given_name', 'family_name'],
  '/account/profile/email': ['csrf', 'email'],
  '/account/password': ['csrf', 'current_password', 'new_password'],
  '/account/identities/unlink': ['csrf', 'provider', 'subject'],
  '/account/identities/link': ['csrf', 'provider'],
  '/register': ['transaction', 'csrf', 'username', 'email', 'password', 'given_name', 'family_name'],
  '/verify': ['ticket'],
  '/reset': ['ticket', 'transaction', 'csrf', 'password', 'username'],
};

/** Page routes whose every answer may be a page or a redirect, as a browser expects. */
const PAGE = { kind: 'page', allow: [200, 302, 303] } as const;

describe('hostile input at the pages', () => {
  let f: HostileFixture;
  let routes: Route[];
  /** A signed-in browser, a browser in the middle of a sign-in, and their forms' hidden values. */
  let signedIn: TestBrowser;
  let signingIn: TestBrowser;
  const plausible: Record<string, Record<string, string>> = {};

  const cookieHeader = (browser: TestBrowser) => [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

  beforeAll(async () => {
    f = await startHostileApp();
    const authorizeQuery = () => {
      const { challenge } = pkce();
      return new URLSearchParams({ client_id: f.publicClientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
    };

    // Signed in through the account page, then asked for consent by the public client.
    signedIn = new TestBrowser(f.app, f.t.baseUrl);
    const toLogin = location(await signedIn.get(`${f.path}/account`));
    const loginPage = await signedIn.get(toLogin);
    await signedIn.submit(toLogin, loginPage, { username: f.user.username, password: f.user.password });
    const toConsent = location(await signedIn.get(`${f.path}/authorize?${authorizeQuery()}`));
    const consent = hiddenInputs((await signedIn.get(toConsent)).body);
    plausible['/consent'] = { ...consent, decision: 'deny' };

    // Another browser, on the sign-in page of a transaction.
    signingIn = new TestBrowser(f.app, f.t.baseUrl);
    const login = location(await signingIn.get(`${f.path}/authorize?${authorizeQuery()}`));
    plausible['/login'] = { ...hiddenInputs((await signingIn.get(login)).body), step: 'password', password: 'wrong password' };

    // A device code to type, and a CIBA request waiting for the signed-in person.
    const device = await postForm(f.app, `${f.path}/device/code`, { client_id: f.publicClientId });
    const devicePage = await signedIn.get(`${f.path}/device/user`);
    plausible['/device/user'] = { ...hiddenInputs(devicePage.body), user_code: device.json().user_code };
    const ciba = await postForm(f.app, `${f.path}/bc-authorize`, { scope: 'openid', login_hint: f.user.username, binding_message: 'X1' }, { authorization: basic(f.service.clientId, f.service.secret) });
    expect(ciba.statusCode, ciba.body).toBe(200);
    plausible['/bc-approve'] = { ...hiddenInputs((await signedIn.get(`${f.path}/bc-approve`)).body), decision: 'deny', answered: 'approved' };

    const account = (await signedIn.get(`${f.path}/account`)).body;
    for (const path of Object.keys(PAGE_FIELDS).filter((name) => name.startsWith('/account/'))) {
      try {
        plausible[path] = formFor(account, `${f.issuer}${path}`);
      } catch {
        // A section shows the form only in some states (e.g. removing a code needs one).
      }
    }
    plausible['/authorize'] = Object.fromEntries(authorizeQuery());
    plausible['/connect/endSession'] = { client_id: f.publicClientId, post_logout_redirect_uri: POST_LOGOUT_URI, state: 's' };

    await f.app.ready();
    routes = registeredRoutes(f.app, '/oauth2/:realm/').filter((route) => !OAUTH_ENDPOINTS.includes(route.path.slice('/oauth2/:realm'.length)));
  });
  afterAll(() => f.t.close());

  it('finds every page, and knows what each reads', () => {
    const paths = new Set(routes.map((route) => route.path.slice('/oauth2/:realm'.length)));
    for (const path of Object.keys(PAGE_FIELDS)) expect(paths).toContain(path);
    for (const path of paths) if (!path.startsWith('/assets/')) expect(Object.keys(PAGE_FIELDS)).toContain(path);
  });

  /** The realm's path (mostly), the root realm's, or a hostile realm. */
  const realmPrefix = () =>
    fc.oneof({ weight: 8, arbitrary: fc.constant(f.path) }, { weight: 1, arbitrary: fc.constant('/oauth2') }, { weight: 1, arbitrary: routableSegment.map((segment) => `/oauth2/${segment}`) });

  /** The cookies of a real browser (so that forms and sessions are checked), none, or hostile ones. */
  const cookies = () =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(cookieHeader(signedIn)) },
      { weight: 2, arbitrary: fc.constant(cookieHeader(signingIn)) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(`rg_session_${f.realm}`, `rg_browser_${f.realm}`, `rg_device_${f.realm}`, '__proto__', ''), hostileText)
          .map(([name, value]) => `${name}=${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '?')).slice(0, 8_000)}; ${cookieHeader(signedIn)}`),
      },
      { weight: 1, arbitrary: fc.constantFrom('=; ;=;', 'a=b=c; ;;', `rg_session_${f.realm}=%zz`, `rg_session_${f.realm}=s:forged.sig`, `${'x'.repeat(8_000)}=1`) },
    );

  function pageCall(route: Route) {
    const path = route.path.slice('/oauth2/:realm'.length);
    const names = PAGE_FIELDS[path] ?? ['csrf'];
    return fc.record({
      prefix: realmPrefix(),
      cookie: cookies(),
      pairs: hostileForm(names, { plausible: plausible[path] ?? {} }),
      contentType: route.method === 'POST' ? formContentType : fc.constant(undefined),
      address: fc.ipV4(),
    });
  }

  it('answers every hostile request to a page with a page, a safe redirect or a refusal page', async () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    for (const route of routes) {
      const path = route.path.slice('/oauth2/:realm'.length);
      const label = `${route.method} ${path}`;
      let run = 0;
      await hostileProperty(f, path.startsWith('/assets/') ? BUDGET.raw : BUDGET.page, pageCall(route), async ({ prefix, cookie, pairs, contentType, address }) => {
        run++;
        // A username of its own each run: the same one failing again and again would earn brute-force delays.
        const unique: FormPair[] = pairs.map((pair) => (pair.name === 'username' ? { ...pair, value: `${pair.value} ${run}` } : pair));
        const response = await send(f.app, {
          method: route.method,
          url: route.method === 'GET' ? `${prefix}${path}?${queryString(unique)}` : `${prefix}${path}`,
          headers: { cookie, 'content-type': contentType },
          ...(route.method === 'POST' ? { body: formBytes(unique) } : {}),
          remoteAddress: address,
        });
        try {
          // The passkey scripts are not pages: a hostile query changes nothing of them.
          return path.startsWith('/assets/') ? expectAnswer(f, response, { kind: 'asset', allow: [200] }) : expectAnswer(f, response, PAGE);
        } catch (error) {
          throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
        }
      }, { refusals: !path.startsWith('/assets/') });
    }
  }, 120_000);
});
