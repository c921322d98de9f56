import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/secrets.js';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { TestBrowser, location } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, verifyIdToken } from '../support/users.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

describe('device authorization grant (RFC 8628)', () => {
  let t: TestApp & { clock: TestClock };

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A realm of its own, a person, and a public device client (`grant_types` may be changed). */
  async function setup(settings: Record<string, unknown> = { device_poll_interval: 1 }, client: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, settings);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const created = await t.admin.createClient(realm, {
      client_type: 'public',
      client_name: 'Living room TV',
      grant_types: [DEVICE_GRANT, 'refresh_token'],
      scope: 'openid profile',
      ...client,
    });
    return { realm, user, clientId: created.client_id, secret: created.client_secret };
  }

  const deviceCode = (realm: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(t.app, `${realmPath(realm)}/device/code`, form, headers);

  async function startDevice(realm: string, clientId: string, scope?: string): Promise<DeviceAuthorization> {
    const response = await deviceCode(realm, { client_id: clientId, ...(scope ? { scope } : {}) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as DeviceAuthorization;
  }

  const poll = (realm: string, clientId: string, code: string) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: DEVICE_GRANT, device_code: code, client_id: clientId });

  function expectError(response: LightMyRequestResponse, error: string, status = 400) {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toMatchObject({ error });
  }

  /** The browser side: the code page, sign-in when needed, and the consent page, answered with `decision`. */
  async function answer(
    realm: string,
    user: TestUser,
    typed: string,
    decision: 'allow' | 'deny',
    browser = new TestBrowser(t.app, t.baseUrl),
  ): Promise<LightMyRequestResponse> {
    const pageUrl = `${realmPath(realm)}/device/user`;
    const page = await browser.get(pageUrl);
    expect(page.statusCode).toBe(200);
    let response = await browser.submit(pageUrl, page, { user_code: typed });
    if (new URL(location(response), t.baseUrl).pathname.endsWith('/login')) {
      const login = await browser.get(location(response));
      response = await browser.submit(location(response), login, { username: user.username, password: user.password });
    }
    const consentUrl = location(response);
    expect(new URL(consentUrl).pathname).toBe(`${realmPath(realm)}/consent`);
    const consent = await browser.get(consentUrl);
    expect(consent.statusCode).toBe(200);
    return browser.submit(consentUrl, consent, { decision });
  }

  describe('/device/code', () => {
    it('answers a device code, a user code and where to type it', async () => {
      const { realm, clientId } = await setup({ device_code_lifetime: 600, device_poll_interval: 7 });
      const response = await deviceCode(realm, { client_id: clientId, scope: 'openid' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json() as DeviceAuthorization;
      const issuer = issuerOf(realm);
      expect(body).toEqual({
        device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
        verification_uri: `${issuer}/device/user`,
        verification_uri_complete: `${issuer}/device/user?user_code=${body.user_code}`,
        expires_in: 600,
        interval: 7,
      });
      // Only the SHA-256 of the device code is stored.
      const rows = await t.store.db.query<{ secret_hash: Uint8Array; scope: string }>(
        'SELECT secret_hash, scope FROM pending_authorizations WHERE realm = $1',
        [realm],
      );
      expect(rows.rows).toHaveLength(1);
      expect(Buffer.from(rows.rows[0]!.secret_hash).equals(sha256(body.device_code))).toBe(true);
      expect(rows.rows[0]!.scope).toBe('openid');
    });

    it('asks for all of the client scope when none is requested, and refuses more', async () => {
      const { realm, clientId } = await setup();
      await startDevice(realm, clientId);
      const scopes = await t.store.db.query<{ scope: string }>('SELECT scope FROM pending_authorizations WHERE realm = $1', [realm]);
      expect(scopes.rows[0]!.scope).toBe('openid profile');
      expectError(await deviceCode(realm, { client_id: clientId, scope: 'openid email' }), 'invalid_scope');
    });

    it('refuses a client whose record does not list the device grant', async () => {
      const { realm, clientId } = await setup(undefined, { grant_types: ['authorization_code'], redirect_uris: ['https://app.example/cb'] });
      expectError(await deviceCode(realm, { client_id: clientId }), 'unauthorized_client');
    });

    it('makes a confidential client authenticate', async () => {
      const { realm, clientId, secret } = await setup(undefined, { client_type: 'confidential' });
      expectError(await deviceCode(realm, { client_id: clientId }), 'invalid_client', 401);
      expectError(await deviceCode(realm, {}, { authorization: basic(clientId, 'wrong') }), 'invalid_client', 401);
      const response = await deviceCode(realm, {}, { authorization: basic(clientId, secret!) });
      expect(response.statusCode).toBe(200);
    });

    it('refuses an unknown client and a repeated parameter', async () => {
      const { realm, clientId } = await setup();
      expectError(await deviceCode(realm, { client_id: 'nobody' }), 'invalid_client', 401);
      expectError(await deviceCode(realm, { client_id: clientId, scope: ['openid', 'profile'] as unknown as string }), 'invalid_request');
    });
  });

  describe('polling', () => {
    it('answers authorization_pending, then the tokens once, then invalid_grant', async () => {
      const { realm, user, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      expectError(await poll(realm, clientId, device.device_code), 'authorization_pending');

      const done = await answer(realm, user, device.user_code, 'allow');
      expect(done.statusCode).toBe(200);
      expect(done.body).toContain('Device connected');

      await t.clock.advance(1100);
      const tokens = await poll(realm, clientId, device.device_code);
      expect(tokens.statusCode, tokens.body).toBe(200);
      const body = tokens.json() as { access_token: string; refresh_token?: string; id_token?: string; scope: string };
      expect(body.scope).toBe('openid profile');
      expect(body.refresh_token).toBeDefined();
      const { payload } = await verifyIdToken(t.app, realm, body.id_token!, { issuer: issuerOf(realm), audience: clientId });
      expect(payload.sub).toBe(user.sub);
      expect(payload.amr).toEqual(['pwd']);

      await t.clock.advance(1100);
      expectError(await poll(realm, clientId, device.device_code), 'invalid_grant');
    });

    it('gives the tokens to exactly one of concurrent polls', async () => {
      const { realm, user, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      await answer(realm, user, device.user_code, 'allow');
      const responses = await Promise.all(Array.from({ length: 4 }, () => poll(realm, clientId, device.device_code)));
      expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
      for (const response of responses.filter((candidate) => candidate.statusCode !== 200)) expectError(response, 'invalid_grant');
    });

    it('answers slow_down to a poll that comes too soon, and the interval grows by 5 seconds', async () => {
      const { realm, clientId } = await setup({ device_poll_interval: 1 });
      const device = await startDevice(realm, clientId);
      expectError(await poll(realm, clientId, device.device_code), 'authorization_pending');
      expectError(await poll(realm, clientId, device.device_code), 'slow_down');
      // The interval is now 6 s: a poll after the original 1 s is still too soon.
      await t.clock.advance(1200);
      expectError(await poll(realm, clientId, device.device_code), 'slow_down');
      const row = await t.store.db.query<{ interval_seconds: number }>('SELECT interval_seconds FROM pending_authorizations WHERE realm = $1', [realm]);
      expect(row.rows[0]!.interval_seconds).toBe(11);
    });

    it('answers access_denied when the person denies', async () => {
      const { realm, user, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const denied = await answer(realm, user, device.user_code, 'deny');
      expect(denied.statusCode).toBe(200);
      expect(denied.body).toContain('Access denied');
      expectError(await poll(realm, clientId, device.device_code), 'access_denied');
    });

    it('answers expired_token once the device code has expired', async () => {
      const { realm, clientId } = await setup({ device_code_lifetime: 1, device_poll_interval: 1 });
      const device = await startDevice(realm, clientId);
      await t.clock.advance(1200);
      expectError(await poll(realm, clientId, device.device_code), 'expired_token');
      // The person can no longer use the code either.
      const browser = new TestBrowser(t.app, t.baseUrl);
      const page = await browser.get(`${realmPath(realm)}/device/user`);
      const response = await browser.submit(`${realmPath(realm)}/device/user`, page, { user_code: device.user_code });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('not valid or has expired');
    });

    it('binds the device code to its client: another client polling it learns nothing and spends nothing', async () => {
      const { realm, user, clientId } = await setup();
      const other = await t.admin.createClient(realm, { client_type: 'public', grant_types: [DEVICE_GRANT], scope: 'openid profile' });
      const device = await startDevice(realm, clientId);
      await answer(realm, user, device.user_code, 'allow');
      expectError(await poll(realm, other.client_id, device.device_code), 'invalid_grant');
      const tokens = await poll(realm, clientId, device.device_code);
      expect(tokens.statusCode, tokens.body).toBe(200);
    });

    it('refuses an unknown or missing device code, and a code of another realm', async () => {
      const { realm, clientId } = await setup();
      expectError(await poll(realm, clientId, 'not-a-device-code'), 'invalid_grant');
      expectError(await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: DEVICE_GRANT, client_id: clientId }), 'invalid_request');
      const elsewhere = await setup();
      const device = await startDevice(elsewhere.realm, elsewhere.clientId);
      await answer(elsewhere.realm, elsewhere.user, device.user_code, 'allow');
      expectError(await poll(realm, clientId, device.device_code), 'invalid_grant');
    });

    it('refuses the grant to a client whose record does not list it', async () => {
      const { realm, clientId } = await setup(undefined, { grant_types: ['refresh_token'] });
      expectError(await poll(realm, clientId, 'whatever'), 'unauthorized_client');
    });
  });

  describe('the device page', () => {
    it('matches the code case-insensitively and without the dash, and names it on the consent page', async () => {
      const { realm, user, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const pageUrl = `${realmPath(realm)}/device/user`;
      const page = await browser.get(pageUrl);
      const typed = device.user_code.replace('-', '').toLowerCase();
      const login = await browser.submit(pageUrl, page, { user_code: ` ${typed} ` });
      const loginUrl = location(login);
      const signIn = await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
      const consent = await browser.get(location(signIn));
      expect(consent.body).toContain(device.user_code);
      expect(consent.body).toContain('Living room TV');
      expect(consent.body).toContain('profile');
    });

    it('prefills the code of verification_uri_complete and waits for the person to confirm it', async () => {
      const { realm, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const page = await browser.get(device.verification_uri_complete);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`value="${device.user_code}"`);
      expect(page.body).toMatch(/<form method="post">/);
      const row = await t.store.db.query<{ status: string }>('SELECT status FROM pending_authorizations WHERE realm = $1', [realm]);
      expect(row.rows[0]!.status).toBe('pending');
    });

    it('goes straight to consent when the person is signed in already', async () => {
      const { realm, user, clientId } = await setup();
      const browser = new TestBrowser(t.app, t.baseUrl);
      const first = await startDevice(realm, clientId);
      await answer(realm, user, first.user_code, 'allow', browser);
      const second = await startDevice(realm, clientId);
      const pageUrl = `${realmPath(realm)}/device/user`;
      const response = await browser.submit(pageUrl, await browser.get(pageUrl), { user_code: second.user_code });
      expect(new URL(location(response)).pathname).toBe(`${realmPath(realm)}/consent`);
    });

    it('refuses a form without its CSRF token', async () => {
      const { realm, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const browser = new TestBrowser(t.app, t.baseUrl);
      await browser.get(`${realmPath(realm)}/device/user`);
      const response = await browser.post(`${realmPath(realm)}/device/user`, { user_code: device.user_code });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    });

    it('counts each guess before it is looked up: of 20 wrong codes and the right one sent at once, at most 5 are looked up, and the right one is refused', async () => {
      const { realm, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const pageUrl = `${realmPath(realm)}/device/user`;
      const page = await browser.get(pageUrl);
      // Every lookup is held until each guess has either reached its lookup or been answered, so
      // that all of them are in flight together whatever the store's own scheduling.
      const store = t.store.pendingAuthorizations;
      const lookup = store.findDeviceByUserCode.bind(store);
      let arrived = 0;
      let answered = 0;
      let release!: () => void;
      const allInFlight = new Promise<void>((resolve) => (release = resolve));
      const settle = () => arrived + answered === 20 && release();
      store.findDeviceByUserCode = async (...args) => {
        arrived++;
        settle();
        await allInFlight;
        return lookup(...args);
      };
      let wrong;
      try {
        wrong = await Promise.all(
          Array.from({ length: 20 }, () =>
            browser.submit(pageUrl, page, { user_code: 'BBBB-BBBB' }).then((response) => {
              if (response.statusCode === 429) answered++;
              settle();
              return response;
            }),
          ),
        );
      } finally {
        store.findDeviceByUserCode = lookup;
      }
      const looked = wrong.filter((response) => response.statusCode === 200);
      const refused = wrong.filter((response) => response.statusCode === 429);
      expect(looked.length).toBeLessThanOrEqual(5);
      expect(looked.length + refused.length).toBe(20);
      expect((await browser.submit(pageUrl, page, { user_code: device.user_code })).statusCode).toBe(429);
    });

    it('limits wrong codes per browser: the sixth attempt is refused with 429, even with the right code', async () => {
      const { realm, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const pageUrl = `${realmPath(realm)}/device/user`;
      const page = await browser.get(pageUrl);
      for (let attempt = 0; attempt < 5; attempt++) {
        const wrong = await browser.submit(pageUrl, page, { user_code: attempt % 2 ? 'BBBB-BBBB' : 'nonsense' });
        expect(wrong.statusCode).toBe(200);
        expect(wrong.body).toContain('not valid or has expired');
      }
      const limited = await browser.submit(pageUrl, page, { user_code: device.user_code });
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800);
      expect(limited.body).toContain('Too many wrong codes');
      // Another browser is not held back by this one.
      const other = new TestBrowser(t.app, t.baseUrl);
      const accepted = await other.submit(pageUrl, await other.get(pageUrl), { user_code: device.user_code });
      expect(accepted.statusCode).toBe(303);
    });

    it('limits wrong codes per address, whatever browser they come from', async () => {
      const { realm, clientId } = await setup();
      const device = await startDevice(realm, clientId);
      const pageUrl = `${realmPath(realm)}/device/user`;
      const fromAddress = (address: string) => {
        const browser = new TestBrowser(t.app, t.baseUrl);
        browser.remoteAddress = address;
        return browser;
      };
      // Four wrong codes from each of five browsers: none reaches its own limit of five.
      for (let browserNumber = 0; browserNumber < 5; browserNumber++) {
        const browser = fromAddress('10.1.2.3');
        const page = await browser.get(pageUrl);
        for (let attempt = 0; attempt < 4; attempt++) {
          const wrong = await browser.submit(pageUrl, page, { user_code: 'BBBB-BBBB' });
          expect(wrong.statusCode).toBe(200);
        }
      }
      const limited = await (async (browser) => browser.submit(pageUrl, await browser.get(pageUrl), { user_code: device.user_code }))(fromAddress('10.1.2.3'));
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      const elsewhere = fromAddress('10.9.9.9');
      const accepted = await elsewhere.submit(pageUrl, await elsewhere.get(pageUrl), { user_code: device.user_code });
      expect(accepted.statusCode).toBe(303);
    });
  });
});
