import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, type TestApp, freePort, startTestApp, startTwoInstances } from '../support/app.js';
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
  setCookieHeader,
  publicClient as publicClientOf,
  rowsOf,
} from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, hiddenInputs, location, pkce } from '../support/flow.js';
import { Invalidations } from '../support/invalidations.js';
import { postForm, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

/** The message of the page's error box, if any. */
const errorText = (page: string): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];

/**
 * The checks every page of the browser flow passes: not framable, nothing inline allowed, and no
 * script but the server's own page script (the show-password button), loaded from its assets.
 */
function expectPageSecurity(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  const csp = String(response.headers['content-security-policy']);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(csp).toContain("default-src 'none'");
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['cache-control']).toBe('no-store');
  const scripts = [...response.body.matchAll(/<script[^>]*>/gi)].map(([tag]) => tag);
  for (const tag of scripts) expect(tag).toMatch(/^<script src="https?:\/\/[^"]+\/assets\/page\.js\?v=[\w-]+" defer>$/);
  if (scripts.length > 0) expect(csp).toContain("script-src 'self'");
}

describe('sign-in and sessions', () => {
  let t: TestApp;

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  let sharedClientId: string;

  /**
   * A new person and a public client: in the shared realm alpha, or in a realm of its own
   * when the test needs settings.
   */
  const setup = async (settings?: Record<string, unknown>) => {
    const realm = settings ? await freshRealm(t, settings) : 'alpha';
    const clientId = settings ? await publicClient(realm) : sharedClientId;
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    return { realm, clientId, username: user.username, sub: user.sub, person: { username: user.username, password: user.password } };
  };

  /** The shared realm and its client, for what needs no person. */
  const shared = () => ({ realm: 'alpha', clientId: sharedClientId });

  const publicClient = (realm: string, extra: Record<string, unknown> = {}) => publicClientOf(t, realm, 'openid profile', extra);

  /** The sessions of a person. */
  const sessionCount = (sub: string) => rowsOf(t, 'sessions', sub);

  /** /authorize, then the sign-in page: the page, its URL, and the browser. */
  const signInPage = async (realm: string, clientId: string, params: Record<string, string> = {}) => {
    const b = browser();
    const start = await authorize(b, realm, codeRequest(clientId, params));
    expect(redirectPath(start)).toBe(`${realmPath(realm)}/login`);
    const url = location(start);
    const page = await b.get(url);
    return { b, url, page };
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    sharedClientId = await publicClient('alpha');
  });
  afterAll(() => t.close());

  describe('the sign-in page', () => {
    it('is a post form with username, password, and the hidden transaction and csrf', async () => {
      const { realm, clientId } = shared();
      const { page } = await signInPage(realm, clientId);
      expect(page.statusCode).toBe(200);
      expect(page.body).toMatch(/<form method="post">/);
      expect(page.body).toMatch(/<input[^>]*name="username"/);
      expect(page.body).toMatch(/<input[^>]*name="password"[^>]*type="password"/);
      const hidden = hiddenInputs(page.body);
      expect(Object.keys(hidden).sort()).toEqual(['csrf', 'step', 'transaction']);
      expect(hidden.step).toBe('password');
      expect(hidden.transaction).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(hidden.csrf).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    });

    it('shows the realm name', async () => {
      const { realm, clientId } = shared();
      const { page } = await signInPage(realm, clientId);
      expect(page.body).toContain(`<p class="realm">${realm}</p>`);
    });

    it('carries a CSP without unsafe-inline that forbids framing, X-Frame-Options DENY, and no script', async () => {
      const { realm, clientId } = shared();
      const { page } = await signInPage(realm, clientId);
      expectPageSecurity(page);
      // The error page too.
      const error = await authorize(browser(), realm, codeRequest('nobody'));
      expectErrorPage(error);
      expectPageSecurity(error);
    });

    it('escapes a login_hint that tries to inject markup', async () => {
      const { realm, clientId } = shared();
      const hint = '"><script>x</script>';
      const { page } = await signInPage(realm, clientId, { login_hint: hint });
      expect(page.body).not.toContain('<script>');
      expect(page.body).not.toContain(hint);
      expect(page.body).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    });

    it('answers an unknown or missing transaction with the 400 page', async () => {
      const { realm } = shared();
      expectErrorPage(await browser().get(`${realmPath(realm)}/login?transaction=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`));
      expectErrorPage(await browser().get(`${realmPath(realm)}/login`));
    });
  });

  describe('credentials', () => {
    it('shows the same message for a wrong password and an unknown user, and starts no session', async () => {
      const { realm, clientId, username, sub } = await setup();

      const wrong = await signInPage(realm, clientId);
      const wrongAnswer = await wrong.b.submit(wrong.url, wrong.page, { username, password: 'not the password' });
      const unknown = await signInPage(realm, clientId);
      const unknownAnswer = await unknown.b.submit(unknown.url, unknown.page, { username: 'nobody-here', password: 'not the password' });

      for (const answer of [wrongAnswer, unknownAnswer]) {
        expect(answer.headers.location).toBeUndefined();
        expect(answer.headers['content-type']).toMatch(/^text\/html/);
        expect(setCookieHeader(answer, `rg_session_${realm}`)).toBeUndefined();
        expectPageSecurity(answer);
      }
      expect(errorText(wrongAnswer.body)).toEqual(expect.any(String));
      expect(errorText(unknownAnswer.body)).toBe(errorText(wrongAnswer.body));
      expect(wrongAnswer.statusCode).toBe(unknownAnswer.statusCode);
      // RFC 9110 §15.5.2: a 401 MUST carry a WWW-Authenticate challenge, which a form page has none of;
      // the page is answered as a page (Keycloak answers 200).
      const challengeless401 = wrongAnswer.statusCode === 401 && wrongAnswer.headers['www-authenticate'] === undefined;
      expect(challengeless401, `status ${wrongAnswer.statusCode} without WWW-Authenticate`).toBe(false);
      expect(wrong.b.cookies.has(`rg_session_${realm}`)).toBe(false);
      expect(await sessionCount(sub)).toBe(0);
    });

    it('counts sign-ins by outcome at /metrics', async () => {
      const failures = async () => Number(/^sign_ins_total\{outcome="failure"\} (\d+)/m.exec((await t.app.inject('/metrics')).body)?.[1] ?? 0);
      const before = await failures();
      const { realm, clientId, username } = await setup();
      const { b, url, page } = await signInPage(realm, clientId);
      await b.submit(url, page, { username, password: 'not the password' });
      expect(await failures()).toBe(before + 1);
    });

    it('lets the person try again on the same page after a wrong password', async () => {
      const { realm, clientId, person } = await setup();
      const { b, url, page } = await signInPage(realm, clientId);
      const wrong = await b.submit(url, page, { username: person.username, password: 'wrong' });
      expect(hiddenInputs(wrong.body).transaction).toBe(hiddenInputs(page.body).transaction);
      // The username stays filled in.
      expect(wrong.body).toMatch(new RegExp(`<input[^>]*name="username"[^>]*value="${person.username}"`));
      const right = await b.submit(url, wrong, person);
      expect(right.statusCode).toBe(303);
      expect(redirectPath(right)).toBe(`${realmPath(realm)}/consent`);
    });

    it('asks for a one-time code after the password when the realm asks for more, and starts no session until it passes', async () => {
      const { realm, clientId, username, person, sub } = await setup({ authentication: ['password', 'otp'] });
      const enrolled = await t.admin.request('POST', `/realms/${realm}/users/${username}/totp`);
      const app = new TOTP({ secret: Secret.fromBase32((enrolled.json() as { secret: string }).secret) });
      const { b, url, page } = await signInPage(realm, clientId);
      const answer = await b.submit(url, page, person);
      expect(answer.statusCode).toBe(303);
      expect(redirectPath(answer)).toBe(`${realmPath(realm)}/login`);
      expect(setCookieHeader(answer, `rg_session_${realm}`)).toBeUndefined();
      expect(await sessionCount(sub)).toBe(0);

      const codeUrl = location(answer);
      const codePage = await b.get(codeUrl);
      expect(codePage.statusCode).toBe(200);
      expectPageSecurity(codePage);
      expect(codePage.body).toMatch(/<input [^>]*name="otp"/);
      expect(codePage.body).not.toMatch(/name="password"/);
      const wrong = await b.submit(codeUrl, codePage, { otp: 'nonsense' });
      expect(errorText(wrong.body)).toEqual(expect.any(String));
      expect(await sessionCount(sub)).toBe(0);

      const passed = await b.submit(codeUrl, codePage, { otp: app.generate() });
      expect(passed.statusCode).toBe(303);
      expect(redirectPath(passed)).toBe(`${realmPath(realm)}/consent`);
      expect(setCookieHeader(passed, `rg_session_${realm}`)).toBeDefined();
      expect(await sessionCount(sub)).toBe(1);
    });
  });

  describe('the session', () => {
    it('is a signed, HttpOnly, SameSite=Lax, Secure cookie scoped to the realm, stored as a hash', async () => {
      const { realm, clientId, person, sub } = await setup();
      const { b, url, page } = await signInPage(realm, clientId);
      const answer = await b.submit(url, page, person);
      expect(answer.statusCode).toBe(303);

      const header = setCookieHeader(answer, `rg_session_${realm}`);
      expect(header).toBeDefined();
      expect(header).toMatch(/;\s*HttpOnly/i);
      expect(header).toMatch(/;\s*SameSite=Lax/i);
      expect(header).toMatch(/;\s*Secure/i);
      expect(header).toMatch(new RegExp(`;\\s*Path=${realmPath(realm)}(;|$)`));

      const value = decodeURIComponent(b.cookies.get(`rg_session_${realm}`)!);
      const [secret, signature] = [value.slice(0, value.lastIndexOf('.')), value.slice(value.lastIndexOf('.') + 1)];
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(signature.length).toBeGreaterThan(20);

      const rows = await t.store.db.query<{ secret_hash: Uint8Array }>('select secret_hash from sessions where user_id = $1', [sub]);
      expect(rows.rows).toHaveLength(1);
      expect(Buffer.from(rows.rows[0]!.secret_hash).equals(createHash('sha256').update(secret).digest())).toBe(true);
      expect(JSON.stringify(rows.rows)).not.toContain(secret);

      // The browser binding set by /authorize has the same attributes.
      const start = await authorize(browser(), realm, codeRequest(clientId));
      const binding = setCookieHeader(start, `rg_browser_${realm}`);
      expect(binding).toMatch(/;\s*HttpOnly/i);
      expect(binding).toMatch(/;\s*SameSite=Lax/i);
      expect(binding).toMatch(/;\s*Secure/i);
      expect(binding?.split(';')[0]).toContain('.');
    });

    it('lives in the database, and a second /authorize in the browser delivers a code without the sign-in page', async () => {
      const { realm, clientId, person, sub } = await setup();
      const b = browser();
      const first = await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      expect(first.pages).toEqual(['login', 'consent']);
      expectCode(first.final, { iss: issuerOf(realm) });
      expect(await sessionCount(sub)).toBe(1);

      const second = await authorize(b, realm, codeRequest(clientId, { state: 'again' }));
      expectCode(second, { iss: issuerOf(realm), state: 'again' });
      expect(await sessionCount(sub)).toBe(1);
    });

    it('replaces the previous session on a new sign-in', async () => {
      const { realm, clientId, person, sub } = await setup();
      const b = browser();
      await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      const oldCookie = b.cookies.get(`rg_session_${realm}`)!;

      const again = await completeFlow(b, await authorize(b, realm, codeRequest(clientId, { prompt: 'login' })), person);
      expect(again.pages).toEqual(['login']);
      expect(b.cookies.get(`rg_session_${realm}`)).not.toBe(oldCookie);
      expect(await sessionCount(sub)).toBe(1);

      // The old cookie no longer signs anyone in.
      const other = browser();
      other.cookies.set(`rg_session_${realm}`, oldCookie);
      const response = await authorize(other, realm, codeRequest(clientId));
      expect(redirectPath(response)).toBe(`${realmPath(realm)}/login`);
    });

    it('treats a tampered session cookie as no session', async () => {
      const { realm, clientId, person } = await setup();
      const b = browser();
      await completeFlow(b, await authorize(b, realm, codeRequest(clientId)), person);
      const name = `rg_session_${realm}`;
      const value = decodeURIComponent(b.cookies.get(name)!);
      const dot = value.lastIndexOf('.');
      const secret = value.slice(0, dot);
      const flipped = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);

      for (const tampered of [
        `${flipped(secret)}.${value.slice(dot + 1)}`, // another secret under the old signature
        `${secret}.${flipped(value.slice(dot + 1))}`, // the secret with a wrong signature
        secret, // the secret unsigned
      ]) {
        b.cookies.set(name, encodeURIComponent(tampered));
        const response = await authorize(b, realm, codeRequest(clientId, { prompt: 'none' }));
        expect(response.statusCode).toBe(303);
        expect(new URL(location(response)).searchParams.get('error')).toBe('login_required');
      }
    });

    it('is not a session in another realm, even under that realm cookie name', async () => {
      const a = await setup();
      const other = await setup({});
      const b = browser();
      await completeFlow(b, await authorize(b, a.realm, codeRequest(a.clientId)), a.person);
      b.cookies.set(`rg_session_${other.realm}`, b.cookies.get(`rg_session_${a.realm}`)!);
      const response = await authorize(b, other.realm, codeRequest(other.clientId, { prompt: 'none' }));
      expect(new URL(location(response)).searchParams.get('error')).toBe('login_required');
    });
  });

  describe('forms bound to the browser', () => {
    it('refuses a sign-in without csrf and starts no session', async () => {
      const { realm, clientId, person, sub } = await setup();
      const { b, url, page } = await signInPage(realm, clientId);
      const answer = await b.post(url, { transaction: hiddenInputs(page.body).transaction!, ...person });
      expectErrorPage(answer);
      expect(setCookieHeader(answer, `rg_session_${realm}`)).toBeUndefined();
      expect(await sessionCount(sub)).toBe(0);
    });

    it('refuses a sign-in with the csrf token of another browser', async () => {
      const { realm, clientId, person, sub } = await setup();
      const mine = await signInPage(realm, clientId);
      const theirs = await signInPage(realm, clientId);
      const answer = await mine.b.post(mine.url, {
        transaction: hiddenInputs(mine.page.body).transaction!,
        csrf: hiddenInputs(theirs.page.body).csrf!,
        ...person,
      });
      expectErrorPage(answer);
      expect(setCookieHeader(answer, `rg_session_${realm}`)).toBeUndefined();
      expect(await sessionCount(sub)).toBe(0);
    });

    it('refuses a transaction from a browser without the binding cookie', async () => {
      const { realm, clientId, person, sub } = await setup();
      const { url, page } = await signInPage(realm, clientId);
      const stranger = browser();
      expectErrorPage(await stranger.get(url));
      const answer = await stranger.submit(url, page, person);
      expectErrorPage(answer);
      expect(setCookieHeader(answer, `rg_session_${realm}`)).toBeUndefined();
      expect(await sessionCount(sub)).toBe(0);
    });

    it('refuses a transaction from a browser bound to another transaction', async () => {
      const { realm, clientId, person, sub } = await setup();
      const { url, page } = await signInPage(realm, clientId);
      const other = await signInPage(realm, clientId); // has its own rg_browser cookie
      expect(other.b.cookies.has(`rg_browser_${realm}`)).toBe(true);
      expectErrorPage(await other.b.get(url));
      const answer = await other.b.submit(url, page, person);
      expectErrorPage(answer);
      expect(await sessionCount(sub)).toBe(0);
    });

    it('refuses a second sign-in on a finished transaction', async () => {
      const { realm, person } = await setup({ allow_consent_bypass: true });
      const clientId = await publicClient(realm, { skip_consent: true });
      const { b, url, page } = await signInPage(realm, clientId, { scope: 'openid' });
      expectCode(await b.submit(url, page, person), { iss: issuerOf(realm) });
      expectErrorPage(await b.submit(url, page, person));
    });
  });
});

