import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceServer } from '../../src/resource-server/index.js';
import { DpopKey } from '../support/dpop.js';
import { realmPath } from '../support/oauth.js';
import { type AuthorizationServer, type Realm, call, challenge, createRealm, serviceToken, startApi, startAuthorizationServer, tokens } from './support.js';

const RESOURCE = 'https://api.example/orders';
/** An API named by its origin alone. */
const ORIGIN = 'http://api.example';
const METADATA = 'https://api.example/.well-known/oauth-protected-resource/orders';

/**
 * RFC 9728 at an API protected by the plugin: its metadata document, the challenges that
 * point at it, step-up by `insufficient_scope`, and tokens that must name the API in `aud`.
 */
describe('resource server: protected resource metadata (RFC 9728)', () => {
  let as: AuthorizationServer;
  let jwtRealm: Realm;
  let opaqueRealm: Realm;
  let api: FastifyInstance;
  let resourceApi: FastifyInstance;
  let introspectingApi: FastifyInstance;

  /** A client credentials token of the realm's service client, asked for `resource` (RFC 8707) when given. */
  const tokenFor = async (realm: Realm, form: Record<string, string> = {}) =>
    (await tokens(as, realm, realm.service, { grant_type: 'client_credentials', ...form })).access_token;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    jwtRealm = await createRealm(as, { stateless_tokens: true });
    opaqueRealm = await createRealm(as);
    for (const realm of [jwtRealm, opaqueRealm]) {
      for (const identifier of [RESOURCE, 'https://other.example/api']) {
        const saved = await as.admin.request('PUT', `/realms/${realm.name}/resources`, { identifier });
        expect(saved.statusCode, saved.body).toBe(201);
      }
    }
    // An API named by its origin that also takes the tokens asked for no resource (their aud: the issuer).
    api = await startApi({ issuer: jwtRealm.issuer, resource: ORIGIN, audience: [ORIGIN, jwtRealm.issuer] });
    resourceApi = await startApi({ issuer: jwtRealm.issuer, resource: RESOURCE, scopes: ['orders:read', 'orders:write', 'orders:admin'] });
    introspectingApi = await startApi({
      issuer: opaqueRealm.issuer,
      resource: RESOURCE,
      introspection: { clientId: opaqueRealm.api.clientId, clientSecret: opaqueRealm.api.secret },
    });
  });
  afterAll(async () => {
    await api?.close();
    await resourceApi?.close();
    await introspectingApi?.close();
    await as?.close();
  });

  const metadataOf = (target: FastifyInstance, url: string, host = 'api.example') => target.inject({ method: 'GET', url, headers: { host } });

  function expectDocument(response: LightMyRequestResponse) {
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    return response.json() as Record<string, unknown>;
  }

  it('serves the metadata document at the well-known URL: resource, authorization server, the routes’ scopes, header only, DPoP algorithms', async () => {
    const document = expectDocument(await metadataOf(api, '/.well-known/oauth-protected-resource'));
    expect(document).toEqual({
      resource: ORIGIN,
      authorization_servers: [jwtRealm.issuer],
      scopes_supported: ['orders:read', 'orders:write'],
      bearer_methods_supported: ['header'],
      tls_client_certificate_bound_access_tokens: true,
      dpop_signing_alg_values_supported: expect.arrayContaining(['ES256', 'PS256', 'EdDSA']),
    });
    expect(document.dpop_signing_alg_values_supported).not.toContain('HS256');
    expect(document.dpop_signing_alg_values_supported).not.toContain('none');
    // Nothing of the request goes into the document that caches keep: a forged Host changes nothing.
    expect(expectDocument(await metadataOf(api, '/.well-known/oauth-protected-resource', 'evil.example'))).toEqual(document);
    const challenged = await metadataOf(api, '/orders', 'evil.example');
    expect(challenge(challenged).resource_metadata).toBe(`${ORIGIN}/.well-known/oauth-protected-resource`);
  });

  it('serves the document of a resource identifier with a path at the path-suffixed URL (RFC 9728 §3.1), naming it verbatim (§3.3) with the configured scopes', async () => {
    for (const url of ['/.well-known/oauth-protected-resource/orders', '/.well-known/oauth-protected-resource']) {
      const document = expectDocument(await metadataOf(resourceApi, url, 'elsewhere.example'));
      expect(document.resource).toBe(RESOURCE);
      expect(document.authorization_servers).toEqual([jwtRealm.issuer]);
      expect(document.scopes_supported).toEqual(['orders:read', 'orders:write', 'orders:admin']);
    }
    expect((await metadataOf(resourceApi, '/.well-known/oauth-protected-resource/other')).statusCode).toBe(404);
  });

  it('names the metadata document in every challenge: no token, a bad token, a missing scope (RFC 9728 §5.1)', async () => {
    const anonymous = await metadataOf(api, '/orders');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(`Bearer realm="${jwtRealm.issuer}", resource_metadata="http://api.example/.well-known/oauth-protected-resource"`);

    const forged = await resourceApi.inject({ url: '/orders', headers: { authorization: 'Bearer a.b.c' } });
    expect(forged.statusCode).toBe(401);
    expect(challenge(forged)).toMatchObject({ error: 'invalid_token', resource_metadata: METADATA });

    const malformed = await resourceApi.inject({ url: '/orders', headers: { authorization: 'Bearer a"b' } });
    expect(malformed.statusCode).toBe(400);
    expect(challenge(malformed)).toMatchObject({ error: 'invalid_request', resource_metadata: METADATA });

    // The challenge leads to the document, and the document names the resource the client asked (§3.3).
    const pointed = new URL(challenge(await call(resourceApi, undefined)).resource_metadata!);
    expect(pointed.href).toBe(METADATA);
    expect(expectDocument(await metadataOf(resourceApi, pointed.pathname)).resource).toBe(RESOURCE);
  });

  it('names the metadata document in a DPoP challenge too, before the algorithms', async () => {
    const dpopApi = await startApi({ issuer: jwtRealm.issuer, resource: RESOURCE, dpop: { origin: 'https://api.example' } });
    try {
      const key = await DpopKey.generate();
      const bound = (
        await tokens(as, jwtRealm, jwtRealm.service, { grant_type: 'client_credentials', resource: RESOURCE }, {
          dpop: await key.proof('POST', `${as.baseUrl}${realmPath(jwtRealm.name)}/access_token`),
        })
      ).access_token;
      const response = await dpopApi.inject({ url: '/orders', headers: { authorization: `DPoP ${bound}` } });
      expect(response.statusCode).toBe(401);
      const header = response.headers['www-authenticate'] as string;
      expect(header).toMatch(new RegExp(`^DPoP realm="[^"]+", error="invalid_dpop_proof", error_description="[^"]+", resource_metadata="${METADATA}", algs="[^"]+"$`));
    } finally {
      await dpopApi.close();
    }
  });

  it('answers a token without the route’s scope 403 insufficient_scope naming the scope; a token with it then passes (step-up)', async () => {
    const reader = await tokenFor(jwtRealm, { scope: 'orders:read', resource: RESOURCE });
    expect((await call(resourceApi, reader)).statusCode).toBe(200);
    const refused = await call(resourceApi, reader, '/orders', 'POST');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'insufficient_scope', error_description: expect.stringContaining('orders:write') });
    expect(challenge(refused)).toMatchObject({ error: 'insufficient_scope', scope: 'orders:write', resource_metadata: METADATA });

    const stepped = await tokenFor(jwtRealm, { scope: challenge(refused).scope!, resource: RESOURCE });
    const accepted = await call(resourceApi, stepped, '/orders', 'POST');
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().token.scope).toBe('orders:write');
  });

  it('accepts only tokens whose aud names the resource, JWT or introspected (RFC 8707, RFC 9068 §4)', async () => {
    for (const [realm, target] of [[jwtRealm, resourceApi], [opaqueRealm, introspectingApi]] as const) {
      const forApi = await tokenFor(realm, { resource: RESOURCE });
      const accepted = await call(target, forApi);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect([accepted.json().token.aud].flat()).toContain(RESOURCE);

      for (const form of [{}, { resource: 'https://other.example/api' }] as Record<string, string>[]) {
        const refused = await call(target, await tokenFor(realm, form));
        expect(refused.statusCode, JSON.stringify(form)).toBe(401);
        expect(challenge(refused)).toMatchObject({ error: 'invalid_token', error_description: 'the token is not meant for this API (aud)', resource_metadata: METADATA });
      }
    }
    // With the issuer in its audience, the API accepts the realm's tokens asked for no resource, and not those for another.
    expect((await call(api, await serviceToken(as, jwtRealm))).statusCode).toBe(200);
    expect((await call(api, await tokenFor(jwtRealm, { resource: RESOURCE }))).statusCode).toBe(401);
  });

  it('refuses a resource with a query or fragment, an audience without the resource, and bad scopes when the plugin is registered', async () => {
    const register = async (options: Record<string, unknown>) => {
      const app = Fastify();
      try {
        await app.register(resourceServer, { issuer: jwtRealm.issuer, ...options } as never);
        await app.ready();
      } finally {
        await app.close();
      }
    };
    for (const resource of ['https://api.example/?x=1', 'https://api.example/#top', 'urn:example:api', 'https://user@api.example/', 'https://api.example/*']) {
      await expect(register({ resource }), resource).rejects.toThrow(/resource/);
    }
    await expect(register({ resource: RESOURCE, audience: jwtRealm.issuer })).rejects.toThrow(/audience must include the resource/);
    await expect(register({ resource: RESOURCE, audience: [RESOURCE, jwtRealm.issuer] })).resolves.toBeUndefined();
    for (const scopes of ['orders:read', ['orders read'], [''], [1]]) {
      await expect(register({ resource: RESOURCE, scopes }), JSON.stringify(scopes)).rejects.toThrow(/scopes must be a list of scope names/);
    }
  });
});
