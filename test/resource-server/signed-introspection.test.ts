import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationServer, type Realm, call, createRealm, serviceToken, startApi, startAuthorizationServer } from './support.js';

/** JWT introspection responses (RFC 9701) asked for by the plugin: only the issuer's signed answer for its client counts. */
describe('resource server: signed introspection answers', () => {
  let as: AuthorizationServer;
  let realm: Realm;
  let other: Realm;
  let proxy: Server;
  let proxyUrl: string;
  /** What the proxy does to the API's introspection request and to its answer. */
  let mode: 'pass' | 'tamper' | 'plain' | 'unsigned' | 'other-realm' = 'pass';
  let askedFor: string | undefined;

  const signed = (r: Realm) => ({ clientId: r.api.clientId, clientSecret: r.api.secret, signedResponses: true });

  /** The payload of a compact JWS, changed: the signature no longer covers it. */
  function tampered(jwt: string): string {
    const [header, payload, signature] = jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.token_introspection.scope = 'orders:read orders:write admin';
    return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
  }

  beforeAll(async () => {
    as = await startAuthorizationServer();
    realm = await createRealm(as);
    other = await createRealm(as);
    // Between the API and the introspection endpoint, as an attacker on the path would be.
    proxy = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      askedFor = request.headers.accept;
      const from = mode === 'other-realm' ? other : realm;
      const body = Buffer.concat(chunks).toString();
      const upstream = await fetch(`${from.issuer}/introspect`, {
        method: 'POST',
        headers: {
          authorization: mode === 'other-realm' ? `Basic ${Buffer.from(`${other.api.clientId}:${other.api.secret}`).toString('base64')}` : request.headers.authorization!,
          'content-type': request.headers['content-type']!,
          accept: mode === 'plain' ? 'application/json' : request.headers.accept!,
        },
        // Another realm's answer is about a token it knows: one of its own.
        body: mode === 'other-realm' ? `token=${encodeURIComponent(await serviceToken(as, other))}` : body,
      });
      const text = await upstream.text();
      const type = upstream.headers.get('content-type')!;
      if (mode === 'tamper') return void response.writeHead(200, { 'content-type': type }).end(tampered(text));
      if (mode === 'unsigned') {
        const [, payload] = text.split('.');
        const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'token-introspection+jwt' })).toString('base64url');
        return void response.writeHead(200, { 'content-type': type }).end(`${none}.${payload}.`);
      }
      response.writeHead(upstream.status, { 'content-type': type }).end(text);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/introspect`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await as?.close();
  });

  async function withApi(options: Parameters<typeof startApi>[0], run: (api: FastifyInstance) => Promise<void>) {
    const api = await startApi(options);
    try {
      await run(api);
    } finally {
      await api.close();
    }
  }

  it('asks for and accepts the signed answer of the issuer for its client', async () => {
    await withApi({ issuer: realm.issuer, introspectionEndpoint: proxyUrl, introspection: signed(realm) }, async (api) => {
      mode = 'pass';
      const response = await call(api, await serviceToken(as, realm));
      expect(response.statusCode, response.body).toBe(200);
      expect(askedFor).toBe('application/token-introspection+jwt');
      expect(response.json().token).toMatchObject({ iss: realm.issuer, client_id: realm.service.clientId, scope: 'orders:read orders:write' });
    });
  });

  it('accepts an ES256-signed answer, and sees an inactive answer as an invalid token', async () => {
    await as.admin.request('PATCH', `/realms/${realm.name}/clients/${realm.api.clientId}`, { introspection_signed_response_alg: 'ES256' });
    try {
      await withApi({ issuer: realm.issuer, introspection: signed(realm) }, async (api) => {
        expect((await call(api, await serviceToken(as, realm))).statusCode).toBe(200);
        const unknown = await call(api, 'a'.repeat(43));
        expect(unknown.statusCode).toBe(401);
        expect(unknown.json().error_description).toMatch(/not active/);
      });
    } finally {
      await as.admin.request('PATCH', `/realms/${realm.name}/clients/${realm.api.clientId}`, { introspection_signed_response_alg: 'RS256' });
    }
  });

  for (const [name, attack] of [
    ['a tampered answer (a scope added to a signed one)', 'tamper'],
    ['a plain JSON answer', 'plain'],
    ['an unsigned answer (alg none)', 'unsigned'],
    ["another realm's signed answer (wrong issuer and audience)", 'other-realm'],
  ] as const) {
    it(`refuses ${name} with 503, and accepts nothing of it`, async () => {
      await withApi({ issuer: realm.issuer, introspectionEndpoint: proxyUrl, introspection: signed(realm) }, async (api) => {
        const token = await serviceToken(as, realm, realm.reader);
        mode = attack;
        const refused = await call(api, token, '/orders', 'POST');
        expect(refused.statusCode, refused.body).toBe(503);
        expect(refused.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
        // Nothing was kept: the honest answer is asked for at once, and says what the token holds.
        mode = 'pass';
        const honest = await call(api, token, '/orders', 'POST');
        expect(honest.statusCode).toBe(403);
      });
    });
  }
});
