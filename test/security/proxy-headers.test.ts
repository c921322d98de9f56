import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { codeRequest, query } from '../flow/helpers.js';
import { securityRealm, setCookies } from './support.js';

/** What a client that is not behind the operator's load balancer may send to pass for something else. */
const FORGED = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'http',
  'x-forwarded-port': '8080',
  'x-forwarded-prefix': '/evil',
  forwarded: 'for=203.0.113.9;host=evil.example;proto=http',
};

/**
 * TLS-terminating reverse proxies (RFC 9700 §4.13): the X-Forwarded-* headers a proxy adds
 * are honoured only when the operator says a proxy is in front (TRUST_PROXY), and by default
 * a client that sends them changes nothing: neither the URLs the server derives from BASE_URL
 * (issuer, redirects, cookies' Secure flag) nor the address that per-address limits count.
 * (The client certificate header: test/client-auth/mtls.test.ts, "ignores the header when
 * TRUST_PROXY is false".)
 */
describe('forwarded headers without TRUST_PROXY', () => {
  let t: TestApp;
  let realm: string;
  let clientId: string;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await securityRealm(t);
    clientId = (await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid' })).client_id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("change neither the issuer, nor the redirects to the sign-in page, nor the cookies' flags", async () => {
    const discovery = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration`, headers: FORGED });
    expect(discovery.json()).toMatchObject({ issuer: `${t.baseUrl}${realmPath(realm)}` });
    expect(discovery.body).not.toContain('evil.example');

    const start = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/authorize?${query(codeRequest(clientId, { scope: 'openid' }))}`, headers: FORGED });
    expect(start.statusCode).toBe(303);
    expect(location(start).startsWith(`${t.baseUrl}${realmPath(realm)}/login?`)).toBe(true);
    const [binding] = setCookies(start);
    expect(binding).toContain('Secure');
    expect(binding).toContain(`Path=${realmPath(realm)}`);
    expect(binding).not.toContain('evil.example');

    const page = await t.app.inject({ method: 'GET', url: new URL(location(start)).pathname + new URL(location(start)).search, headers: { ...FORGED, cookie: binding!.slice(0, binding!.indexOf(';')) } });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('evil.example');
    expect(String(page.headers['content-security-policy'])).not.toContain('evil.example');
  });

  it('do not let a client pass for many addresses: the per-address limit of wrong device codes holds whatever X-Forwarded-For says', async () => {
    const statuses: number[] = [];
    // Each attempt from a new browser (the per-browser limit is 5), each claiming another address.
    for (let i = 0; i < 21; i++) {
      const b = new TestBrowser(t.app, t.baseUrl);
      const url = `${realmPath(realm)}/device/user`;
      const page = await b.get(url);
      const cookie = [...b.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${i + 1}`, 'x-real-ip': `198.51.100.${i + 1}` },
        payload: new URLSearchParams({ ...hiddenInputs(page.body), user_code: 'BCDF-GHJK' }).toString(),
      });
      statuses.push(response.statusCode);
    }
    // 20 wrong codes per address in 15 minutes (src/endpoints/device-verification.ts): the 21st is refused.
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(statuses[20]).toBe(429);
  });
});
