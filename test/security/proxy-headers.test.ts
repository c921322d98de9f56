import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { ADMIN_TOKEN, AdminClient, BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { codeRequest, query } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { type ServiceClient, basic, introspect, realmPath } from '../support/oauth.js';
import { createTestDb } from '../support/store.js';
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
    // 20 wrong codes per address in 15 minutes (src/web/device-verification.ts): the 21st is refused.
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(statuses[20]).toBe(429);
  });
});

/**
 * `TRUST_PROXY` as the load balancers' addresses (CONTRACT.md §1): `X-Forwarded-For` and the
 * client certificate header are believed on a connection from a listed address or range, IPv4,
 * IPv6 or IPv4-mapped IPv6, and ignored from any other peer, whatever they say. The peer is the
 * connection's (inject's `remoteAddress`), never a header.
 */
describe('TRUST_PROXY: forwarded headers only from the listed load balancers', () => {
  const HEADER = 'x-ssl-client-cert';
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-proxy-'));
  let t: TestApp;
  let app: FastifyInstance;
  let certificate: string;
  let realm: string;
  let bound: ServiceClient;
  let auditor: ServiceClient;

  beforeAll(async () => {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-keyout', 'client.key', '-out', 'client.pem', '-subj', '/CN=client',
        '-addext', 'basicConstraints=critical,CA:FALSE'],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    certificate = readFileSync(join(dir, 'client.pem'), 'utf8');
    // As the operator sets it: through the configuration.
    const config = loadConfig({ BASE_URL, TRUST_PROXY: ' 127.0.0.1, 10.0.0.0/8 ,fd00:1::/32', CLIENT_CERT_HEADER: 'X-SSL-Client-Cert' });
    const testDb = await createTestDb();
    const { store, encryption, adminToken } = await prepare(testDb.db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN });
    const assembled = await assembleApp({ config, store, encryption, adminTokenHash: adminToken.hash, cleanup: false });
    app = assembled.app;
    t = {
      app,
      audit: assembled.audit,
      outbox: assembled.outbox,
      store,
      encryption,
      baseUrl: BASE_URL,
      admin: new AdminClient(app),
      async close() {
        await app.close();
        await testDb.dispose();
      },
    };
    realm = await securityRealm(t);
    const created = await t.admin.createClient(realm, { grant_types: ['client_credentials'], tls_client_certificate_bound_access_tokens: true });
    bound = { clientId: created.client_id, secret: created.client_secret as string };
    auditor = await t.admin.serviceClient(realm, '', { introspect_any_token: true });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The statuses of 21 wrong user codes, each from a new browser at `peer`, each forwarded for another address. */
  async function wrongCodesForwarded(peer: string): Promise<number[]> {
    const pageRealm = await securityRealm(t);
    const url = `${realmPath(pageRealm)}/device/user`;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const b = new TestBrowser(app, BASE_URL);
      b.remoteAddress = peer;
      const page = await b.get(url);
      const cookie = [...b.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await app.inject({
        method: 'POST',
        url,
        remoteAddress: peer,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.${100 + i}.${i + 1}` },
        payload: new URLSearchParams({ ...hiddenInputs(page.body), user_code: 'BCDF-GHJK' }).toString(),
      });
      statuses.push(response.statusCode);
    }
    return statuses;
  }

  /** The bound client's token request from `peer`, with the certificate header when given. */
  const tokenRequest = (peer: string, header?: string) =>
    app.inject({
      method: 'POST',
      url: `${realmPath(realm)}/access_token`,
      remoteAddress: peer,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(bound.clientId, bound.secret),
        ...(header === undefined ? {} : { [HEADER]: header }),
      },
      payload: 'grant_type=client_credentials',
    });

  const thumbprint = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');

  // 20 wrong codes per address in 15 minutes (src/web/device-verification.ts).
  it.each([
    ['a listed address', '127.0.0.1'],
    ['a listed address, IPv4-mapped', '::ffff:127.0.0.1'],
    ['a listed IPv4 range', '10.20.30.40'],
    ['a listed IPv6 range', 'fd00:1::7'],
  ])('honours X-Forwarded-For from %s (%s): each forwarded address has its own limit', async (_what, peer) => {
    expect(await wrongCodesForwarded(peer)).toEqual(Array(21).fill(200));
  });

  it.each([
    ['an address outside the list', '203.0.113.7'],
    ['an address next to a listed range', '11.0.0.1'],
    ['an IPv6 address outside the list', '2001:db8::7'],
  ])('ignores X-Forwarded-For from %s (%s): the limit counts the peer, whatever the header says', async (_what, peer) => {
    const statuses = await wrongCodesForwarded(peer);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(statuses[20]).toBe(429);
  });

  it('honours the client certificate header from a listed address or range, and binds the token to it', async () => {
    for (const peer of ['127.0.0.1', '::ffff:127.0.0.1', '10.1.2.3', 'fd00:1::1']) {
      const response = await tokenRequest(peer, encodeURIComponent(certificate));
      expect(response.statusCode, `${peer}: ${response.body}`).toBe(200);
      const introspected = (await introspect(app, realm, auditor, response.json().access_token)).json();
      expect(introspected.cnf, peer).toEqual({ 'x5t#S256': thumbprint(certificate) });
    }
  });

  it('ignores a forged client certificate header from any other peer: no certificate was presented', async () => {
    for (const peer of ['203.0.113.7', '11.0.0.1', '2001:db8::1', '::ffff:203.0.113.7']) {
      // X-Forwarded-For naming a listed proxy changes nothing: the peer is the connection's.
      const response = await app.inject({
        method: 'POST',
        url: `${realmPath(realm)}/access_token`,
        remoteAddress: peer,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(bound.clientId, bound.secret),
          [HEADER]: encodeURIComponent(certificate),
          'x-forwarded-for': '127.0.0.1',
        },
        payload: 'grant_type=client_credentials',
      });
      expect(response.statusCode, peer).toBe(400);
      expect(response.json(), peer).toEqual({
        error: 'invalid_request',
        error_description: "this client's tokens are bound to its TLS client certificate, and the request presented none",
      });
    }
  });

  it('answers a hostile certificate header (64 KB of spaces, or of BEGIN lines) at once, as no certificate', async () => {
    const BEGIN = '-----BEGIN CERTIFICATE-----';
    const END = '-----END CERTIFICATE-----';
    const hostile = [
      `${BEGIN}${' '.repeat(60_000)}x`,
      `${BEGIN}${' '.repeat(60_000)}!${END}`,
      `${BEGIN}${'\t \t '.repeat(15_000)}${END}-`,
      BEGIN.repeat(2_400),
    ];
    expect((await tokenRequest('127.0.0.1')).statusCode).toBe(400); // warm: the realm and the client are loaded
    for (const value of hostile) {
      expect(value.length).toBeLessThanOrEqual(64 * 1024);
      const started = performance.now();
      const response = await tokenRequest('127.0.0.1', value);
      const elapsed = performance.now() - started;
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
      // Linear work takes milliseconds; the quadratic regex it replaced took 6 s or more for each
      // of the first three. The bound leaves room for a loaded machine.
      expect(elapsed, `${value.slice(0, 40)}…`).toBeLessThan(2_000);
    }
  }, 60_000);
});
