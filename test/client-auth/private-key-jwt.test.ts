import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, type Server, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type CryptoKey, type JWK, SignJWT, exportSPKI, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientJwks } from '../../src/client-auth/client-jwks.js';
import { OutboundFetcher } from '../../src/http/outbound-fetch.js';
import { SIGNED_JWT_ALGS } from '../../src/assertions/signed-jwt.js';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic, postForm } from '../support/oauth.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const ISSUER = `${BASE_URL}/oauth2/alpha`;
const TOKEN_URL = `${ISSUER}/access_token`;
const TOKEN_PATH = '/oauth2/alpha/access_token';

/** As startTestApp, with the jwks_uri fetcher the test chooses. */
const startApp = (clientJwks?: ClientJwks) => startTestApp(clientJwks ? { clientJwks } : {});

interface AssertionOptions {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  /** Seconds from now; null leaves exp out. */
  exp?: number | null;
  iat?: number;
  nbf?: number;
  jti?: string | null;
  kid?: string | null;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function assertion(key: KeyPair, clientId: string, options: AssertionOptions = {}): Promise<string> {
  // One instant for iat and exp: the lifetime between them is what a test chooses.
  const now = nowSeconds();
  const claims: Record<string, unknown> = {
    iss: options.iss ?? clientId,
    sub: options.sub ?? clientId,
    aud: options.aud ?? TOKEN_URL,
    iat: options.iat ?? now,
  };
  if (options.exp !== null) claims.exp = now + (options.exp ?? 60);
  if (options.jti !== null) claims.jti = options.jti ?? randomUUID();
  if (options.nbf !== undefined) claims.nbf = options.nbf;
  const kid = options.kid === undefined ? key.kid : options.kid;
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, ...(kid === null ? {} : { kid }) }).sign(key.privateKey);
}

function withAssertion(app: FastifyInstance, path: string, jwt: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return postForm(app, path, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt, ...form }, headers);
}

