import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestClock } from '../support/clock.js';
import {
  type AuthorizationServer,
  type Realm,
  TOKEN_EXCHANGE,
  call,
  challenge,
  createRealm,
  revoke,
  serviceToken,
  sleep,
  startApi,
  startAuthorizationServer,
  tokens,
} from './support.js';
import { freePort } from '../support/app.js';

/** Opaque access tokens, introspected (RFC 7662) by the plugin and kept a moment. */
describe('resource server: opaque tokens by introspection', () => {
  let as: AuthorizationServer & { clock: TestClock };
  let realm: Realm;
  let api: FastifyInstance;

  const introspection = (r: Realm, extra: Record<string, unknown> = {}) => ({ clientId: r.api.clientId, clientSecret: r.api.secret, ...extra });

  beforeAll(async () => {
    as = await startAuthorizationServer({ clock: true });
    realm = await createRealm(as);
    api = await startApi({ issuer: realm.issuer, introspection: introspection(realm, { cacheTtl: 1 }) });
  });
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('accepts an active token with the scope the route needs; the introspection answer is request.token', async () => {
    const token = await serviceToken(as, realm);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const response = await call(api, token);
    expect(response.statusCode).toBe(200);
    const claims = response.json().token;
    expect(claims).toMatchObject({ iss: realm.issuer, sub: realm.service.clientId, client_id: realm.service.clientId, scope: 'orders:read orders:write', token_type: 'Bearer' });
    expect(claims.active).toBeUndefined();
  });

  it('answers 403 insufficient_scope to an active token without the scope', async () => {
    const token = await serviceToken(as, realm, realm.reader);
    const response = await call(api, token, '/orders', 'POST');
    expect(response.statusCode).toBe(403);
    expect(challenge(response)).toMatchObject({ error: 'insufficient_scope', scope: 'orders:write' });
  });

  it('refuses a revoked token once its cached answer expires (cacheTtl), not before', async () => {
    const token = await serviceToken(as, realm);
    expect((await call(api, token)).statusCode).toBe(200);
    await revoke(as, realm, realm.service, token);
    // The window: the answer of a moment ago is still believed.
    expect((await call(api, token)).statusCode).toBe(200);
    await sleep(1100);
    const response = await call(api, token);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'the token is not active (unknown, expired or revoked)' });
    expect(challenge(response)).toMatchObject({ realm: realm.issuer, error: 'invalid_token' });
  });

  it("never believes a cached answer past the token's exp", async () => {
    const brief = await createRealm(as, { access_token_lifetime: 2 });
    const longCache = await startApi({ issuer: brief.issuer, clockTolerance: 0, introspection: introspection(brief, { cacheTtl: 60 }) });
    try {
      const token = await serviceToken(as, brief);
      const first = await call(longCache, token);
      expect(first.statusCode).toBe(200);
      await as.clock.advanceTo(first.json().token.exp, 50);
      expect((await call(longCache, token)).json()).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(/expired/) });
    } finally {
      await longCache.close();
    }
  });

  it('asks once per token and cacheTtl: concurrent and repeated requests share the answer, active or not', async () => {
    const fetches = vi.spyOn(globalThis, 'fetch');
    const introspections = () => fetches.mock.calls.filter(([url]) => String(url).endsWith('/introspect')).length;
    const token = await serviceToken(as, realm);
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(api, token)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(10).fill(200));
    for (let i = 0; i < 5; i++) expect((await call(api, token)).statusCode).toBe(200);
    expect(introspections()).toBe(1);
    const unknown = randomBytes(32).toString('base64url');
    for (let i = 0; i < 3; i++) expect((await call(api, unknown)).statusCode).toBe(401);
    expect(introspections()).toBe(2);
  });

  it('refuses a refresh token, a token of another realm, and opaque tokens when the API does not introspect', async () => {
    const issued = await tokens(as, realm, realm.app, { grant_type: 'password', username: realm.alice.username, password: realm.alice.password, scope: 'orders:read' });
    expect((await call(api, issued.access_token)).json().token).toMatchObject({ sub: realm.alice.sub, username: 'alice' });
    expect((await call(api, issued.refresh_token!)).json()).toEqual({ error: 'invalid_token', error_description: 'the token is not an access token' });

    const other = await createRealm(as);
    expect((await call(api, await serviceToken(as, other))).statusCode).toBe(401);

    const offline = await startApi({ issuer: realm.issuer });
    try {
      expect((await call(offline, await serviceToken(as, realm))).json().error_description).toMatch(/does not introspect/);
    } finally {
      await offline.close();
    }
  });

  it('checks the audience of the answer: absent is the issuer; an exchanged token names its own', async () => {
    const person = await tokens(as, realm, realm.app, { grant_type: 'password', username: realm.alice.username, password: realm.alice.password, scope: 'orders:read' });
    const exchanged = await tokens(as, realm, realm.app, {
      grant_type: TOKEN_EXCHANGE,
      subject_token: person.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'orders-api',
    });
    const ordersApi = await startApi({ issuer: realm.issuer, audience: 'orders-api', introspection: introspection(realm) });
    try {
      expect((await call(ordersApi, exchanged.access_token)).json().token).toMatchObject({ aud: 'orders-api', sub: realm.alice.sub });
      expect((await call(ordersApi, person.access_token)).json().error_description).toMatch(/not meant for this API/);
      expect((await call(api, exchanged.access_token)).json().error_description).toMatch(/not meant for this API/);
    } finally {
      await ordersApi.close();
    }
  });

  describe('when the authorization server cannot answer', () => {
    let proxy: Server;
    let failing = true;
    let proxyUrl: string;

    beforeAll(async () => {
      // Between the API and the introspection endpoint: a 503 while `failing`, else the real answer.
      proxy = createServer(async (request, response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        if (failing) {
          response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
          return;
        }
        const upstream = await fetch(`${realm.issuer}/introspect`, {
          method: 'POST',
          headers: { authorization: request.headers.authorization!, 'content-type': request.headers['content-type']! },
          body: Buffer.concat(chunks),
        });
        response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/introspect`;
    });
    afterAll(() => new Promise((resolve) => proxy?.close(resolve)));

    it('answers 503 temporarily_unavailable, keeps no failure, and recovers', async () => {
      const flaky = await startApi({ issuer: realm.issuer, introspectionEndpoint: proxyUrl, introspection: introspection(realm) });
      try {
        const token = await serviceToken(as, realm);
        const response = await call(flaky, token);
        expect(response.statusCode).toBe(503);
        expect(response.headers['retry-after']).toBe('1');
        expect(response.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
        expect(response.body).not.toContain(token);
        failing = false;
        expect((await call(flaky, token)).statusCode).toBe(200);
      } finally {
        await flaky.close();
      }
    });

    it("answers 503 when the API's own client credentials are wrong, and when discovery fails", async () => {
      const misconfigured = await startApi({ issuer: realm.issuer, introspection: { clientId: realm.api.clientId, clientSecret: 'not-the-secret' } });
      const port = await freePort(); // nothing listens there
      const nowhere = await startApi({ issuer: `http://127.0.0.1:${port}/oauth2/none`, introspection: introspection(realm) });
      try {
        const token = await serviceToken(as, realm);
        expect((await call(misconfigured, token)).statusCode).toBe(503);
        expect((await call(nowhere, token)).statusCode).toBe(503);
        expect((await call(nowhere, 'a.b.c')).statusCode).toBe(503);
      } finally {
        await misconfigured.close();
        await nowhere.close();
      }
    });
  });
});
