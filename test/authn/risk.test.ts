import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, consentFrom, expectCode, issuerOf, publicClient, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { type ServiceClient, basic, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

const REALM = 'risky';
const OTP_REQUIRED = 'this realm requires a one-time code: send it in the otp parameter';

/** The code the person's authenticator app shows now. */
const codeOf = (base32: string): string => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

/**
 * The `risk` step of a realm asking for `password`, `risk`, `otp`: the code is asked for when
 * the device (the `rg_device_<realm>` cookie) or the address is new for the person, or after
 * recent failures; otherwise the sign-in ends with the password.
 */
describe('the risk step', () => {
  let t: TestApp;
  let clientId: string;
  let service: ServiceClient;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm(REALM, { authentication: ['password', 'risk', 'otp'] });
    clientId = await publicClient(t, REALM, 'openid profile');
    const created = await t.admin.createClient(REALM, { grant_types: ['password'], scope: 'openid' });
    service = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  /** A person with an authenticator app the admin set up; `secret` is its base32 secret. */
  async function person(): Promise<TestUser & { secret: string }> {
    const user = await createUser(t.admin, REALM, `u-${randomBytes(4).toString('hex')}`);
    const enrolled = await t.admin.request('POST', `/realms/${REALM}/users/${user.username}/totp`);
    expect(enrolled.statusCode, enrolled.body).toBe(201);
    return { ...user, secret: (enrolled.json() as { secret: string }).secret };
  }

  /** /authorize in a browser without a session, and the password typed on the sign-in page. */
  async function passwordStep(b: TestBrowser, user: { username: string }, password: string): Promise<LightMyRequestResponse> {
    b.cookies.delete(`rg_session_${REALM}`);
    const start = await authorize(b, REALM, codeRequest(clientId));
    expect(redirectPath(start)).toBe(`${realmPath(REALM)}/login`);
    const url = location(start);
    return b.submit(url, await b.get(url), { username: user.username, password });
  }

  /** The step the sign-in page shows after `response`, a redirect back to it. */
  async function stepShown(b: TestBrowser, response: LightMyRequestResponse): Promise<{ step: string | undefined; page: LightMyRequestResponse; url: string }> {
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    expect(redirectPath(response)).toBe(`${realmPath(REALM)}/login`);
    const url = location(response);
    const page = await b.get(url);
    return { step: hiddenInputs(page.body).step, page, url };
  }

  /** The amr of the person's most recent session. */
  async function lastSessionAmr(user: TestUser): Promise<string[]> {
    const result = await t.store.db.query<{ amr: string[] }>('SELECT amr FROM sessions WHERE user_id = $1 ORDER BY auth_time DESC LIMIT 1', [user.sub]);
    return result.rows[0]!.amr;
  }

  /** A first, complete sign-in of the person in a new browser: password, code, consent. */
  async function knownBrowser(user: TestUser & { secret: string }): Promise<TestBrowser> {
    const b = new TestBrowser(t.app, BASE_URL);
    const shown = await stepShown(b, await passwordStep(b, user, user.password));
    expect(shown.step).toBe('otp');
    expect(shown.page.body).toMatch(/<input[^>]*name="otp"/);
    const afterCode = await b.submit(shown.url, shown.page, { otp: codeOf(user.secret) });
    expectCode(await consentFrom(b, afterCode), { iss: issuerOf(REALM) });
    expect(await lastSessionAmr(user)).toEqual(['pwd', 'otp', 'mfa']);
    return b;
  }

  it('asks for the next step at a first sign-in, from a new device and address', async () => {
    const user = await person();
    await knownBrowser(user);
  });

  it('skips the steps after it for the same browser and address: the session starts after the password, amr ["pwd"]', async () => {
    const user = await person();
    const b = await knownBrowser(user);
    const again = await passwordStep(b, user, user.password);
    expectCode(again, { iss: issuerOf(REALM) }); // consent was given: straight back to the client
    expect(await lastSessionAmr(user)).toEqual(['pwd']);
  });

  it('asks again from a new address', async () => {
    const user = await person();
    const b = await knownBrowser(user);
    b.remoteAddress = '198.51.100.23';
    expect((await stepShown(b, await passwordStep(b, user, user.password))).step).toBe('otp');
  });

  it('asks again from the same address without the device cookie', async () => {
    const user = await person();
    const b = await knownBrowser(user);
    b.cookies.delete(`rg_device_${REALM}`);
    expect((await stepShown(b, await passwordStep(b, user, user.password))).step).toBe('otp');
  });

  it('asks again after a recent failure, from a known browser and address', async () => {
    const user = await person();
    const b = await knownBrowser(user);
    const failed = await passwordStep(b, user, 'not the password');
    expect(failed.statusCode).toBe(200);
    expect((await stepShown(b, await passwordStep(b, user, user.password))).step).toBe('otp');
  });

  describe('at the password grant, judged by the address alone', () => {
    const grant = (app: FastifyInstance, form: Record<string, string>, address: string) =>
      app.inject({
        method: 'POST',
        url: `${realmPath(REALM)}/access_token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(service.clientId, service.secret) },
        payload: new URLSearchParams({ grant_type: 'password', ...form }).toString(),
        remoteAddress: address,
      });
    const amrOf = (response: LightMyRequestResponse) => decodeJwt(response.json().id_token as string).amr;

    it('asks for the code from a new address, and not from one the person signed in from', async () => {
      const user = await person();
      const credentials = { username: user.username, password: user.password };
      const first = await grant(t.app, credentials, '192.0.2.10');
      expect(first.json()).toEqual({ error: 'invalid_grant', error_description: OTP_REQUIRED });

      const withCode = await grant(t.app, { ...credentials, otp: codeOf(user.secret) }, '192.0.2.10');
      expect(withCode.statusCode, withCode.body).toBe(200);
      expect(amrOf(withCode)).toEqual(['pwd', 'otp', 'mfa']);

      const later = await grant(t.app, credentials, '192.0.2.10');
      expect(later.statusCode, later.body).toBe(200);
      expect(amrOf(later)).toEqual(['pwd']);

      expect((await grant(t.app, credentials, '192.0.2.11')).json().error_description).toBe(OTP_REQUIRED);
    });

    it('asks again after a recent failure', async () => {
      const user = await person();
      const credentials = { username: user.username, password: user.password };
      expect((await grant(t.app, { ...credentials, otp: codeOf(user.secret) }, '192.0.2.20')).statusCode).toBe(200);
      expect((await grant(t.app, { ...credentials, password: 'wrong' }, '192.0.2.20')).json().error_description).toBe(
        'the username or password is incorrect',
      );
      expect((await grant(t.app, credentials, '192.0.2.20')).json().error_description).toBe(OTP_REQUIRED);
    });
  });
});
