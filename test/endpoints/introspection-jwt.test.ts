import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, BASE_URL, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, basic, postForm, realmPath } from '../support/oauth.js';

/** JWT introspection responses (RFC 9701, CONTRACT.md §13): asked with `Accept`, verified with the realm's published keys. */
describe('JWT introspection responses (RFC 9701)', () => {
  let t: TestApp;
  let svc: ServiceClient;
  let es256: ServiceClient;
  let keys: ReturnType<typeof createLocalJWKSet>;
  const issuer = `${BASE_URL}/oauth2/alpha`;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    svc = await t.admin.serviceClient('alpha', 'api:read');
    es256 = await t.admin.serviceClient('alpha', '', { introspection_signed_response_alg: 'ES256' });
    const discovery = (await t.app.inject({ url: `${realmPath('alpha')}/.well-known/openid-configuration` })).json();
    const jwks = await t.app.inject({ url: new URL(discovery.jwks_uri).pathname });
    keys = createLocalJWKSet(jwks.json());
  });
  afterAll(() => t.close());

  function introspect(client: ServiceClient, token: string, accept = 'application/token-introspection+jwt'): Promise<LightMyRequestResponse> {
    return postForm(t.app, `${realmPath('alpha')}/introspect`, { token }, { authorization: basic(client.clientId, client.secret), accept });
  }

  async function verified(response: LightMyRequestResponse, client: ServiceClient) {
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/token-introspection\+jwt/);
    expect(response.headers['cache-control']).toBe('no-store');
    return jwtVerify(response.body, keys, { issuer, audience: client.clientId, typ: 'token-introspection+jwt' });
  }

  it('signs the usual answer for the calling client, RS256 by default', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    const plain = (await introspect(svc, token, 'application/json')).json();
    const before = Math.floor(Date.now() / 1000);
    const response = await introspect(svc, token);
    const { payload, protectedHeader } = await verified(response, svc);
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'token-introspection+jwt', kid: expect.any(String) });
    expect(Object.keys(payload).sort()).toEqual(['aud', 'iat', 'iss', 'token_introspection']);
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.token_introspection).toEqual(plain);
    expect(payload.token_introspection).toMatchObject({ active: true, client_id: svc.clientId, scope: 'api:read', iss: issuer });
  });

  it('signs an inactive answer as {active: false} alone', async () => {
    for (const token of ['not-a-token', await accessToken(t.app, 'alpha', es256)]) {
      const { payload } = await verified(await introspect(svc, token), svc);
      expect(payload.token_introspection).toEqual({ active: false });
    }
  });

  it("signs with the client's introspection_signed_response_alg", async () => {
    const token = await accessToken(t.app, 'alpha', es256);
    const response = await introspect(es256, token);
    expect(decodeProtectedHeader(response.body).alg).toBe('ES256');
    const { payload } = await verified(response, es256);
    expect(payload.token_introspection).toMatchObject({ active: true, client_id: es256.clientId });
  });

  it('answers plain JSON unless the JWT is asked for with a quality above zero', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    for (const accept of ['application/json', '*/*', 'application/token-introspection+jwt;q=0, application/json']) {
      const response = await introspect(svc, token, accept);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toMatchObject({ active: true });
    }
    const listed = await introspect(svc, token, 'application/json;q=0.5, Application/Token-Introspection+JWT; q=0.9');
    expect((await verified(listed, svc)).payload.token_introspection).toMatchObject({ active: true });
  });

  it('keeps errors in plain JSON: a client that fails to authenticate gets no JWT', async () => {
    const response = await postForm(t.app, `${realmPath('alpha')}/introspect`, { token: 'x' }, {
      authorization: basic(svc.clientId, 'wrong'),
      accept: 'application/token-introspection+jwt',
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('lists the algorithms in discovery and refuses another at the admin API', async () => {
    const discovery = (await t.app.inject({ url: `${realmPath('alpha')}/.well-known/openid-configuration` })).json();
    expect(discovery.introspection_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    const refused = await t.admin.request('POST', '/realms/alpha/clients', { grant_types: ['client_credentials'], introspection_signed_response_alg: 'none' });
    expect(refused.statusCode).toBe(400);
    const read = await t.admin.request('GET', `/realms/alpha/clients/${es256.clientId}`);
    expect(read.json().introspection_signed_response_alg).toBe('ES256');
  });
});
