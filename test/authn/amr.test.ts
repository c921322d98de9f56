import { randomBytes } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, consentFrom, expectCode, freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, obtainCode, pkce } from '../support/flow.js';
import { type ServiceClient, postForm, realmPath } from '../support/oauth.js';
import { createUser, passwordGrant, refreshGrant, verifyIdToken } from '../support/users.js';

const codeOf = (base32: string): string => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

/**
 * The ID token says how the person signed in (OIDC Core §2): `amr` (RFC 8176) lists the
 * methods of the steps that passed, with `mfa` when they span two factors, and `acr` names the
 * journey's acr: "0" for a journey no `acr_journeys` entry maps (CONTRACT.md §8; test/authn/journeys.test.ts).
 */
describe('amr and acr of ID tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A realm with the steps, a person, a public client of the code flow and a confidential one of the password grant. */
  async function setup(authentication: string[], options: { enrol?: boolean } = {}) {
    const realm = await freshRealm(t, { authentication });
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    let secret = '';
    if (options.enrol) secret = ((await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`)).json() as { secret: string }).secret;
    const browserClient = (
      await t.admin.createClient(realm, {
        client_type: 'public',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile',
      })
    ).client_id;
    const created = await t.admin.createClient(realm, { grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const service: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
    return { realm, user, secret, browserClient, service };
  }

  async function exchange(realm: string, clientId: string, code: string, verifier: string) {
    const response = await postForm(t.app, `${realmPath(realm)}/access_token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { id_token: string; refresh_token?: string };
  }

  const claims = async (realm: string, clientId: string, idToken: string): Promise<JWTPayload> =>
    (await verifyIdToken(t.app, realm, idToken, { issuer: issuerOf(realm), audience: clientId })).payload;

  it('a password-only sign-in: amr ["pwd"], acr "0" (no acr_journeys mapping), through the pages and the password grant', async () => {
    const { realm, user, browserClient, service } = await setup(['password']);
    const flow = await obtainCode(new TestBrowser(t.app, BASE_URL), realm, { clientId: browserClient, username: user.username, password: user.password });
    const tokens = await exchange(realm, browserClient, flow.code, flow.verifier);
    expect(await claims(realm, browserClient, tokens.id_token)).toMatchObject({ amr: ['pwd'], acr: '0' });

    const granted = await passwordGrant(t.app, realm, service, user);
    expect(await claims(realm, service.clientId, granted.json().id_token)).toMatchObject({ amr: ['pwd'], acr: '0' });
  });

  it('a password and a one-time code: amr ["pwd", "otp", "mfa"], acr "0" (no acr_journeys mapping), kept by the ID tokens of refreshes', async () => {
    const { realm, user, secret, browserClient } = await setup(['password', 'otp'], { enrol: true });
    const b = new TestBrowser(t.app, BASE_URL);
    const { verifier, challenge } = pkce();
    const start = await authorize(b, realm, codeRequest(browserClient, { code_challenge: challenge }));
    const login = location(start);
    const afterPassword = await b.submit(login, await b.get(login), { username: user.username, password: user.password });
    expect(redirectPath(afterPassword)).toBe(`${realmPath(realm)}/login`);
    const otpUrl = location(afterPassword);
    const afterCode = await b.submit(otpUrl, await b.get(otpUrl), { otp: codeOf(secret) });
    const code = expectCode(await consentFrom(b, afterCode), { iss: issuerOf(realm) });
    const tokens = await exchange(realm, browserClient, code, verifier);
    expect(await claims(realm, browserClient, tokens.id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: '0' });

    const refreshed = await postForm(t.app, `${realmPath(realm)}/access_token`, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: browserClient,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(await claims(realm, browserClient, refreshed.json().id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: '0' });
  });

  it('the password grant with the otp parameter: amr ["pwd", "otp", "mfa"], acr "0" (no acr_journeys mapping), also after a refresh', async () => {
    const { realm, user, secret, service } = await setup(['password', 'otp'], { enrol: true });
    const granted = await passwordGrant(t.app, realm, service, user, { otp: codeOf(secret) });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(await claims(realm, service.clientId, granted.json().id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: '0' });

    const refreshed = await refreshGrant(t.app, realm, service, granted.json().refresh_token);
    expect(await claims(realm, service.clientId, refreshed.json().id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: '0' });
  });

  it('a sign-in whose risk step skipped the code: amr ["pwd"], acr "0" (no acr_journeys mapping)', async () => {
    const { realm, user, secret, service } = await setup(['password', 'risk', 'otp'], { enrol: true });
    expect((await passwordGrant(t.app, realm, service, user, { otp: codeOf(secret) })).statusCode).toBe(200);
    const later = await passwordGrant(t.app, realm, service, user);
    expect(await claims(realm, service.clientId, later.json().id_token)).toMatchObject({ amr: ['pwd'], acr: '0' });
  });
});

