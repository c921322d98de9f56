import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { JWTPayload } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, expectCode, expectRedirectError, freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, pkce } from '../support/flow.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, passwordGrant, verifyIdToken } from '../support/users.js';

/** The code of an authenticator app; `stepsAhead` 1 gives the next window's, which is accepted too (each time step once). */
const codeOf = (base32: string, stepsAhead = 0): string =>
  new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });

/** Password, then a one-time code only when the sign-in looks new (CONTRACT.md §8's example). */
const RISK_JOURNEY = {
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'risk' } },
    risk: { type: 'risk', next: { low: 'done', high: 'otp' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
};
/** Password and always a one-time code. */
const STRONG_JOURNEY = {
  start: 'pw',
  nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
};

/**
 * Authentication journeys (CONTRACT.md §8): graphs an admin stores, walked by the sign-in
 * pages and the password grant; which one runs; the `acr` and `amr` of the ID token.
 */
describe('authentication journeys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const putJourney = (realm: string, name: string, journey: unknown) => t.admin.request('PUT', `/realms/${realm}/journeys/${name}`, journey);

  /** A realm, a person with an authenticator app, a browser client and a password-grant client. */
  async function setup(options: { settings?: Record<string, unknown>; journeys?: Record<string, unknown>; browserJourney?: string; serviceJourney?: string } = {}) {
    const realm = await freshRealm(t, { allow_consent_bypass: true });
    for (const [name, journey] of Object.entries(options.journeys ?? {})) expect((await putJourney(realm, name, journey)).statusCode).toBeLessThan(300);
    if (options.settings) expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: options.settings })).statusCode).toBe(200);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const secret = ((await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`)).json() as { secret: string }).secret;
    const browserClient = (
      await t.admin.createClient(realm, {
        client_type: 'public',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        scope: 'openid profile',
        skip_consent: true,
        ...(options.browserJourney ? { journey: options.browserJourney } : {}),
      })
    ).client_id;
    const created = await t.admin.createClient(realm, {
      grant_types: ['password'],
      scope: 'openid',
      ...(options.serviceJourney ? { journey: options.serviceJourney } : {}),
    });
    const service: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
    return { realm, user, secret, browserClient, service };
  }

  const claims = async (realm: string, clientId: string, idToken: string): Promise<JWTPayload> =>
    (await verifyIdToken(t.app, realm, idToken, { issuer: issuerOf(realm), audience: clientId })).payload;

  /** /authorize in `browser`, the password page; answers the response after the password. */
  async function throughPassword(browser: TestBrowser, realm: string, clientId: string, user: TestUser, params: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const start = await authorize(browser, realm, codeRequest(clientId, { code_challenge: challenge, ...params }));
    expect(redirectPath(start)).toBe(`${realmPath(realm)}/login`);
    const login = location(start);
    const page = await browser.get(login);
    expect(page.body).toContain('name="password"');
    return { verifier, response: await browser.submit(login, page, { username: user.username, password: user.password }) };
  }

  /** The next sign-in page: its URL and body. */
  async function nextPage(browser: TestBrowser, response: LightMyRequestResponse) {
    expect(redirectPath(response)).toMatch(/\/login$/);
    const url = location(response);
    return { url, page: await browser.get(url) };
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
    return claims(realm, clientId, exchanged.json().id_token);
  }

  describe('the admin API refuses a graph it cannot run, naming the node', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['an unknown type', { start: 'a', nodes: { a: { type: 'sms', next: { success: 'done' } } } }, /node "a": unknown type "sms"/],
      ['an outcome left unconnected', { start: 'a', nodes: { a: { type: 'password', next: { success: 'r' } }, r: { type: 'risk', next: { low: 'done' } } } }, /node "r": outcome "high" is not connected/],
      ['an outcome leading nowhere', { start: 'a', nodes: { a: { type: 'password', next: { success: 'nowhere' } } } }, /node "a": outcome "success" leads to "nowhere"/],
      ['an outcome the type does not have', { start: 'a', nodes: { a: { type: 'password', next: { success: 'done', failure: 'deny' } } } }, /node "a": has no outcome "failure"/],
      ['no way to done', { start: 'a', nodes: { a: { type: 'password', next: { success: 'deny' } } } }, /node "a": no way leads from it to "done"/],
      [
        'a loop without a step of the person',
        {
          start: 'pw',
          nodes: {
            pw: { type: 'password', next: { success: 'c1' } },
            c1: { type: 'condition', if: 'has_otp', next: { true: 'c2', false: 'done' } },
            c2: { type: 'risk', next: { low: 'c1', high: 'done' } },
          },
        },
        /node "c[12]": is in a loop without a step of the person/,
      ],
      ['a one-time code before anyone is known', { start: 'otp', nodes: { otp: { type: 'otp', next: { success: 'done' } } } }, /node "otp": .*before a password or passkey node/],
      [
        'done reached by a choice alone',
        { start: 'c', nodes: { c: { type: 'choice', options: [{ label: 'Go', next: 'done' }] } } },
        /node "done": a way reaches "done" before/,
      ],
      [
        'an email check before anyone is known',
        { start: 'v', nodes: { v: { type: 'email_verification', next: { success: 'done' } } } },
        /node "v": .*before a password or passkey node/,
      ],
      [
        'a password offering a passkey node that is none',
        { start: 'a', nodes: { a: { type: 'password', passkey: 'b', next: { success: 'b' } }, b: { type: 'otp', next: { success: 'done' } } } },
        /node "a": "passkey" names "b", which is no passkey node/,
      ],
      ['a start that is no node', { start: 'x', nodes: { a: { type: 'password', next: { success: 'done' } } } }, /"start" must name one of the nodes/],
    ];
    for (const [label, journey, message] of cases) {
      it(`refuses ${label}`, async () => {
        const realm = await freshRealm(t);
        const response = await putJourney(realm, 'j', journey);
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(message) });
        expect((await t.admin.request('GET', `/realms/${realm}/journeys/j`)).statusCode).toBe(404);
      });
    }

    it('keeps a valid one, and shows default as the realm authentication list until one is stored', async () => {
      const realm = await freshRealm(t, { authentication: ['password', 'otp'] });
      const derived = await t.admin.request('GET', `/realms/${realm}/journeys/default`);
      expect(derived.statusCode).toBe(200);
      expect(derived.json()).toEqual({
        start: 'password',
        nodes: { password: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
      });
      expect((await putJourney(realm, 'risky', RISK_JOURNEY)).statusCode).toBeLessThan(300);
      expect((await t.admin.request('GET', `/realms/${realm}/journeys/risky`)).json()).toEqual(RISK_JOURNEY);
    });
  });

  it('runs the stored default journey: a one-time code only for a browser and address that have not signed in before', async () => {
    const { realm, user, secret, browserClient } = await setup({ journeys: { default: RISK_JOURNEY } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const first = await throughPassword(browser, realm, browserClient, user);
    const otp = await nextPage(browser, first.response);
    expect(otp.page.body).toContain('name="otp"');
    const code = expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    expect(await idTokenOf(realm, browserClient, code, first.verifier)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: '0' });

    // The same browser signs in again (prompt=login): the risk node finds it known, and the code is skipped.
    const again = await throughPassword(browser, realm, browserClient, user, { prompt: 'login' });
    const code2 = expectCode(again.response, { iss: issuerOf(realm) });
    expect(await idTokenOf(realm, browserClient, code2, again.verifier)).toMatchObject({ amr: ['pwd'], acr: '0' });
  });

  it('picks the journey by acr_values through acr_journeys, and names the acr in the ID token; a client journey wins over it', async () => {
    const { realm, user, secret, browserClient } = await setup({ journeys: { strong: STRONG_JOURNEY }, settings: { acr_journeys: { gold: 'strong' } } });
    const discovery = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` });
    expect(discovery.json().acr_values_supported).toEqual(['0', 'gold']);

    const plain = await throughPassword(new TestBrowser(t.app, BASE_URL), realm, browserClient, user);
    expect(await idTokenOf(realm, browserClient, expectCode(plain.response, { iss: issuerOf(realm) }), plain.verifier)).toMatchObject({ acr: '0', amr: ['pwd'] });

    const browser = new TestBrowser(t.app, BASE_URL);
    const gold = await throughPassword(browser, realm, browserClient, user, { acr_values: 'silver gold' });
    const otp = await nextPage(browser, gold.response);
    const code = expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    expect(await idTokenOf(realm, browserClient, code, gold.verifier)).toMatchObject({ acr: 'gold', amr: ['pwd', 'otp', 'mfa'] });

    // A client whose journey is `default` walks it whatever acr it asks for.
    expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${browserClient}`, { journey: 'default' })).statusCode).toBe(200);
    const pinned = await throughPassword(new TestBrowser(t.app, BASE_URL), realm, browserClient, user, { acr_values: 'gold' });
    expect(await idTokenOf(realm, browserClient, expectCode(pinned.response, { iss: issuerOf(realm) }), pinned.verifier)).toMatchObject({ acr: '0' });
  });

  it('does not let a session of a weaker journey stand for a client that asks for another: the person completes its missing node', async () => {
    const { realm, user, secret, browserClient } = await setup({ journeys: { strong: STRONG_JOURNEY } });
    const strongClient = (
      await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile', skip_consent: true, journey: 'strong' })
    ).client_id;
    const browser = new TestBrowser(t.app, BASE_URL);
    const first = await throughPassword(browser, realm, browserClient, user);
    expectCode(first.response, { iss: issuerOf(realm) });

    // The session of `default` answers its own clients at once, but not the `strong` one.
    const { challenge } = pkce();
    expectCode(await authorize(browser, realm, codeRequest(browserClient, { code_challenge: challenge })), { iss: issuerOf(realm) });
    const none = await authorize(browser, realm, codeRequest(strongClient, { code_challenge: challenge, prompt: 'none' }));
    expectRedirectError(none, { error: 'interaction_required', iss: issuerOf(realm) });
    const strong = await authorize(browser, realm, codeRequest(strongClient, { code_challenge: challenge }));
    const otp = await nextPage(browser, strong);
    expect(otp.page.body).toContain('name="otp"');
    expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
  });

  it('offers a choice of the ways on, and runs the one picked', async () => {
    const journey = {
      start: 'pw',
      nodes: {
        pw: { type: 'password', next: { success: 'how' } },
        how: { type: 'choice', options: [{ label: 'Authenticator app', next: 'otp' }, { label: 'Passkey', next: 'key' }] },
        otp: { type: 'otp', next: { success: 'done' } },
        key: { type: 'passkey', next: { success: 'done', unavailable: 'deny' } },
      },
    };
    const { realm, user, secret, browserClient, service } = await setup({ journeys: { default: journey } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const first = await throughPassword(browser, realm, browserClient, user);
    const choice = await nextPage(browser, first.response);
    expect(choice.page.body).toContain('Authenticator app');
    expect(choice.page.body).toContain('Passkey');
    const picked = await browser.submit(choice.url, choice.page, { option: '0' });
    const otp = await nextPage(browser, picked);
    expect(otp.page.body).toContain('name="otp"');
    expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });

    // The other way: a person without a passkey takes its `unavailable`, which denies.
    const other = new TestBrowser(t.app, BASE_URL);
    const second = await throughPassword(other, realm, browserClient, user);
    const choice2 = await nextPage(other, second.response);
    expectRedirectError(await other.submit(choice2.url, choice2.page, { option: '1' }), { error: 'access_denied', iss: issuerOf(realm) });

    // The password grant cannot show a choice: refused, and nothing is issued.
    const granted = await passwordGrant(t.app, realm, service, user);
    expect(granted.statusCode).toBe(400);
    expect(granted.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('choose') });
  });

  it('decides conditions: a one-time code only for the listed client, and deny for a person without one', async () => {
    const journey = {
      start: 'pw',
      nodes: {
        pw: { type: 'password', next: { success: 'which' } },
        which: { type: 'condition', if: { client_in: ['placeholder'] }, next: { true: 'has', false: 'done' } },
        has: { type: 'condition', if: 'has_otp', next: { true: 'otp', false: 'deny' } },
        otp: { type: 'otp', next: { success: 'done' } },
      },
    };
    const { realm, user, secret, browserClient, service } = await setup();
    const listed = { ...journey, nodes: { ...journey.nodes, which: { ...journey.nodes.which, if: { client_in: [browserClient, service.clientId] } } } };
    expect((await putJourney(realm, 'default', listed)).statusCode).toBeLessThan(300);
    const other = (
      await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile', skip_consent: true })
    ).client_id;

    const unlisted = await throughPassword(new TestBrowser(t.app, BASE_URL), realm, other, user);
    expectCode(unlisted.response, { iss: issuerOf(realm) });

    const browser = new TestBrowser(t.app, BASE_URL);
    const listedFlow = await throughPassword(browser, realm, browserClient, user);
    const otp = await nextPage(browser, listedFlow.response);
    expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    expect((await passwordGrant(t.app, realm, service, user, { otp: codeOf(secret, 1) })).statusCode).toBe(200);

    // A person without an app reaches `deny`: the client hears access_denied, the grant invalid_grant.
    const bob = await createUser(t.admin, realm, `b-${randomBytes(4).toString('hex')}`);
    const denied = await throughPassword(new TestBrowser(t.app, BASE_URL), realm, browserClient, bob);
    expectRedirectError(denied.response, { error: 'access_denied', iss: issuerOf(realm) });
    const refused = await passwordGrant(t.app, realm, service, bob);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant', error_description: 'the sign-in was refused' });
    const events = (await t.admin.request('GET', `/realms/${realm}/events?type=sign_in.failed`)).json() as { events: Array<{ details: { reason: string } }> };
    expect(events.events.filter((event) => event.details.reason === 'denied')).toHaveLength(2);
  });

  it('takes a passkey node\'s `unavailable` by itself for a person who has none', async () => {
    const journey = {
      start: 'pw',
      nodes: {
        pw: { type: 'password', next: { success: 'key' } },
        key: { type: 'passkey', next: { success: 'done', unavailable: 'otp' } },
        otp: { type: 'otp', next: { success: 'done' } },
      },
    };
    const { realm, user, secret, browserClient, service } = await setup({ journeys: { default: journey } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const first = await throughPassword(browser, realm, browserClient, user);
    const otp = await nextPage(browser, first.response);
    expect(otp.page.body).toContain('name="otp"');
    expectCode(await browser.submit(otp.url, otp.page, { otp: codeOf(secret) }), { iss: issuerOf(realm) });
    // The password grant walks the same way: no passkey, so the code.
    expect((await passwordGrant(t.app, realm, service, user)).json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('otp') });
    expect((await passwordGrant(t.app, realm, service, user, { otp: codeOf(secret, 1) })).statusCode).toBe(200);
  });

  it('refuses a reference to a journey the realm does not have, and the deletion of one in use', async () => {
    const { realm, browserClient } = await setup({ journeys: { strong: STRONG_JOURNEY }, browserJourney: 'strong', settings: { acr_journeys: { gold: 'strong' } } });
    const inUse = await t.admin.request('DELETE', `/realms/${realm}/journeys/strong`);
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toMatchObject({ error: 'conflict' });
    expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${browserClient}`, { journey: 'missing' })).statusCode).toBe(400);
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { acr_journeys: { gold: 'missing' } } })).statusCode).toBe(400);
    expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${browserClient}`, { journey: null })).statusCode).toBe(200);
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { acr_journeys: {} } })).statusCode).toBe(200);
    expect((await t.admin.request('DELETE', `/realms/${realm}/journeys/strong`)).statusCode).toBe(204);
  });

  it('has a CIBA request of a client with a journey approved only after that journey: the session of another completes it first', async () => {
    const CIBA = 'urn:openid:params:grant-type:ciba';
    const { realm, user, secret, browserClient } = await setup({ journeys: { strong: STRONG_JOURNEY }, settings: { ciba_poll_interval: 1 } });
    const created = await t.admin.createClient(realm, { grant_types: [CIBA], scope: 'openid', journey: 'strong' });
    const auth = basic(created.client_id, created.client_secret as string);
    const asked = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: user.username }, { authorization: auth });
    expect(asked.statusCode, asked.body).toBe(200);

    // Signed in with `default` (a password), the person allows: they are sent to complete `strong` first, its one-time code.
    const browser = new TestBrowser(t.app, BASE_URL);
    expectCode((await throughPassword(browser, realm, browserClient, user)).response, { iss: issuerOf(realm) });
    const approvalUrl = `${realmPath(realm)}/bc-approve`;
    const approval = await browser.get(approvalUrl);
    const form = hiddenInputs(approval.body.split('<section class="request">')[1]!);
    const allow = await browser.post(approvalUrl, { ...form, decision: 'allow' });
    const otp = await nextPage(browser, allow);
    expect(otp.page.body).toContain('name="otp"');
    const back = await browser.submit(otp.url, otp.page, { otp: codeOf(secret) });
    expect(location(back)).toBe(`${issuerOf(realm)}/bc-approve`);
    const again = await browser.get(approvalUrl);
    const answered = await browser.post(approvalUrl, { ...hiddenInputs(again.body.split('<section class="request">')[1]!), decision: 'allow' });
    expect(location(answered)).toContain('answered=approved');

    const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: CIBA, auth_req_id: asked.json().auth_req_id }, { authorization: auth });
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(await claims(realm, created.client_id, tokens.json().id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'] });
  });

  it('keeps a journey out of the hands of a client registering itself', async () => {
    const realm = await freshRealm(t, { open_registration: true });
    expect((await putJourney(realm, 'weak', { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } } })).statusCode).toBeLessThan(300);
    const registered = await t.app.inject({
      method: 'POST',
      url: `${realmPath(realm)}/connect/register`,
      payload: { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', journey: 'weak' },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const stored = await t.admin.request('GET', `/realms/${realm}/clients/${registered.json().client_id}`);
    expect(stored.json().journey).toBeUndefined();
  });
});
