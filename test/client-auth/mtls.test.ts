import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { ClientJwks } from '../../src/client-auth/client-jwks.js';
import { OutboundFetcher } from '../../src/http/outbound-fetch.js';
import { parseRfc4514, subjectMatches } from '../../src/client-auth/distinguished-name.js';
import { ADMIN_TOKEN, AdminClient, TEST_PASSWORD_HASHING, freePort } from '../support/app.js';
import { type ServiceClient, introspect, postForm } from '../support/oauth.js';
import { rootKeyPairs, testKeyPairs } from '../support/realm-key-pairs.js';
import { createTestDb } from '../support/store.js';
import { createUser } from '../support/users.js';

/** A certificate and its private key, PEM. */
interface Pair {
  cert: string;
  key: string;
}

/** The certificates of the tests, made with the openssl CLI in a temporary directory. */
class Pki {
  readonly dir = mkdtempSync(join(tmpdir(), 'realmgate-mtls-'));

  private openssl(...args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  }

  private read(name: string): Pair {
    return { cert: readFileSync(join(this.dir, `${name}.pem`), 'utf8'), key: readFileSync(join(this.dir, `${name}.key`), 'utf8') };
  }

  /** A self-signed certificate: a CA's, or a client's for self_signed_tls_client_auth. */
  selfSigned(name: string, subject: string, ca: boolean): Pair {
    this.openssl(
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
      '-keyout', `${name}.key`, '-out', `${name}.pem`, '-subj', subject,
      '-addext', ca ? 'basicConstraints=critical,CA:TRUE' : 'basicConstraints=critical,CA:FALSE',
      '-addext', ca ? 'keyUsage=critical,keyCertSign,cRLSign' : 'keyUsage=critical,digitalSignature',
    );
    return this.read(name);
  }

