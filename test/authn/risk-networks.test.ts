import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, basic, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

const REALM = 'risk-networks';
const OTP_REQUIRED = 'this realm requires a one-time code: send it in the otp parameter';

const codeOf = (base32: string): string => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

/**
 * The risk step knows an address by its network, as the per-address limits do
 * (src/address-key.ts): an IPv6 host that moves within its /64 has not moved.
 */
describe('the risk step, by network', () => {
  let t: TestApp;
  let service: ServiceClient;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm(REALM, { authentication: ['password', 'risk', 'otp'] });
    const created = await t.admin.createClient(REALM, { grant_types: ['password'], scope: 'openid' });
    service = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  const grant = (form: Record<string, string>, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: `${realmPath(REALM)}/access_token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(service.clientId, service.secret) },
      payload: new URLSearchParams({ grant_type: 'password', scope: 'openid', ...form }).toString(),
      remoteAddress,
    });

  async function person() {
    const user = await createUser(t.admin, REALM, `u-${randomBytes(4).toString('hex')}`);
    const enrolled = await t.admin.request('POST', `/realms/${REALM}/users/${user.username}/totp`);
    expect(enrolled.statusCode, enrolled.body).toBe(201);
    return { credentials: { username: user.username, password: user.password }, secret: (enrolled.json() as { secret: string }).secret };
  }

  it('knows every address of the IPv6 /64 a person signed in from, and no other /64', async () => {
    const { credentials, secret } = await person();
    expect((await grant({ ...credentials, otp: codeOf(secret) }, '2001:db8:5:6::10')).statusCode).toBe(200);
    const sameNetwork = await grant(credentials, '2001:db8:5:6:a1b2:c3d4:e5f6:1');
    expect(sameNetwork.statusCode, sameNetwork.body).toBe(200);
    expect((await grant(credentials, '2001:db8:5:7::10')).json().error_description).toBe(OTP_REQUIRED);
  });

  it('knows IPv4 addresses one by one, an IPv4-mapped address as its IPv4 address', async () => {
    const { credentials, secret } = await person();
    expect((await grant({ ...credentials, otp: codeOf(secret) }, '192.0.2.70')).statusCode).toBe(200);
    expect((await grant(credentials, '::ffff:192.0.2.70')).statusCode).toBe(200);
    expect((await grant(credentials, '192.0.2.71')).json().error_description).toBe(OTP_REQUIRED);
  });
});
