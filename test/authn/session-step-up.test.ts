import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { JWTPayload } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, expectCode, expectErrorPage, expectRedirectError, freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, pkce } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, verifyIdToken } from '../support/users.js';

/** The code of an authenticator app; `stepsAhead` 1 gives the next window's, accepted too (each time step once). */
const codeOf = (base32: string, stepsAhead = 0): string =>
  new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });

/** The journey: a password, and a one-time code only for the client `bank` (its id set per realm). */
const perClientJourney = (bank: string) => ({
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'which' } },
    which: { type: 'condition', if: { client_in: [bank] }, next: { true: 'otp', false: 'done' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
});
/** Password and always a one-time code. */
const STRONG_JOURNEY = {
  start: 'pw',
  nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
};

/**
 * A session stands for a new request only when the request's journey, walked for that
 * request's client, asks for no node of the person's that the session has not passed
 * (CONTRACT.md §8); otherwise the person completes the missing nodes (a step-up), and
 * `prompt=none` answers `interaction_required`. `max_age` and `prompt=login` ask for the whole
 * journey again.
 */
describe('sessions and the journeys of later requests', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const newClient = async (realm: string) =>
    (
      await t.admin.createClient(realm, {
        client_type: 'public',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        scope: 'openid profile',
        skip_consent: true,
      })
    ).client_id;

  /** A realm with clients `shop` and `bank`, and a person with an authenticator app. */
  async function setup(settings: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, { allow_consent_bypass: true, ...settings });
    const shop = await newClient(realm);
    const bank = await newClient(realm);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const secret = ((await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`)).json() as { secret: string }).secret;
    return { realm, shop, bank, user, secret };
  }

  const putJourney = async (realm: string, journey: unknown) =>
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/default`, journey)).statusCode).toBeLessThan(300);

  /** /authorize in `browser` with PKCE; answers the response and the verifier. */
  async function request(browser: TestBrowser, realm: string, clientId: string, params: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    return { verifier, response: await authorize(browser, realm, codeRequest(clientId, { code_challenge: challenge, ...params })) };
  }

  /** The sign-in page a response sends the browser to. */
  async function pageOf(browser: TestBrowser, response: LightMyRequestResponse) {
    expect(redirectPath(response)).toMatch(/\/login$/);
    const url = location(response);
    const page = await browser.get(url);
    expect(page.statusCode).toBe(200);
    return { url, page };
  }

  async function signIn(browser: TestBrowser, realm: string, clientId: string, user: TestUser) {
    const { verifier, response } = await request(browser, realm, clientId);
    const { url, page } = await pageOf(browser, response);
    expect(page.body).toContain('name="password"');
    return { verifier, response: await browser.submit(url, page, { username: user.username, password: user.password }) };
  }

  async function idTokenOf(realm: string, clientId: string, code: string, verifier: string): Promise<JWTPayload> {
    const exchanged = await postForm(t.app, `${realmPath(realm)}/access_token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    return (await verifyIdToken(t.app, realm, exchanged.json().id_token, { issuer: issuerOf(realm), audience: clientId })).payload;
  }

  it('asks a session of shop for the one-time code before it gives bank a code, and records it for the next requests', async () => {
    const { realm, shop, bank, user, secret } = await setup();
    await putJourney(realm, perClientJourney(bank));
    const browser = new TestBrowser(t.app, BASE_URL);
    const atShop = await signIn(browser, realm, shop, user);
    const shopToken = await idTokenOf(realm, shop, expectCode(atShop.response, { iss: issuerOf(realm) }), atShop.verifier);
    expect(shopToken.amr).toEqual(['pwd']);

    // Without a page to show, bank hears that the person must act; nothing is issued.
    expectRedirectError((await request(browser, realm, bank, { prompt: 'none' })).response, { error: 'interaction_required', iss: issuerOf(realm) });

    // bank's request asks only the one-time code: the person is known, the password passed.
    const atBank = await request(browser, realm, bank);
    const otp = await pageOf(browser, atBank.response);
    expect(otp.page.body).toContain('name="otp"');
    expect(otp.page.body).not.toContain('name="password"');
    const code = expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    const bankToken = await idTokenOf(realm, bank, code, atBank.verifier);
    expect(bankToken).toMatchObject({ sub: shopToken.sub, amr: ['pwd', 'otp', 'mfa'], acr: '0', auth_time: shopToken.auth_time });

    // The session now records both nodes (the admin API lists them): either client is answered at once.
    const sessions = (await t.admin.request('GET', `/realms/${realm}/users/${user.username}/sessions`)).json() as { sessions: Array<{ nodes: string[] }> };
    expect(sessions.sessions.map((session) => session.nodes)).toEqual([['password', 'otp']]);
    const again = await request(browser, realm, bank, { prompt: 'none' });
    expect((await idTokenOf(realm, bank, expectCode(again.response, { iss: issuerOf(realm) }), again.verifier)).amr).toEqual(['pwd', 'otp', 'mfa']);
    expectCode((await request(browser, realm, shop, { prompt: 'none' })).response, { iss: issuerOf(realm) });
  });

  it('asks a session for the node an admin added to its journey since: interaction_required without a page, else only that node', async () => {
    const { realm, shop, user, secret } = await setup();
    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await signIn(browser, realm, shop, user)).response, { iss: issuerOf(realm) });
    expectCode((await request(browser, realm, shop, { prompt: 'none' })).response, { iss: issuerOf(realm) });

    await putJourney(realm, STRONG_JOURNEY);
    expectRedirectError((await request(browser, realm, shop, { prompt: 'none' })).response, { error: 'interaction_required', iss: issuerOf(realm) });
    const stepUp = await request(browser, realm, shop);
    const otp = await pageOf(browser, stepUp.response);
    expect(otp.page.body).toContain('name="otp"');
    expect(otp.page.body).not.toContain('name="password"');
    const code = expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    expect((await idTokenOf(realm, shop, code, stepUp.verifier)).amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('asks for the whole journey again with max_age=0 or prompt=login, even of a session that passed every node', async () => {
    const { realm, shop, user, secret } = await setup();
    await putJourney(realm, STRONG_JOURNEY);
    const browser = new TestBrowser(t.app, BASE_URL);
    const first = await signIn(browser, realm, shop, user);
    const otp = await pageOf(browser, first.response);
    expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    expectCode((await request(browser, realm, shop, { prompt: 'none' })).response, { iss: issuerOf(realm) });

    for (const params of [{ max_age: '0' }, { prompt: 'login' }] as Record<string, string>[]) {
      const asked = await request(browser, realm, shop, params);
      const password = await pageOf(browser, asked.response);
      expect(password.page.body, JSON.stringify(params)).toContain('name="password"');
      const next = await pageOf(browser, await browser.submit(password.url, password.page, { username: user.username, password: user.password }));
      expect(next.page.body, JSON.stringify(params)).toContain('name="otp"');
    }
  });

  it('begins no session from a step-up whose session ended meanwhile', async () => {
    const { realm, shop, bank, user, secret } = await setup();
    await putJourney(realm, perClientJourney(bank));
    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await signIn(browser, realm, shop, user)).response, { iss: issuerOf(realm) });
    const otp = await pageOf(browser, (await request(browser, realm, bank)).response);
    expect((await t.admin.request('DELETE', `/realms/${realm}/users/${user.username}/sessions`)).statusCode).toBeLessThan(300);

    expectErrorPage(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }));
    const after = await request(browser, realm, bank);
    const password = await pageOf(browser, after.response);
    expect(password.page.body).toContain('name="password"');
  });

  it('begins no session from a step-up whose session ends while its last step is written (a sign-out elsewhere)', async () => {
    const { realm, shop, bank, user, secret } = await setup();
    await putJourney(realm, perClientJourney(bank));
    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await signIn(browser, realm, shop, user)).response, { iss: issuerOf(realm) });
    const otp = await pageOf(browser, (await request(browser, realm, bank)).response);

    // The session is read with the transaction; it ends just before the statement that would replace it.
    const flowStore = t.store.authorizationFlow;
    const signedIn = flowStore.signedIn;
    flowStore.signedIn = async (...args) => {
      expect((await t.admin.request('DELETE', `/realms/${realm}/users/${user.username}/sessions`)).statusCode).toBeLessThan(300);
      return signedIn.apply(flowStore, args);
    };
    try {
      expectErrorPage(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }));
    } finally {
      flowStore.signedIn = signedIn;
    }
    const sessions = (await t.admin.request('GET', `/realms/${realm}/users/${user.username}/sessions`)).json() as { sessions: unknown[] };
    expect(sessions.sessions).toEqual([]);
    expectRedirectError((await request(browser, realm, bank, { prompt: 'none' })).response, { error: 'login_required', iss: issuerOf(realm) });
  });

  it('asks a session of shop for the one-time code before it approves a CIBA request of bank', async () => {
    const CIBA = 'urn:openid:params:grant-type:ciba';
    const { realm, shop, user, secret } = await setup({ ciba_poll_interval: 1 });
    const created = await t.admin.createClient(realm, { grant_types: [CIBA], scope: 'openid' });
    await putJourney(realm, perClientJourney(created.client_id));
    const auth = basic(created.client_id, created.client_secret as string);
    const asked = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: user.username }, { authorization: auth });
    expect(asked.statusCode, asked.body).toBe(200);

    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await signIn(browser, realm, shop, user)).response, { iss: issuerOf(realm) });
    const approvalUrl = `${realmPath(realm)}/bc-approve`;
    const formOf = async () => hiddenInputs((await browser.get(approvalUrl)).body.split('<section class="request">')[1]!);
    const otp = await pageOf(browser, await browser.post(approvalUrl, { ...(await formOf()), decision: 'allow' }));
    expect(otp.page.body).toContain('name="otp"');
    expect(otp.page.body).not.toContain('name="password"');

    expect(location(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }))).toBe(`${issuerOf(realm)}/bc-approve`);
    expect(location(await browser.post(approvalUrl, { ...(await formOf()), decision: 'allow' }))).toContain('answered=approved');
    const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: CIBA, auth_req_id: asked.json().auth_req_id }, { authorization: auth });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const idToken = await verifyIdToken(t.app, realm, tokens.json().id_token, { issuer: issuerOf(realm), audience: created.client_id });
    expect(idToken.payload.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('does not take a choice\'s registration as passed by a known person who did not register', async () => {
    const { realm, shop, bank, user, secret } = await setup();
    const weak = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } } };
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/weak`, weak)).statusCode).toBeLessThan(300);
    expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${shop}`, { journey: 'weak' })).statusCode).toBe(200);
    await putJourney(realm, {
      start: 'how',
      nodes: {
        how: { type: 'choice', options: [{ label: 'Sign in', next: 'pw' }, { label: 'Register', next: 'reg' }] },
        pw: { type: 'password', next: { success: 'otp' } },
        otp: { type: 'otp', next: { success: 'done' } },
        reg: { type: 'register', next: { success: 'done' } },
      },
    });
    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await signIn(browser, realm, shop, user)).response, { iss: issuerOf(realm) });

    expectRedirectError((await request(browser, realm, bank, { prompt: 'none' })).response, { error: 'interaction_required', iss: issuerOf(realm) });
    const choice = await pageOf(browser, (await request(browser, realm, bank)).response);
    expect(choice.page.body).toContain('Register');
    const otp = await pageOf(browser, await browser.submit(choice.url, choice.page, { option: '0' }));
    expect(otp.page.body).toContain('name="otp"');
    expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    // Signed in through the choice's first way, the session stands for the journey from now on.
    expectCode((await request(browser, realm, bank, { prompt: 'none' })).response, { iss: issuerOf(realm) });
  });

  it('asks a session of shop for the one-time code before it confirms a device request of bank', async () => {
    const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
    const { realm, shop, user, secret } = await setup({ device_poll_interval: 1 });
    const tv = (await t.admin.createClient(realm, { client_type: 'public', grant_types: [DEVICE], scope: 'openid profile' })).client_id;
    await putJourney(realm, perClientJourney(tv));
    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await signIn(browser, realm, shop, user)).response, { iss: issuerOf(realm) });

    const device = (await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: tv, scope: 'openid' })).json() as { device_code: string; user_code: string };
    const codePage = `${realmPath(realm)}/device/user`;
    const otp = await pageOf(browser, await browser.submit(codePage, await browser.get(codePage), { user_code: device.user_code }));
    expect(otp.page.body).toContain('name="otp"');
    expect(otp.page.body).not.toContain('name="password"');
    const consentUrl = location(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }));
    expect(new URL(consentUrl).pathname).toBe(`${realmPath(realm)}/consent`);
    await browser.submit(consentUrl, await browser.get(consentUrl), { decision: 'allow' });
    const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: DEVICE, device_code: device.device_code, client_id: tv });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const idToken = await verifyIdToken(t.app, realm, tokens.json().id_token, { issuer: issuerOf(realm), audience: tv });
    expect(idToken.payload.amr).toEqual(['pwd', 'otp', 'mfa']);
  });
});
