import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceServer } from '../../src/resource-server/index.js';
import { type AuthorizationServer, type Realm, challenge, createRealm, serviceToken, startApi, startAuthorizationServer, withResource } from './support.js';

/** What an API without a `resource` names in its challenges: its origin as requests see it (light-my-request's Host). */
const METADATA = 'http://localhost/.well-known/oauth-protected-resource';

/** How the plugin reads a request's token, and the shape of its refusals (RFC 6750 §2, §3). */
describe('resource server: requests and answers', () => {
  let as: AuthorizationServer;
  let realm: Realm;
  let api: FastifyInstance;
  let token: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    realm = await createRealm(as, { stateless_tokens: true });
    api = await startApi({ issuer: realm.issuer });
    token = await serviceToken(as, realm);
  });
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  const get = (headers: Record<string, string | undefined>, url = '/orders') => api.inject({ method: 'GET', url, headers });

  it('answers a request without a token 401 with the bare challenge: no error code (RFC 6750 §3.1)', async () => {
    for (const headers of [{}, { authorization: 'Basic YTpi' }, { authorization: 'Digest abc' }, { authorization: '' }]) {
      const response = await get(headers);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(`Bearer realm="${realm.issuer}", resource_metadata="${METADATA}"`);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ error_description: 'an access token is required' });
    }
  });

  it('reads the scheme in any case, with the token after one or more spaces', async () => {
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}`]) {
      expect((await get({ authorization })).statusCode).toBe(200);
    }
  });

  it('answers a malformed Authorization header 400 invalid_request', async () => {
    for (const authorization of ['Bearer', 'Bearer ', `Bearer ${token} extra`, 'Bearer a"b', 'Bearer tök']) {
      const response = await api.inject({ method: 'GET', url: '/orders', headers: { authorization } });
      expect(response.statusCode, authorization).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect(challenge(response)).toMatchObject({ realm: realm.issuer, error: 'invalid_request' });
    }
  });

  it('refuses a token in the query string, even beside a valid header (RFC 9700 §2.4.2), and reads none from a form body', async () => {
    for (const headers of [{}, { authorization: `Bearer ${token}` }]) {
      const response = await get(headers, `/orders?access_token=${token}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
      expect(response.body).not.toContain(token);
    }
    const form = await api.inject({
      method: 'POST',
      url: '/orders',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_token=${token}`,
    });
    expect(form.statusCode).toBe(401);
    expect(form.headers['www-authenticate']).toBe(`Bearer realm="${realm.issuer}", resource_metadata="${METADATA}"`);
  });

  it('never repeats the token in an answer', async () => {
    const forged = `${token.slice(0, -4)}AAAA`;
    const response = await get({ authorization: `Bearer ${forged}` });
    expect(response.statusCode).toBe(401);
    expect(response.body).not.toContain(forged.split('.')[1]);
    expect(response.headers['www-authenticate']).not.toContain(forged.split('.')[1]);
  });

  it('leaves routes that ask for nothing alone, and takes the challenge realm and the route config as given', async () => {
    const unprotected = await api.inject({ method: 'GET', url: '/public' });
    expect(unprotected.statusCode).toBe(200);
    expect(unprotected.json()).toEqual({ token: null });

    const app = Fastify();
    await app.register(resourceServer, withResource({ issuer: realm.issuer, realm: 'orders' }));
    app.get('/any', { config: { requireToken: true } }, async (request) => ({ sub: request.token.sub }));
    app.get('/both', { config: { requireToken: { scope: 'orders:read orders:write' } } }, async () => ({ ok: true }));
    app.get('/open', { config: { requireToken: false as never } }, async () => ({ ok: true }));
    try {
      expect((await app.inject({ url: '/open' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/any' })).headers['www-authenticate']).toBe(`Bearer realm="orders", resource_metadata="${METADATA}"`);
      expect((await app.inject({ url: '/any', headers: { authorization: `Bearer ${token}` } })).json()).toEqual({ sub: realm.service.clientId });
      expect((await app.inject({ url: '/both', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
      const reader = await serviceToken(as, realm, realm.reader);
      const refused = await app.inject({ url: '/both', headers: { authorization: `Bearer ${reader}` } });
      expect(refused.statusCode).toBe(403);
      expect(challenge(refused)).toMatchObject({ realm: 'orders', error: 'insufficient_scope', scope: 'orders:read orders:write' });
    } finally {
      await app.close();
    }
  });

  it('refuses bad options when the plugin is registered, and bad scope names when a route is declared', async () => {
    const register = async (options: Record<string, unknown>) => {
      const app = Fastify();
      try {
        await app.register(resourceServer, { resource: 'https://api.example', ...options } as never);
        await app.ready();
      } finally {
        await app.close();
      }
    };
    // Never derived from a request's Host, which a client chooses: an API names its own.
    await expect(register({ issuer: realm.issuer, resource: undefined })).rejects.toThrow(/resource is required/);
    await expect(register({ issuer: 'not a url' })).rejects.toThrow(/issuer must be an http or https URL/);
    await expect(register({ issuer: 'ftp://x' })).rejects.toThrow(/issuer/);
    await expect(register({ issuer: realm.issuer, audience: [] })).rejects.toThrow(/audience/);
    await expect(register({ issuer: realm.issuer, introspection: { clientId: 'api' } })).rejects.toThrow(/clientSecret/);
    await expect(register({ issuer: realm.issuer, introspection: { clientId: 'api', clientSecret: 's', cacheTtl: -1 } })).rejects.toThrow(/cacheTtl/);
    await expect(register({ issuer: realm.issuer, clockTolerance: 'soon' })).rejects.toThrow(/clockTolerance/);
    expect(() => api.requireToken({ scope: 'orders"read' })).toThrow(/not a scope name/);
  });
});
