import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type RequestOptions, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateFromHeader, resourceServer } from '../../src/resource-server/index.js';
import { type Pair, selfSigned } from '../support/certificates.js';
import type { ServiceClient } from '../support/oauth.js';
import { type AuthorizationServer, type Realm, call, createRealm, startApi, startAuthorizationServer, tokens, withResource } from './support.js';

const thumbprint = (pem: string): string => createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');

/**
 * Certificate-bound tokens (RFC 8705 §3): realmgate binds a client's tokens to the certificate
 * it presented over mutual TLS; the API, serving HTTPS and asking for client certificates,
 * accepts such a token only over a connection with that certificate.
 */
describe('resource server: certificate-bound tokens (RFC 8705 §3)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-rs-mtls-'));
  let server: Pair;
  let holder: Pair;
  let stranger: Pair;
  let as: AuthorizationServer;
  let opaque: Realm;
  let stateless: Realm;
  const apis: FastifyInstance[] = [];

  /** A client whose tokens are bound to the certificate it presents. */
  const boundClient = async (realm: Realm): Promise<ServiceClient> => {
    const created = await as.admin.createClient(realm.name, {
      grant_types: ['client_credentials'],
      scope: 'orders:read',
      tls_client_certificate_bound_access_tokens: true,
    });
    return { clientId: created.client_id, secret: created.client_secret as string };
  };

  /** The HTTPS answer of `options`, its JSON body parsed. */
  const httpsJson = (options: RequestOptions, body?: string): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const request = httpsRequest({ host: '127.0.0.1', ca: server.cert, agent: false, ...options }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      request.on('error', reject);
      request.end(body);
    });

  /** A token of a new bound client, from realmgate's HTTPS instance over a connection with `certificate` (mutual TLS). */
  const boundToken = async (realm: Realm, certificate: Pair): Promise<string> => {
    const client = await boundClient(realm);
    const form = new URLSearchParams({ grant_type: 'client_credentials' }).toString();
    const answer = await httpsJson(
      {
        port: as.tlsPort!,
        method: 'POST',
        path: `/oauth2/${realm.name}/access_token`,
        cert: certificate.cert,
        key: certificate.key,
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
      },
      form,
    );
    if (answer.status !== 200) throw new Error(`token: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.access_token as string;
  };

  /** The API over HTTPS, asking (not requiring) a client certificate, as realmgate does. */
  const httpsApi = async (realm: Realm): Promise<number> => {
    const api = Fastify({ https: { key: server.key, cert: server.cert, requestCert: true, rejectUnauthorized: false } });
    apis.push(api as unknown as FastifyInstance);
    await api.register(resourceServer, withResource({ issuer: realm.issuer, introspection: { clientId: realm.api.clientId, clientSecret: realm.api.secret } }));
    api.get('/orders', { onRequest: api.requireToken({ scope: 'orders:read' }) }, async (request) => ({ cnf: request.token.cnf ?? null }));
    await api.listen({ port: 0, host: '127.0.0.1' });
    return (api.server.address() as AddressInfo).port;
  };

  /** GET /orders of the API over a new TLS connection, with `client` as the client certificate. */
  const get = (port: number, token: string, client?: Pair) =>
    httpsJson({ port, path: '/orders', headers: { authorization: `Bearer ${token}` }, ...(client ? { cert: client.cert, key: client.key } : {}) });

  beforeAll(async () => {
    server = selfSigned(dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1', 'basicConstraints=critical,CA:FALSE']);
    holder = selfSigned(dir, 'holder', '/CN=holder', ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth']);
    stranger = selfSigned(dir, 'stranger', '/CN=holder', ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth']);
    as = await startAuthorizationServer({ tls: server });
    opaque = await createRealm(as);
    stateless = await createRealm(as, { stateless_tokens: true });
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.close()));
    await as?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of ['opaque', 'JWT'] as const) {
    it(`accepts a bound ${kind} token only over a connection with its certificate`, async () => {
      const realm = kind === 'opaque' ? opaque : stateless;
      const port = await httpsApi(realm);
      const token = await boundToken(realm, holder);
      if (kind === 'JWT') expect(decodeJwt(token).cnf).toEqual({ 'x5t#S256': thumbprint(holder.cert) });

      expect(await get(port, token, holder)).toEqual({ status: 200, body: { cnf: { 'x5t#S256': thumbprint(holder.cert) } } });
      expect(await get(port, token)).toEqual({
        status: 401,
        body: { error: 'invalid_token', error_description: 'the token is bound to a client certificate, and none was presented' },
      });
      // The same subject, another key: the thumbprint differs.
      expect(await get(port, token, stranger)).toEqual({
        status: 401,
        body: { error: 'invalid_token', error_description: 'the token is bound to another client certificate' },
      });
      // An unbound token is a bearer token, with a certificate or without.
      const unbound = (await tokens(as, realm, realm.reader, { grant_type: 'client_credentials' })).access_token;
      expect((await get(port, unbound)).status).toBe(200);
      expect((await get(port, unbound, stranger)).status).toBe(200);
    });
  }

  it("reads the certificate from a trusted proxy's header only when told to", async () => {
    const token = await boundToken(stateless, holder);
    const behindProxy = await startApi({ issuer: stateless.issuer, certificate: certificateFromHeader('X-Client-Cert', { trustProxy: '127.0.0.1' }) });
    const direct = await startApi({ issuer: stateless.issuer });
    apis.push(behindProxy, direct);
    const withHeader = (api: FastifyInstance, pem: string, remoteAddress = '127.0.0.1') =>
      api.inject({ url: '/orders', remoteAddress, headers: { authorization: `Bearer ${token}`, 'x-client-cert': encodeURIComponent(pem) } });

    expect((await withHeader(behindProxy, holder.cert)).statusCode).toBe(200);
    expect((await withHeader(behindProxy, stranger.cert)).json().error_description).toBe('the token is bound to another client certificate');
    expect((await call(behindProxy, token)).json().error_description).toMatch(/none was presented/);
    expect((await withHeader(behindProxy, 'not a certificate')).json().error_description).toMatch(/none was presented/);
    // Without the option, anyone could send the header: it is ignored.
    expect((await withHeader(direct, holder.cert)).json().error_description).toMatch(/none was presented/);
    // So it is from a peer that is not one of the proxies.
    expect((await withHeader(behindProxy, holder.cert, '203.0.113.9')).json().error_description).toMatch(/none was presented/);
    expect((await withHeader(behindProxy, holder.cert, '::ffff:127.0.0.1')).statusCode).toBe(200);
  });

  it('needs the proxies\' addresses to read a certificate header: trusting every peer is refused', () => {
    for (const options of [undefined, {}, { trustProxy: true }, { trustProxy: '' }, { trustProxy: 'true' }, { trustProxy: '0.0.0.0/0' }, { trustProxy: ['nginx'] }]) {
      expect(() => certificateFromHeader('X-Client-Cert', options as never), JSON.stringify(options)).toThrow(TypeError);
    }
    expect(typeof certificateFromHeader('X-Client-Cert', { trustProxy: ['10.0.0.0/8', 'fd00:1::/32'] })).toBe('function');
  });

  it('with trustProxy false, reads no header: only the TLS connection\'s certificate', async () => {
    const token = await boundToken(stateless, holder);
    const api = await startApi({ issuer: stateless.issuer, certificate: certificateFromHeader('X-Client-Cert', { trustProxy: false }) });
    apis.push(api);
    const response = await api.inject({ url: '/orders', headers: { authorization: `Bearer ${token}`, 'x-client-cert': encodeURIComponent(holder.cert) } });
    expect(response.json().error_description).toMatch(/none was presented/);
  });

  describe('confirmation methods it cannot check', () => {
    let stub: Server;
    let answer: Record<string, unknown>;

    beforeAll(async () => {
      // An introspection endpoint that answers what the test says.
      stub = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)));
      await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise((resolve) => stub?.close(resolve)));

    it('refuses a token bound by a confirmation other than x5t#S256 and jkt, and a DPoP-bound one as a bearer token', async () => {
      const base = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
      const api = await startApi({
        issuer: 'https://auth.example/oauth2/acme',
        jwksUri: `${base}/jwks`,
        introspectionEndpoint: `${base}/introspect`,
        introspection: { clientId: 'api', clientSecret: 'secret', cacheTtl: 0.001 },
      });
      apis.push(api);
      const active = { active: true, iss: 'https://auth.example/oauth2/acme', scope: 'orders:read', sub: 'x', exp: Math.floor(Date.now() / 1000) + 60 };
      answer = active;
      expect((await call(api, 'opaque-1')).statusCode).toBe(200);
      for (const cnf of [{ jwk: { kty: 'EC' } }, { 'x5t#S256': thumbprint(holder.cert), kid: 'abc' }, 'x5t']) {
        answer = { ...active, cnf };
        const response = await call(api, `opaque-${JSON.stringify(cnf).length}`);
        expect(response.json(), JSON.stringify(cnf)).toEqual({ error: 'invalid_token', error_description: 'the token is bound to a key in a way this API cannot check' });
      }
      // RFC 9449 §7.1: a DPoP-bound token is refused as a bearer token (test/resource-server/dpop.test.ts has the rest).
      answer = { ...active, token_type: 'DPoP', cnf: { jkt: 'abc' } };
      const response = await call(api, 'opaque-dpop');
      expect(response.json()).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(/bound to a DPoP key/) });
    });
  });
});