const clientCredentials = (app: FastifyInstance, jwt: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  withAssertion(app, TOKEN_PATH, jwt, { grant_type: 'client_credentials', ...form }, headers);

function expectInvalidClient(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }): void {
  expect(response.statusCode).toBe(401);
  expect(response.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  // The assertion travels in the body: no Basic challenge (RFC 6749 §5.2).
  expect(response.headers['www-authenticate']).toBeUndefined();
  expect(response.headers['cache-control']).toBe('no-store');
}

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('private_key_jwt with inline jwks', () => {
  let t: TestApp;
  let rsa: KeyPair;
  let ec: KeyPair;
  let clientId: string;

  async function keyJwtClient(keys: KeyPair[], extra: Record<string, unknown> = {}): Promise<string> {
    const created = await t.admin.createClient('alpha', {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: keys.map((key) => key.publicJwk) },
      ...extra,
    });
    expect(created.client_secret).toBeUndefined();
    return created.client_id;
  }

  beforeAll(async () => {
    t = await startApp();
    await t.admin.createRealm('alpha');
    await t.admin.createRealm('beta');
    [rsa, ec] = await Promise.all([keyPair('RS256'), keyPair('ES256')]);
    clientId = await keyJwtClient([rsa, ec]);
  });
  afterAll(() => t?.close());

  it('issues a token for an RS256 assertion whose aud is the token endpoint URL', async () => {
    const response = await clientCredentials(t.app, await assertion(rsa, clientId), { client_id: clientId });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
  });

  it('issues a token for an ES256 assertion whose aud is the issuer, finding the client by sub without client_id', async () => {
    const response = await clientCredentials(t.app, await assertion(ec, clientId, { aud: ISSUER }));
    expect(response.statusCode).toBe(200);
  });

  it('accepts PS256 and EdDSA keys', async () => {
    const [ps, ed] = await Promise.all([keyPair('PS256'), keyPair('EdDSA')]);
    const id = await keyJwtClient([ps, ed]);
    for (const key of [ps, ed]) {
      const response = await clientCredentials(t.app, await assertion(key, id));
      expect(response.statusCode).toBe(200);
    }
  });

  it('refuses an aud array, even one naming only the token endpoint (CONTRACT.md §7, audience injection)', async () => {
    for (const aud of [['https://elsewhere.test', TOKEN_URL], [TOKEN_URL], [ISSUER]]) {
      expectInvalidClient(await clientCredentials(t.app, await assertion(ec, clientId, { aud })));
    }
  });

  it('tries each key when the header has no kid and several keys fit', async () => {
    const [first, second] = await Promise.all([keyPair('ES256'), keyPair('ES256')]);
    const strip = (key: KeyPair): KeyPair => {
      const { kid: _kid, ...jwk } = key.publicJwk;
      return { ...key, publicJwk: jwk };
    };
    const id = await keyJwtClient([strip(first), strip(second)]);
    const response = await clientCredentials(t.app, await assertion(second, id, { kid: null }));
    expect(response.statusCode).toBe(200);
  });

  it('accepts each jti once: a replay is invalid_client, and the jti is stored until the assertion expires', async () => {
    const jti = `replay-${randomUUID()}`;
    const jwt = await assertion(rsa, clientId, { jti, exp: 120 });
    expect((await clientCredentials(t.app, jwt)).statusCode).toBe(200);
    expectInvalidClient(await clientCredentials(t.app, jwt));
    // Even re-signed with another key, the jti is spent.
    expectInvalidClient(await clientCredentials(t.app, await assertion(ec, clientId, { jti })));

    const rows = await t.store.db.query<{ realm: string; issuer: string; expires_at: Date }>(
      'SELECT realm, issuer, expires_at FROM spent_assertions WHERE id = $1',
      [jti],
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]).toMatchObject({ realm: 'alpha', issuer: clientId });
    const expiresIn = rows.rows[0]!.expires_at.getTime() / 1000 - nowSeconds();
    expect(expiresIn).toBeGreaterThan(110);
    expect(expiresIn).toBeLessThan(200);
  });

  it('keeps jtis apart per client', async () => {
    const other = await keyJwtClient([rsa]);
    const jti = `shared-${randomUUID()}`;
    expect((await clientCredentials(t.app, await assertion(rsa, clientId, { jti }))).statusCode).toBe(200);
    expect((await clientCredentials(t.app, await assertion(rsa, other, { jti }))).statusCode).toBe(200);
  });

  it('does not spend a jti on an assertion that fails verification', async () => {
    const jti = `unspent-${randomUUID()}`;
    const stranger = await keyPair('RS256', rsa.kid);
    expectInvalidClient(await clientCredentials(t.app, await assertion(stranger, clientId, { jti })));
    expect((await clientCredentials(t.app, await assertion(rsa, clientId, { jti }))).statusCode).toBe(200);
  });

  it('refuses an aud that is neither the issuer nor the endpoint URL', async () => {
    for (const aud of ['https://elsewhere.test', `${BASE_URL}/oauth2/beta`, `${BASE_URL}/oauth2/beta/access_token`, `${ISSUER}/introspect`, BASE_URL]) {
      expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { aud })));
    }
  });

  it('refuses an assertion of a client of another realm', async () => {
    const response = await withAssertion(t.app, '/oauth2/beta/access_token', await assertion(rsa, clientId, { aud: `${BASE_URL}/oauth2/beta` }), {
      grant_type: 'client_credentials',
    });
    expectInvalidClient(response);
  });

  it('refuses an expired assertion, and one without exp', async () => {
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { exp: -120, iat: nowSeconds() - 180 })));
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { exp: null })));
  });

  it('refuses an assertion that expires more than five minutes ahead', async () => {
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { exp: 3600 })));
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { exp: 600 })));
    expect((await clientCredentials(t.app, await assertion(rsa, clientId, { exp: 300 }))).statusCode).toBe(200);
  });

  it('refuses an assertion issued or valid only in the future beyond the clock skew', async () => {
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { iat: nowSeconds() + 600, exp: 300 })));
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { nbf: nowSeconds() + 600, exp: 300 })));
    // A client clock a little ahead is tolerated.
    expect((await clientCredentials(t.app, await assertion(rsa, clientId, { iat: nowSeconds() + 20 }))).statusCode).toBe(200);
  });

  it('refuses an assertion without jti', async () => {
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { jti: null })));
  });

  it('refuses iss different from sub, and sub different from client_id', async () => {
    const other = await keyJwtClient([rsa]);
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { iss: other })));
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId, { iss: 'https://attacker.test' })));
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, clientId), { client_id: other }));
  });

  it('refuses alg none', async () => {
    const header = b64url({ alg: 'none', typ: 'JWT' });
    const exp = nowSeconds() + 60;
    const payload = b64url({ iss: clientId, sub: clientId, aud: TOKEN_URL, exp, iat: nowSeconds(), jti: randomUUID() });
    for (const jwt of [`${header}.${payload}.`, `${b64url({ alg: 'none', kid: rsa.kid })}.${payload}.`]) {
      expectInvalidClient(await clientCredentials(t.app, jwt));
    }
  });

  it('refuses HS256 keyed with the public key material', async () => {
    const pem = await exportSPKI((await importJWK(rsa.publicJwk, 'RS256')) as CryptoKey);
    const claims = { iss: clientId, sub: clientId, aud: TOKEN_URL, exp: nowSeconds() + 60, jti: randomUUID() };
    const secrets = [
      new TextEncoder().encode(pem),
      new TextEncoder().encode(JSON.stringify(rsa.publicJwk)),
      Buffer.from(rsa.publicJwk.n!, 'base64url'),
    ];
    for (const secret of secrets) {
      const jwt = await new SignJWT({ ...claims, jti: randomUUID() }).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(secret);
      expectInvalidClient(await clientCredentials(t.app, jwt));
    }
  });

  it('refuses an assertion signed by a key the client does not have, with or without a known kid', async () => {
    const stranger = await keyPair('RS256');
    expectInvalidClient(await clientCredentials(t.app, await assertion(stranger, clientId)));
    expectInvalidClient(await clientCredentials(t.app, await assertion({ ...stranger, kid: rsa.kid }, clientId)));
    expectInvalidClient(await clientCredentials(t.app, await assertion(stranger, clientId, { kid: null })));
  });

  it('refuses a private_key_jwt client that presents a secret, even the right one', async () => {
    const id = await keyJwtClient([rsa]);
    const secret = 'a-secret-the-client-should-not-use';
    await t.store.db.query('UPDATE clients SET client_secret_hash = $3 WHERE realm = $1 AND client_id = $2', [
      'alpha',
      id,
      createHash('sha256').update(secret).digest(),
    ]);
    const viaBasic = await postForm(t.app, TOKEN_PATH, { grant_type: 'client_credentials' }, { authorization: basic(id, secret) });
    expect(viaBasic.statusCode).toBe(401);
    expect(viaBasic.json().error).toBe('invalid_client');
    const viaPost = await postForm(t.app, TOKEN_PATH, { grant_type: 'client_credentials', client_id: id, client_secret: secret });
    expectInvalidClient(viaPost);
    expectInvalidClient(await postForm(t.app, TOKEN_PATH, { grant_type: 'client_credentials', client_id: id }));
  });

  it('refuses an assertion from a client registered for another method', async () => {
    const svc = await t.admin.createClient('alpha', { grant_types: ['client_credentials'], jwks: { keys: [rsa.publicJwk] } });
    expect(svc.token_endpoint_auth_method).toBe('client_secret_basic');
    expectInvalidClient(await clientCredentials(t.app, await assertion(rsa, svc.client_id)));
  });

  it('answers an assertion together with Basic or client_secret with invalid_request', async () => {
    const jwt = await assertion(rsa, clientId);
    const withBasic = await clientCredentials(t.app, jwt, {}, { authorization: basic(clientId, 'whatever') });
    expect(withBasic.statusCode).toBe(400);
    expect(withBasic.json().error).toBe('invalid_request');
    const withSecret = await clientCredentials(t.app, await assertion(rsa, clientId), { client_secret: 'whatever' });
    expect(withSecret.statusCode).toBe(400);
    expect(withSecret.json().error).toBe('invalid_request');
    // Neither spent the jti: authentication was not attempted.
    expect((await clientCredentials(t.app, jwt)).statusCode).toBe(200);
  });

  it('answers a wrong client_assertion_type with invalid_client, and half of the pair with invalid_request', async () => {
    const jwt = await assertion(rsa, clientId);
    for (const type of ['urn:ietf:params:oauth:client-assertion-type:saml2-bearer', 'jwt-bearer']) {
      const response = await postForm(t.app, TOKEN_PATH, { grant_type: 'client_credentials', client_assertion_type: type, client_assertion: jwt });
      expectInvalidClient(response);
    }
    const noType = await postForm(t.app, TOKEN_PATH, { grant_type: 'client_credentials', client_assertion: jwt });
    expect(noType.statusCode).toBe(400);
    expect(noType.json().error).toBe('invalid_request');
    const noAssertion = await postForm(t.app, TOKEN_PATH, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_id: clientId,
    });
    expect(noAssertion.statusCode).toBe(400);
    expect(noAssertion.json().error).toBe('invalid_request');
    const repeated = await postForm(t.app, TOKEN_PATH, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: [jwt, jwt],
    });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().error).toBe('invalid_request');
  });

  it('answers malformed assertions with invalid_client, never 500', async () => {
    const noSub = await new SignJWT({ iss: clientId, aud: TOKEN_URL, jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .setExpirationTime('1m')
      .sign(rsa.privateKey);
    const unsigned = (payload: unknown): string => `${b64url({ alg: 'RS256' })}.${b64url(payload)}.sig`;
    const malformed = [
      'not-a-jwt',
      'a.b.c',
      unsigned([1, 2]),
      noSub,
      'x'.repeat(20_000),
      unsigned({ sub: 'nobody' }),
      unsigned({ sub: 'a\u0000b' }),
      unsigned({ sub: 'x'.repeat(300) }),
    ];
    for (const jwt of malformed) {
      expectInvalidClient(await clientCredentials(t.app, jwt));
    }
  });

  it('authenticates at introspection, revocation and PAR, with the issuer or that endpoint URL as aud', async () => {
    const id = await keyJwtClient([ec], { grant_types: ['client_credentials', 'authorization_code'], redirect_uris: ['https://app.test/cb'] });
    const token = (await clientCredentials(t.app, await assertion(ec, id))).json().access_token as string;
    expect(token).toEqual(expect.any(String));

    for (const aud of [`${ISSUER}/introspect`, ISSUER, TOKEN_URL]) {
      const introspection = await withAssertion(t.app, '/oauth2/alpha/introspect', await assertion(ec, id, { aud }), { token });
      expect(introspection.statusCode).toBe(200);
      expect(introspection.json()).toMatchObject({ active: true, client_id: id });
    }
    expectInvalidClient(await withAssertion(t.app, '/oauth2/alpha/introspect', await assertion(ec, id, { aud: `${ISSUER}/par` }), { token }));

    const par = await withAssertion(t.app, '/oauth2/alpha/par', await assertion(ec, id, { aud: `${ISSUER}/par` }), {
      response_type: 'code',
      redirect_uri: 'https://app.test/cb',
      state: 'xyz',
      code_challenge: createHash('sha256').update('verifier-0123456789-0123456789-0123456789').digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(par.statusCode).toBe(201);
    expect(par.json().request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);

    const revocation = await withAssertion(t.app, '/oauth2/alpha/token/revoke', await assertion(ec, id, { aud: `${ISSUER}/token/revoke` }), { token });
    expect(revocation.statusCode).toBe(200);
    const after = await withAssertion(t.app, '/oauth2/alpha/introspect', await assertion(ec, id), { token });
    expect(after.json()).toEqual({ active: false });
    expectInvalidClient(await withAssertion(t.app, '/oauth2/alpha/token/revoke', await assertion(ec, id, { aud: 'https://elsewhere.test' }), { token }));
  });

  it('advertises the method and its asymmetric algorithms in discovery', async () => {
    const metadata = (await t.app.inject({ method: 'GET', url: '/oauth2/alpha/.well-known/openid-configuration' })).json();
    expect(metadata.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(metadata.introspection_endpoint_auth_methods_supported).toContain('private_key_jwt');
    for (const endpoint of ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint']) {
      const field = `${endpoint}_auth_signing_alg_values_supported`;
      expect(metadata[field]).toEqual([...SIGNED_JWT_ALGS]);
      expect(metadata[field]).toEqual(expect.arrayContaining(['RS256', 'ES256', 'PS256', 'EdDSA']));
      expect(metadata[field].some((alg: string) => alg === 'none' || alg.startsWith('HS'))).toBe(false);
    }
  });
});

describe('the store of spent assertion ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  it('refuses a jti while its row lives, and takes it again once the row has expired', async () => {
    const later = new Date(Date.now() + 60_000);
    expect(await t.store.spentAssertions.use('root', 'c1', 'j1', later)).toBe(true);
    expect(await t.store.spentAssertions.use('root', 'c1', 'j1', later)).toBe(false);
    expect(await t.store.spentAssertions.use('root', 'c2', 'j1', later)).toBe(true);
    expect(await t.store.spentAssertions.use('root', 'c1', 'j2', new Date(Date.now() - 1000))).toBe(true);
    expect(await t.store.spentAssertions.use('root', 'c1', 'j2', later)).toBe(true);
    expect(await t.store.spentAssertions.use('root', 'c1', 'j2', later)).toBe(false);
  });
});

