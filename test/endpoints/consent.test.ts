import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import {
  authorize,
  codeRequest,
  completeFlow,
  expectCode,
  expectErrorPage,
  expectRedirectError,
  freshRealm,
  issuerOf,
  redirectPath,
  signInFrom,
  publicClient as publicClientOf,
  rowsOf,
} from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { createUser } from '../support/users.js';
import { realmPath } from '../support/oauth.js';

describe('consent', () => {
  let t: TestApp;

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  let sharedClientId: string;

  /**
   * A new person and a public client allowed `openid profile email api:read api:write`: in
   * the shared realm alpha, or in a realm of its own when the test needs settings. A client
   * with `client` options is created for the test.
   */
  const setup = async (options: { settings?: Record<string, unknown>; client?: Record<string, unknown> } = {}) => {
    const realm = options.settings ? await freshRealm(t, options.settings) : 'alpha';
    if (realm !== 'alpha') for (const scope of ['api:read', 'api:write']) await t.admin.putScope(realm, scope);
    const clientId = realm === 'alpha' && !options.client ? sharedClientId : await publicClient(realm, options.client);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    return { realm, clientId, sub: user.sub, person: { username: user.username, password: user.password } };
  };

  const publicClient = (realm: string, extra: Record<string, unknown> = {}) => publicClientOf(t, realm, 'openid profile email api:read api:write', extra);

  const codeCount = (sub: string) => rowsOf(t, 'authorization_codes', sub);

  /** Signs in a new browser and stops at the consent page. */
  const atConsent = async (realm: string, clientId: string, person: { username: string; password: string }, params = {}) => {
    const b = browser();
    const afterSignIn = await signInFrom(b, await authorize(b, realm, codeRequest(clientId, params)), person);
    expect(redirectPath(afterSignIn)).toBe(`${realmPath(realm)}/consent`);
    const url = location(afterSignIn);
    const page = await b.get(url);
    expect(page.statusCode).toBe(200);
    return { b, url, page };
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    for (const scope of ['api:read', 'api:write']) await t.admin.putScope('alpha', scope);
    sharedClientId = await publicClient('alpha');
  });
  afterAll(() => t.close());

  describe('the page', () => {
    it('lists each requested scope by name and description, with allow and deny buttons in a post form', async () => {
      const { realm, clientId, person } = await setup({ settings: {}, client: { client_name: 'Photo Printer' } });
      await t.admin.putScope(realm, 'api:read', 'Read your photo albums');
      await t.admin.putScope(realm, 'api:write', 'Never shown: not requested');
      const { page } = await atConsent(realm, clientId, person, { scope: 'openid api:read' });

      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(page.body).not.toMatch(/<script/i);
      expect(page.body).toContain('Photo Printer');
      expect(page.body).toContain('api:read');
      expect(page.body).toContain('Read your photo albums');
      expect(page.body).toContain('openid');
      expect(page.body).not.toContain('api:write');
      expect(page.body).not.toContain('Never shown');
      expect(page.body).toMatch(/<form method="post">/);
      expect(page.body).toMatch(/<button[^>]*name="decision"[^>]*value="allow"/);
      expect(page.body).toMatch(/<button[^>]*name="decision"[^>]*value="deny"/);
      expect(Object.keys(hiddenInputs(page.body)).sort()).toEqual(['csrf', 'transaction']);
    });

    it('escapes scope descriptions and the client name', async () => {
      const { realm, clientId, person } = await setup({ settings: {}, client: { client_name: '<img src=x onerror=alert(1)>' } });
      await t.admin.putScope(realm, 'api:read', '<script>alert(1)</script>');
      const { page } = await atConsent(realm, clientId, person, { scope: 'api:read' });
      expect(page.body).not.toMatch(/<script/i);
      expect(page.body).not.toContain('<img');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('sends the person to sign in when the browser has no session for the transaction', async () => {
      const { realm, clientId } = await setup();
      const b = browser();
      const start = await authorize(b, realm, codeRequest(clientId));
      const transaction = new URL(location(start)).searchParams.get('transaction')!;
      // The consent page of a transaction nobody signed in for yet.
      const response = await b.get(`${realmPath(realm)}/consent?transaction=${encodeURIComponent(transaction)}`);
      expect(response.statusCode).toBe(303);
      expect(redirectPath(response)).toBe(`${realmPath(realm)}/login`);
    });
  });

  describe('decisions', () => {
    it('redirects a denial with access_denied, state and iss, and remembers nothing', async () => {
      const { realm, clientId, person } = await setup();
      const { b, url, page } = await atConsent(realm, clientId, person, { state: 'a b&c=d/é' });
      const denied = await b.submit(url, page, { decision: 'deny' });
      expectRedirectError(denied, { error: 'access_denied', iss: issuerOf(realm), state: 'a b&c=d/é' });

      const again = await authorize(b, realm, codeRequest(clientId));
      expect(redirectPath(again)).toBe(`${realmPath(realm)}/consent`);
    });

    it('delivers a code on allow', async () => {
      const { realm, clientId, person } = await setup();
      const { b, url, page } = await atConsent(realm, clientId, person);
      expectCode(await b.submit(url, page, { decision: 'allow' }), { iss: issuerOf(realm) });
    });

    it('refuses a decision that is neither allow nor deny, and one without csrf', async () => {
      const { realm, clientId, person } = await setup();
      const { b, url, page } = await atConsent(realm, clientId, person);
      expectErrorPage(await b.submit(url, page, { decision: 'maybe' }));
      expectErrorPage(await b.post(url, { transaction: hiddenInputs(page.body).transaction!, decision: 'allow' }));
      // Nothing was allowed: the consent page is still the next step.
      expectCode(await b.submit(url, page, { decision: 'allow' }), { iss: issuerOf(realm) });
    });

    it('refuses the consent form from another browser', async () => {
      const { realm, clientId, person } = await setup();
      const { url, page } = await atConsent(realm, clientId, person);
      const other = await atConsent(realm, clientId, person);
      expectErrorPage(await other.b.submit(url, page, { decision: 'allow' }));
    });

    it('gives one code for a double submit, then the 400 page', async () => {
      const { realm, clientId, person, sub } = await setup();
      const { b, url, page } = await atConsent(realm, clientId, person);
      const first = await b.submit(url, page, { decision: 'allow' });
      expectCode(first, { iss: issuerOf(realm) });
      const second = await b.submit(url, page, { decision: 'allow' });
      expectErrorPage(second);
      expect(await codeCount(sub)).toBe(1);
    });

    it('gives one code for two concurrent submits', async () => {
      const { realm, clientId, person, sub } = await setup();
      const { b, url, page } = await atConsent(realm, clientId, person);
      const answers = await Promise.all([1, 2, 3].map(() => b.submit(url, page, { decision: 'allow' })));
      expect(answers.filter((answer) => answer.statusCode === 303)).toHaveLength(1);
      expect(answers.filter((answer) => answer.statusCode === 400)).toHaveLength(2);
      expect(await codeCount(sub)).toBe(1);
    });
  });

  describe('remembered consent', () => {
    it('asks nothing for the same or fewer scopes, and again for a new scope', async () => {
      const { realm, clientId, person } = await setup();
      const b = browser();
      const first = await completeFlow(b, await authorize(b, realm, codeRequest(clientId, { scope: 'openid profile api:read' })), person);
      expect(first.pages).toEqual(['login', 'consent']);

      expectCode(await authorize(b, realm, codeRequest(clientId, { scope: 'openid profile api:read' })), { iss: issuerOf(realm) });
      expectCode(await authorize(b, realm, codeRequest(clientId, { scope: 'api:read' })), { iss: issuerOf(realm) });

      const wider = await authorize(b, realm, codeRequest(clientId, { scope: 'openid api:read api:write' }));
      expect(redirectPath(wider)).toBe(`${realmPath(realm)}/consent`);
      const page = await b.get(location(wider));
      expect(page.body).toContain('api:write');
      expectCode(await b.submit(location(wider), page, { decision: 'allow' }), { iss: issuerOf(realm) });

      // Both grants are remembered together.
      expectCode(await authorize(b, realm, codeRequest(clientId, { scope: 'openid profile api:read api:write' })), { iss: issuerOf(realm) });
    });

    it('asks again when the request omits scope and the client scope is wider than what was allowed', async () => {
      const { realm, clientId, person } = await setup();
      const b = browser();
      await completeFlow(b, await authorize(b, realm, codeRequest(clientId, { scope: 'openid' })), person);
      const noScope = await authorize(b, realm, codeRequest(clientId, { scope: undefined }));
      expect(redirectPath(noScope)).toBe(`${realmPath(realm)}/consent`);
    });

    it('is per client: another client of the same realm asks again', async () => {
      const { realm, clientId, person } = await setup();
      const other = { client_id: await publicClient(realm) };
      const b = browser();
      await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      const response = await authorize(b, realm, codeRequest(other.client_id));
      expect(redirectPath(response)).toBe(`${realmPath(realm)}/consent`);
    });

    it('is asked again for prompt=consent', async () => {
      const { realm, clientId, person } = await setup();
      const b = browser();
      await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      const forced = await authorize(b, realm, codeRequest(clientId, { prompt: 'consent' }));
      expect(redirectPath(forced)).toBe(`${realmPath(realm)}/consent`);
    });

    it('is asked after sign-in for prompt="login consent" even when remembered', async () => {
      const { realm, clientId, person } = await setup();
      const b = browser();
      await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      const { pages, final } = await completeFlow(b, await authorize(b, realm, codeRequest(clientId, { prompt: 'login consent' })), person);
      expect(pages).toEqual(['login', 'consent']);
      expectCode(final, { iss: issuerOf(realm) });
    });
  });

  describe('consent bypass', () => {
    it('skips the page when the realm allows the bypass and the client has skip_consent', async () => {
      const { realm, clientId, person } = await setup({ settings: { allow_consent_bypass: true }, client: { skip_consent: true } });
      const b = browser();
      const { pages, final } = await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      expect(pages).toEqual(['login']);
      expectCode(final, { iss: issuerOf(realm) });
    });

    it('shows the page for a skip_consent client when the realm does not allow the bypass', async () => {
      const { realm, clientId, person } = await setup({ client: { skip_consent: true } });
      const b = browser();
      const { pages } = await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      expect(pages).toEqual(['login', 'consent']);
    });

    it('shows the page when the realm allows the bypass but the client does not ask for it', async () => {
      const { realm, clientId, person } = await setup({ settings: { allow_consent_bypass: true } });
      const b = browser();
      const { pages } = await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      expect(pages).toEqual(['login', 'consent']);
    });
  });
});