  /** A certificate that the CA `issuer` signs. */
  issued(name: string, subject: string, issuer: string, extensions: string): Pair {
    writeFileSync(join(this.dir, `${name}.ext`), `basicConstraints=critical,CA:FALSE\n${extensions}\n`);
    this.openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    this.openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`,
      '-set_serial', `0x${randomBytes(8).toString('hex')}`, '-days', '1', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
    return this.read(name);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const thumbprint = (pem: string): string => createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');

interface Started {
  app: FastifyInstance;
  admin: AdminClient;
  port: number;
  close(): Promise<void>;
}

/** The application as server.ts builds it, listening over HTTPS or plain HTTP. */
async function start(options: {
  https?: Pair & { ca: string };
  trustProxy: false | readonly string[];
  clientCertHeader?: string;
  clientCa?: string;
  clientJwks?: ClientJwks;
}): Promise<Started> {
  const testDb = await createTestDb({ migrated: true });
  const { store, encryption, adminToken } = await prepare(testDb.db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN, keyPairs: rootKeyPairs() });
  const port = await freePort();
  const app = await buildApp({
    config: {
      baseUrl: `${options.https ? 'https' : 'http'}://127.0.0.1:${port}`,
      trustProxy: options.trustProxy,
      clientCertHeader: options.clientCertHeader,
    },
    store,
    encryption,
    adminTokenHash: adminToken.hash,
    cleanup: false,
    passwordHashing: TEST_PASSWORD_HASHING,
    keyPairs: testKeyPairs(),
    ...(options.https ? { https: { ...options.https, requestCert: true, rejectUnauthorized: false } } : {}),
    ...(options.clientCa ? { clientCa: options.clientCa } : {}),
    ...(options.clientJwks ? { clientJwks: options.clientJwks } : {}),
  });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    admin: new AdminClient(app),
    port,
    async close() {
      await app.close();
      await testDb.dispose();
    },
  };
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('mutual-TLS client authentication and certificate-bound tokens (RFC 8705)', () => {
  const pki = new Pki();
  let ca: Pair;
  let appCert: Pair;
  let otherCaCert: Pair;
  let selfSigned: Pair;
  let strangerSelfSigned: Pair;
  let server: Pair;
  let s: Started;
  let auditor: ServiceClient;

  /** A form POST to the token endpoint of realm alpha over a new TLS connection, with `client` as the client certificate. */
  const token = (form: Record<string, string>, client?: Pair): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams(form).toString();
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: s.port,
          method: 'POST',
          path: '/oauth2/alpha/access_token',
          ca: ca.cert,
          ...(client ? { cert: client.cert, key: client.key } : {}),
          agent: false,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const client = async (admin: AdminClient, record: Record<string, unknown>): Promise<string> =>
    (await admin.createClient('alpha', record)).client_id;

  beforeAll(async () => {
    ca = pki.selfSigned('ca', '/O=Example/CN=Test Client CA', true);
    pki.selfSigned('other-ca', '/O=Example/CN=Another CA', true);
    server = pki.issued('server', '/CN=127.0.0.1', 'ca', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
    appCert = pki.issued('app', '/O=Example/CN=app', 'ca', 'extendedKeyUsage=clientAuth');
    // The same subject, from a CA the server does not trust.
    otherCaCert = pki.issued('impostor', '/O=Example/CN=app', 'other-ca', 'extendedKeyUsage=clientAuth');
    selfSigned = pki.selfSigned('self', '/CN=self-signed app', false);
    strangerSelfSigned = pki.selfSigned('stranger', '/CN=self-signed app', false);

    s = await start({ https: { ...server, ca: ca.cert }, trustProxy: false, clientCa: ca.cert });
    await s.admin.createRealm('alpha');
    auditor = await s.admin.serviceClient('alpha', '', { introspect_any_token: true });
  });
  afterAll(async () => {
    await s?.close();
    pki.dispose();
  });

  describe('tls_client_auth (RFC 8705 §2.1) over HTTPS', () => {
    let clientId: string;
    beforeAll(async () => {
      clientId = await client(s.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'tls_client_auth',
        tls_client_auth_subject_dn: 'CN=app,O=Example',
      });
    });

    it('authenticates a client whose certificate the trusted CA issued for its subject DN', async () => {
      const answer = await token({ grant_type: 'client_credentials', client_id: clientId }, appCert);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
      // Not bound: the client did not ask for it.
      const active = (await introspect(s.app, 'alpha', auditor, answer.body.access_token as string)).json();
      expect(active).toMatchObject({ active: true, client_id: clientId });
      expect(active.cnf).toBeUndefined();
    });

    it('compares the subject DN canonically: order as openssl prints it, case and spaces', async () => {
      const relaxed = await client(s.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'tls_client_auth',
        tls_client_auth_subject_dn: 'o=example, cn=APP',
      });
      expect((await token({ grant_type: 'client_credentials', client_id: relaxed }, appCert)).status).toBe(200);
    });

    it('refuses another subject DN', async () => {
      const other = await client(s.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'tls_client_auth',
        tls_client_auth_subject_dn: 'CN=app,O=Other',
      });
      const answer = await token({ grant_type: 'client_credentials', client_id: other }, appCert);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
    });

    it('refuses a certificate with the right subject from a CA that is not trusted', async () => {
      const answer = await token({ grant_type: 'client_credentials', client_id: clientId }, otherCaCert);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
    });

    it('refuses a request without a certificate', async () => {
      const answer = await token({ grant_type: 'client_credentials', client_id: clientId });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
    });

    it('fails closed without TLS_CA', async () => {
      const noCa = await start({ trustProxy: ['127.0.0.1'], clientCertHeader: 'x-ssl-client-cert' });
      try {
        await noCa.admin.createRealm('alpha');
        const id = await client(noCa.admin, {
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'tls_client_auth',
          tls_client_auth_subject_dn: 'CN=app,O=Example',
        });
        const response = await postForm(noCa.app, '/oauth2/alpha/access_token', { grant_type: 'client_credentials', client_id: id }, {
          'x-ssl-client-cert': encodeURIComponent(appCert.cert),
        });
        expect(response.json().error).toBe('invalid_client');
      } finally {
        await noCa.close();
      }
    });
  });

  describe('self_signed_tls_client_auth (RFC 8705 §2.2) over HTTPS', () => {
    let clientId: string;
    beforeAll(async () => {
      const jwk = await exportJWK(new X509Certificate(selfSigned.cert).publicKey);
      clientId = await client(s.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'self_signed_tls_client_auth',
        jwks: { keys: [{ ...jwk, kid: 'mtls', use: 'sig' }] },
      });
    });

    it('authenticates a client whose certificate holds one of its registered keys', async () => {
      const answer = await token({ grant_type: 'client_credentials', client_id: clientId }, selfSigned);
      expect(answer.status).toBe(200);
      expect(answer.body.access_token).toEqual(expect.any(String));
    });

    it('refuses a certificate whose key is not in the client jwks', async () => {
      for (const other of [strangerSelfSigned, appCert]) {
        const answer = await token({ grant_type: 'client_credentials', client_id: clientId }, other);
        expect(answer.status).toBe(401);
        expect(answer.body.error).toBe('invalid_client');
      }
      expect((await token({ grant_type: 'client_credentials', client_id: clientId })).body.error).toBe('invalid_client');
    });
  });

  it('self_signed_tls_client_auth with jwks_uri: refetched once when the presented key is not in the cached set', async () => {
    let served = [await exportJWK(new X509Certificate(strangerSelfSigned.cert).publicKey)];
    const jwksServer = createHttpsServer({ cert: server.cert, key: server.key }, (_request, response) => {
      response.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    // The key set server listens on loopback, which only OUTBOUND_ALLOW lets the fetcher reach.
    const jwks = new ClientJwks({ agent: new Agent({ ca: ca.cert }), cooldownMs: 0, outbound: new OutboundFetcher({ allow: ['127.0.0.1'] }) });
    const own = await start({ https: { ...server, ca: ca.cert }, trustProxy: false, clientJwks: jwks });
    const previous = s;
    s = own; // token() posts to s
    try {
      await own.admin.createRealm('alpha');
      const clientId = await client(own.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'self_signed_tls_client_auth',
        jwks_uri: `https://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`,
      });
      const form = { grant_type: 'client_credentials', client_id: clientId };
      expect((await token(form, strangerSelfSigned)).status).toBe(200);
      expect((await token(form, selfSigned)).body.error).toBe('invalid_client');
      // The client publishes its new key: the next miss refetches and finds it.
      served = [...served, await exportJWK(new X509Certificate(selfSigned.cert).publicKey)];
      expect((await token(form, selfSigned)).status).toBe(200);
      expect((await token(form, appCert)).body.error).toBe('invalid_client');
    } finally {
      s = previous;
      await own.close();
      await new Promise((resolve) => jwksServer.close(resolve));
    }
  });

  describe('certificate-bound tokens (RFC 8705 §3)', () => {
    it('binds the access token to the client certificate: cnf x5t#S256 at introspection', async () => {
      const clientId = await client(s.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'tls_client_auth',
        tls_client_auth_subject_dn: 'CN=app,O=Example',
        tls_client_certificate_bound_access_tokens: true,
      });
      const answer = await token({ grant_type: 'client_credentials', client_id: clientId }, appCert);
      expect(answer.status).toBe(200);
      const introspected = (await introspect(s.app, 'alpha', auditor, answer.body.access_token as string)).json();
      expect(introspected).toMatchObject({ active: true, client_id: clientId, cnf: { 'x5t#S256': thumbprint(appCert.cert) } });
      expect(thumbprint(appCert.cert)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('binds tokens of a client that authenticates otherwise, and refuses it without a certificate', async () => {
      const created = await s.admin.createClient('alpha', {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_post',
        tls_client_certificate_bound_access_tokens: true,
      });
      const form = { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret as string };
      const bound = await token(form, selfSigned);
      expect(bound.status).toBe(200);
      const introspected = (await introspect(s.app, 'alpha', auditor, bound.body.access_token as string)).json();
      expect(introspected.cnf).toEqual({ 'x5t#S256': thumbprint(selfSigned.cert) });

      const unbound = await token(form);
      expect(unbound.status).toBe(400);
      expect(unbound.body.error).toBe('invalid_request');
    });

    it("binds a public client's refresh token (RFC 8705 §4): another certificate, or none, cannot use it", async () => {
      const alice = await createUser(s.admin, 'alpha', 'alice');
      const publicId = await client(s.admin, {
        client_type: 'public',
        grant_types: ['password', 'refresh_token'],
        tls_client_certificate_bound_access_tokens: true,
      });
      const issued = await token({ grant_type: 'password', client_id: publicId, username: alice.username, password: alice.password }, selfSigned);
      expect(issued.status).toBe(200);
      const refreshToken = issued.body.refresh_token as string;
      expect(refreshToken).toEqual(expect.any(String));
      const introspected = (await introspect(s.app, 'alpha', auditor, refreshToken)).json();
      expect(introspected).toMatchObject({ active: true, token_type: 'refresh_token', cnf: { 'x5t#S256': thumbprint(selfSigned.cert) } });

      const refresh = { grant_type: 'refresh_token', client_id: publicId, refresh_token: refreshToken };
      const stolen = await token(refresh, strangerSelfSigned);
      expect(stolen.status).toBe(400);
      expect(stolen.body.error).toBe('invalid_grant');
      expect((await token(refresh)).body.error).toBe('invalid_request');

      // The refused attempts did not spend it: its holder, with its certificate, still refreshes.
      const renewed = await token(refresh, selfSigned);
      expect(renewed.status).toBe(200);
      const next = (await introspect(s.app, 'alpha', auditor, renewed.body.access_token as string)).json();
      expect(next.cnf).toEqual({ 'x5t#S256': thumbprint(selfSigned.cert) });
    });
  });

  describe('the certificate header of a trusted load balancer (TRUST_PROXY and CLIENT_CERT_HEADER)', () => {
    const HEADER = 'x-ssl-client-cert';
    const setup = async (trustProxy: false | readonly string[]) => {
      const started = await start({ trustProxy, clientCertHeader: HEADER, clientCa: ca.cert });
      await started.admin.createRealm('alpha');
      const clientId = await client(started.admin, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'tls_client_auth',
        tls_client_auth_subject_dn: 'CN=app,O=Example',
        tls_client_certificate_bound_access_tokens: true,
      });
      const post = (header: string | undefined) =>
        postForm(started.app, '/oauth2/alpha/access_token', { grant_type: 'client_credentials', client_id: clientId }, header === undefined ? {} : { [HEADER]: header });
      return { started, clientId, post };
    };

    it('authenticates with the URL-encoded PEM of the header and binds tokens to it, when the proxy is trusted', async () => {
      const { started, post } = await setup(['127.0.0.1']);
      try {
        const ok = await post(encodeURIComponent(appCert.cert));
        expect(ok.statusCode).toBe(200);
        const auditorThere = await started.admin.serviceClient('alpha', '', { introspect_any_token: true });
        const introspected = (await introspect(started.app, 'alpha', auditorThere, ok.json().access_token)).json();
        expect(introspected.cnf).toEqual({ 'x5t#S256': thumbprint(appCert.cert) });

        // A certificate of an untrusted CA in the header is refused like one over TLS…
        expect((await post(encodeURIComponent(otherCaCert.cert))).json().error).toBe('invalid_client');
        // …and a malformed header is no certificate, never a server error.
        for (const malformed of ['%E0%A4%A', 'not a certificate', encodeURIComponent('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')]) {
          const response = await post(malformed);
          expect(response.statusCode).toBe(401);
          expect(response.json().error).toBe('invalid_client');
        }
        expect((await post(encodeURIComponent(appCert.cert + selfSigned.cert))).json().error).toBe('invalid_client');
      } finally {
        await started.close();
      }
    });

    it('puts the binding into a stateless access token as its cnf claim (RFC 8705 §3.1, RFC 9068)', async () => {
      const { started, post } = await setup(['127.0.0.1']);
      try {
        await started.admin.request('PATCH', '/realms/alpha', { settings: { stateless_tokens: true } });
        const ok = await post(encodeURIComponent(appCert.cert));
        expect(ok.statusCode).toBe(200);
        const token = ok.json().access_token as string;
        expect(decodeJwt(token).cnf).toEqual({ 'x5t#S256': thumbprint(appCert.cert) });
        const auditorThere = await started.admin.serviceClient('alpha', '', { introspect_any_token: true });
        expect((await introspect(started.app, 'alpha', auditorThere, token)).json()).toMatchObject({
          active: true,
          cnf: { 'x5t#S256': thumbprint(appCert.cert) },
        });
      } finally {
        await started.close();
      }
    });

    it('ignores the header when TRUST_PROXY is false', async () => {
      const { started, post } = await setup(false);
      try {
        const response = await post(encodeURIComponent(appCert.cert));
        expect(response.statusCode).toBe(401);
        expect(response.json().error).toBe('invalid_client');
      } finally {
        await started.close();
      }
    });
  });
});