/** An HTTPS server with a certificate the test makes, serving key sets and counting requests. */
class JwksServer {
  readonly requests = new Map<string, number>();
  readonly routes = new Map<string, (response: import('node:http').ServerResponse) => void>();
  private server!: Server;
  private dir!: string;
  agent!: Agent;
  origin!: string;

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'jwks-'));
    const key = join(this.dir, 'key.pem');
    const cert = join(this.dir, 'cert.pem');
    execFileSync('/usr/bin/openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' });
    const certPem = readFileSync(cert);
    this.server = createServer({ key: readFileSync(key), cert: certPem }, (request, response) => {
      const path = request.url ?? '/';
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
      const route = this.routes.get(path);
      if (route) route(response);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.agent = new Agent({ ca: certPem, keepAlive: false });
  }

  serveKeys(path: string, keys: () => JWK[]): string {
    this.routes.set(path, (response) => {
      response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: keys() }));
    });
    return `${this.origin}${path}`;
  }

  count(path: string): number {
    return this.requests.get(path) ?? 0;
  }

  async stop(): Promise<void> {
    this.agent?.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('private_key_jwt with jwks_uri', () => {
  /** The key set server listens on loopback, which only OUTBOUND_ALLOW lets the fetcher reach. */
  const outbound = new OutboundFetcher({ allow: ['127.0.0.1'] });
  let t: TestApp;
  let jwksServer: JwksServer;
  let jwks: ClientJwks;
  /** The fetcher's clock runs ahead of the real one by this much. */
  let clockOffset = 0;

  const uriClient = async (jwksUri: string): Promise<string> =>
    (
      await t.admin.createClient('alpha', {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUri,
      })
    ).client_id;

  beforeAll(async () => {
    jwksServer = new JwksServer();
    await jwksServer.start();
    jwks = new ClientJwks({ agent: jwksServer.agent, outbound, timeoutMs: 500, maxBytes: 8 * 1024, now: () => Date.now() + clockOffset });
    t = await startApp(jwks);
    await t.admin.createRealm('alpha');
  });
  afterAll(async () => {
    await t?.close();
    await jwksServer?.stop();
  });

  it('fetches the key set, keeps it for five minutes, then fetches it again', async () => {
    const key = await keyPair('ES256');
    const id = await uriClient(jwksServer.serveKeys('/cached', () => [key.publicJwk]));
    expect(jwksServer.count('/cached')).toBe(0);

    expect((await clientCredentials(t.app, await assertion(key, id))).statusCode).toBe(200);
    expect((await clientCredentials(t.app, await assertion(key, id))).statusCode).toBe(200);
    expect(jwksServer.count('/cached')).toBe(1);

    clockOffset += 4 * 60_000;
    expect((await clientCredentials(t.app, await assertion(key, id))).statusCode).toBe(200);
    expect(jwksServer.count('/cached')).toBe(1);
    clockOffset += 2 * 60_000;
    expect((await clientCredentials(t.app, await assertion(key, id))).statusCode).toBe(200);
    expect(jwksServer.count('/cached')).toBe(2);
  });

  it('refetches once on an unknown kid, at most once per cooldown', async () => {
    const [oldKey, newKey, stranger] = await Promise.all([keyPair('RS256'), keyPair('RS256'), keyPair('RS256')]);
    let served = [oldKey.publicJwk];
    const id = await uriClient(jwksServer.serveKeys('/rotating', () => served));
    expect((await clientCredentials(t.app, await assertion(oldKey, id))).statusCode).toBe(200);
    expect(jwksServer.count('/rotating')).toBe(1);

    // The client rotates; right after the first fetch, the cooldown holds the refetch back.
    served = [oldKey.publicJwk, newKey.publicJwk];
    expectInvalidClient(await clientCredentials(t.app, await assertion(newKey, id)));
    expect(jwksServer.count('/rotating')).toBe(1);

    clockOffset += 31_000;
    expect((await clientCredentials(t.app, await assertion(newKey, id))).statusCode).toBe(200);
    expect(jwksServer.count('/rotating')).toBe(2);

    // Unknown kids in a burst: no fetch storm.
    for (let i = 0; i < 5; i += 1) expectInvalidClient(await clientCredentials(t.app, await assertion(stranger, id)));
    expect(jwksServer.count('/rotating')).toBe(2);
    // A known kid signed by the wrong key is no reason to refetch.
    clockOffset += 31_000;
    expectInvalidClient(await clientCredentials(t.app, await assertion({ ...stranger, kid: newKey.kid }, id)));
    expect(jwksServer.count('/rotating')).toBe(2);
    expect((await clientCredentials(t.app, await assertion(oldKey, id))).statusCode).toBe(200);
  });

  it('shares one fetch among concurrent requests', async () => {
    const key = await keyPair('ES256');
    const id = await uriClient(jwksServer.serveKeys('/concurrent', () => [key.publicJwk]));
    const responses = await Promise.all(Array.from({ length: 5 }, async () => clientCredentials(t.app, await assertion(key, id))));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(jwksServer.count('/concurrent')).toBe(1);
  });

  it('refuses oversized key sets, declared or streamed, with invalid_client', async () => {
    const key = await keyPair('ES256');
    const padding = Array.from({ length: 200 }, () => ({ ...key.publicJwk, kid: randomUUID() }));
    const big = JSON.stringify({ keys: [key.publicJwk, ...padding] });
    expect(big.length).toBeGreaterThan(8 * 1024);
    jwksServer.routes.set('/big', (response) => response.writeHead(200, { 'content-length': Buffer.byteLength(big) }).end(big));
    jwksServer.routes.set('/big-chunked', (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      for (let offset = 0; offset < big.length; offset += 1000) response.write(big.slice(offset, offset + 1000));
      response.end();
    });
    for (const path of ['/big', '/big-chunked']) {
      const id = await uriClient(`${jwksServer.origin}${path}`);
      expectInvalidClient(await clientCredentials(t.app, await assertion(key, id)));
      expect(jwksServer.count(path)).toBe(1);
    }
  });

  it('refuses slow answers, in the headers or the body, with invalid_client within the timeout', async () => {
    const key = await keyPair('ES256');
    jwksServer.routes.set('/slow-headers', (response) => {
      setTimeout(() => response.writeHead(200).end(JSON.stringify({ keys: [key.publicJwk] })), 2_000).unref();
    });
    jwksServer.routes.set('/slow-body', (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"keys":[');
      setTimeout(() => response.end(`${JSON.stringify(key.publicJwk)}]}`), 2_000).unref();
    });
    for (const path of ['/slow-headers', '/slow-body']) {
      const id = await uriClient(`${jwksServer.origin}${path}`);
      const started = Date.now();
      expectInvalidClient(await clientCredentials(t.app, await assertion(key, id)));
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  it('refuses what is not a key set, an error status, a redirect and an untrusted certificate', async () => {
    const key = await keyPair('ES256');
    jwksServer.routes.set('/html', (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
    jwksServer.routes.set('/error', (response) => response.writeHead(500).end());
    jwksServer.routes.set('/redirect', (response) => response.writeHead(302, { location: `${jwksServer.origin}/cached` }).end());
    for (const path of ['/html', '/error', '/redirect', '/missing']) {
      const id = await uriClient(`${jwksServer.origin}${path}`);
      expectInvalidClient(await clientCredentials(t.app, await assertion(key, id)));
    }
    // Without the test's CA, the server's certificate is not trusted.
    const untrusting = new ClientJwks({ outbound, timeoutMs: 1_000 });
    expect(await untrusting.keySet({ jwks_uri: jwksServer.serveKeys('/trust', () => [key.publicJwk]) })).toBeUndefined();
    expect(await new ClientJwks({ agent: jwksServer.agent, outbound }).keySet({ jwks_uri: `${jwksServer.origin}/trust` })).toBeDefined();
  });

  it('refuses a jwks_uri that is not https, even if a record held one', async () => {
    const fetcher = new ClientJwks({ agent: jwksServer.agent, outbound });
    expect(await fetcher.keySet({ jwks_uri: `http://127.0.0.1:1/jwks` })).toBeUndefined();
    expect(fetcher.fetches).toBe(1);
  });

  it('refuses a jwks_uri on loopback with invalid_client, never reaching it, unless OUTBOUND_ALLOW lists it', async () => {
    const key = await keyPair('ES256');
    const internal = jwksServer.serveKeys('/internal', () => [key.publicJwk]);
    // The same trusted agent as the other tests, without the allow list.
    const guarded = await startApp(new ClientJwks({ agent: jwksServer.agent, timeoutMs: 500 }));
    try {
      await guarded.admin.createRealm('alpha');
      // An admin-set jwks_uri is not checked when it is saved: the fetcher's guard is what stops it.
      const { client_id: id } = await guarded.admin.createClient('alpha', {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: internal,
      });
      expectInvalidClient(await clientCredentials(guarded.app, await assertion(key, id)));
      expect(jwksServer.count('/internal')).toBe(0);
    } finally {
      await guarded.close();
    }
    // The application whose fetcher has OUTBOUND_ALLOW=127.0.0.1 reaches it.
    expect((await clientCredentials(t.app, await assertion(key, await uriClient(internal)))).statusCode).toBe(200);
    expect(jwksServer.count('/internal')).toBe(1);
  });
});