/**
 * Two instances of the server on one database, as behind a load balancer (CONTRACT.md §1),
 * on an http BASE_URL: instance A listens on it, B is driven through inject.
 */
describe('two instances on an http BASE_URL', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let a: FastifyInstance;
  let b: FastifyInstance;
  let baseUrl: string;
  let admin: AdminClient;
  let invalidations: Invalidations;

  beforeAll(async () => {
    invalidations = Invalidations.watch();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    instances = await startTwoInstances({ baseUrl });
    ({ a, b } = instances);
    await a.listen({ port, host: '127.0.0.1' });
    admin = new AdminClient(a);
  });
  afterAll(async () => {
    invalidations?.stop();
    await instances?.close();
  });

  it('sets the cookies without Secure, and the pages and redirects use that BASE_URL', async () => {
    await admin.createRealm('plain');
    const flow = await codeFlowSetup(admin, 'plain');
    const browser = new TestBrowser(a, baseUrl);
    const start = await authorize(browser, 'plain', codeRequest(flow.clientId));
    expect(location(start).startsWith(`${baseUrl}/oauth2/plain/login?`)).toBe(true);
    const binding = setCookieHeader(start, 'rg_browser_plain');
    expect(binding).toMatch(/;\s*HttpOnly/i);
    expect(binding).not.toMatch(/;\s*Secure/i);

    // Through the network, as a browser would.
    const page = await fetch(location(start), { headers: { cookie: `rg_browser_plain=${browser.cookies.get('rg_browser_plain')}` } });
    expect(page.status).toBe(200);
    const answer = await browser.post(location(start), { ...hiddenInputs(await page.text()), username: flow.username, password: flow.password });
    expect(answer.statusCode).toBe(303);
    const session = setCookieHeader(answer, 'rg_session_plain');
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
    expect(session).not.toMatch(/;\s*Secure/i);

    const { final } = await completeFlow(browser, answer, { username: flow.username, password: flow.password });
    expectCode(final, { iss: issuerOf('plain', baseUrl) });
  });

  it('serves each step of a flow from either instance', async () => {
    await admin.createRealm('shared');
    const flow = await codeFlowSetup(admin, 'shared');
    const person = { username: flow.username, password: flow.password };
    const onA = new TestBrowser(a, baseUrl);
    const onB = new TestBrowser(b, baseUrl);
    const { verifier, challenge } = pkce();

    const start = await authorize(onA, 'shared', codeRequest(flow.clientId, { code_challenge: challenge }));
    onB.cookies.set('rg_browser_shared', onA.cookies.get('rg_browser_shared')!);
    const loginPage = await onB.get(location(start));
    expect(loginPage.statusCode).toBe(200);
    const signedIn = await onB.submit(location(start), loginPage, person);
    expect(redirectPath(signedIn)).toBe('/oauth2/shared/consent');

    for (const [name, value] of onB.cookies) onA.cookies.set(name, value);
    const consentPage = await onA.get(location(signedIn));
    expect(consentPage.statusCode).toBe(200);
    const done = await onB.submit(location(signedIn), consentPage, { decision: 'allow' });
    const code = expectCode(done, { iss: issuerOf('shared', baseUrl) });

    // The session made on B signs the person in on A; the code from B is exchanged on A.
    expectCode(await authorize(onA, 'shared', codeRequest(flow.clientId, { prompt: 'none', state: 'silent' })), {
      iss: issuerOf('shared', baseUrl),
      state: 'silent',
    });
    const exchanged = await postForm(a, '/oauth2/shared/access_token', {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: flow.clientId,
      redirect_uri: REDIRECT_URI,
    });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
  });

  it('applies a change of a client or realm made through one instance on the other', async () => {
    await admin.createRealm('changing');
    const flow = await codeFlowSetup(admin, 'changing', { client: { redirect_uris: [REDIRECT_URI, 'https://app.example/other'] } });
    const onB = new TestBrowser(b, baseUrl);
    // B has the client and realm cached.
    expect(redirectPath(await authorize(onB, 'changing', codeRequest(flow.clientId)))).toBe('/oauth2/changing/login');

    const patched = await admin.request('PATCH', `/realms/changing/clients/${flow.clientId}`, { redirect_uris: ['https://app.example/other'] });
    expect(patched.statusCode).toBe(200);
    const realmPatched = await admin.request('PATCH', '/realms/changing', { settings: { require_par: true } });
    expect(realmPatched.statusCode).toBe(200);

    // PostgreSQL delivers the invalidations asynchronously, one notification each: once both
    // instances have handled them (test/support/invalidations.ts), B holds the changes.
    await invalidations.settled(instances.db, 2);
    expectErrorPage(await authorize(onB, 'changing', codeRequest(flow.clientId)));
    const other = await authorize(onB, 'changing', codeRequest(flow.clientId, { redirect_uri: 'https://app.example/other' }));
    expectRedirectError(other, { error: 'invalid_request', iss: issuerOf('changing', baseUrl), redirectUri: 'https://app.example/other' });
  });
});