describe('subject DN comparison (RFC 4514)', () => {
  const pki = new Pki();
  let multi: X509Certificate;
  let plain: X509Certificate;

  beforeAll(() => {
    pki.selfSigned('ca', '/CN=DN CA', true);
    plain = new X509Certificate(pki.issued('plain', '/C=DE/O=Example, Inc./OU=Payments/CN=app', 'ca', 'extendedKeyUsage=clientAuth').cert);
    multi = new X509Certificate(pki.selfSigned('multi', '/O=Example/OU=a+CN=app', false).cert);
  });
  afterAll(() => pki.dispose());

  it('matches the RFC 4514 string with escapes, in either order, ignoring case and spaces of types and values', () => {
    expect(subjectMatches(plain, 'CN=app,OU=Payments,O=Example\\, Inc.,C=DE')).toBe(true);
    expect(subjectMatches(plain, 'commonName=app, ou=payments, o=Example\\2C Inc., c=de')).toBe(true);
    expect(subjectMatches(plain, 'C=DE,O=Example\\, Inc.,OU=Payments,CN=app')).toBe(true);
    expect(subjectMatches(plain, '2.5.4.3=app,OU=Payments,O=Example\\, Inc.,C=DE')).toBe(true);
  });

  it('refuses another value, a missing or extra RDN, or a shuffled order', () => {
    expect(subjectMatches(plain, 'CN=app,OU=Payments,O=Example,C=DE')).toBe(false);
    expect(subjectMatches(plain, 'CN=app,O=Example\\, Inc.,C=DE')).toBe(false);
    expect(subjectMatches(plain, 'CN=app,OU=Payments,O=Example\\, Inc.,C=DE,DC=com')).toBe(false);
    expect(subjectMatches(plain, 'OU=Payments,CN=app,O=Example\\, Inc.,C=DE')).toBe(false);
    expect(subjectMatches(plain, 'CN=app,OU=Payments,O=Example, Inc.,C=DE')).toBe(false); // unescaped comma: "Inc." is no RDN
  });

  it('compares multi-valued RDNs as sets', () => {
    expect(subjectMatches(multi, 'CN=app+OU=a,O=Example')).toBe(true);
    expect(subjectMatches(multi, 'OU=a+CN=app,O=Example')).toBe(true);
    expect(subjectMatches(multi, 'CN=app,OU=a,O=Example')).toBe(false);
  });

  it('parses what RFC 4514 allows and rejects the rest', () => {
    expect(parseRfc4514('CN=a\\+b,O=x')).toEqual([[{ oid: '2.5.4.3', value: 'a+b', der: '' }], [{ oid: '2.5.4.10', value: 'x', der: '' }]]);
    expect(() => parseRfc4514('')).toThrow();
    expect(() => parseRfc4514('CN')).toThrow();
    expect(() => parseRfc4514('XYZ=1')).toThrow();
  });
});
