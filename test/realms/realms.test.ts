import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_JWK_MEMBERS } from '../admin/helpers.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, clientCredentials, introspect, postForm, revoke } from '../support/oauth.js';


describe('realms: issuers, discovery, keys, isolation, disabled provider', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    await t.admin.createRealm('beta');
  });
  afterAll(() => t.close());

  describe('discovery', () => {
    it('serves the root realm at {BASE_URL}/oauth2 and a sub-realm at {BASE_URL}/oauth2/{realm}', async () => {
      for (const [path, issuer] of [
        ['/oauth2/.well-known/openid-configuration', 'https://auth.test/oauth2'],
        ['/oauth2/alpha/.well-known/openid-configuration', 'https://auth.test/oauth2/alpha'],
        ['/.well-known/oauth-authorization-server/oauth2', 'https://auth.test/oauth2'],
        ['/.well-known/oauth-authorization-server/oauth2/alpha', 'https://auth.test/oauth2/alpha'],
      ] as const) {
        const response = await t.app.inject({ method: 'GET', url: path });
        expect(response.statusCode, path).toBe(200);
        expect(response.json().issuer, path).toBe(issuer);
      }
    });

    it('lists the endpoints below the issuer and advertises only what is built', async () => {
      await t.admin.putScope('alpha', 'reports');
      const doc = (await t.app.inject({ method: 'GET', url: '/oauth2/alpha/.well-known/openid-configuration' })).json();
      expect(doc).toMatchObject({
        issuer: 'https://auth.test/oauth2/alpha',
        token_endpoint: 'https://auth.test/oauth2/alpha/access_token',
        jwks_uri: 'https://auth.test/oauth2/alpha/connect/jwk_uri',
        introspection_endpoint: 'https://auth.test/oauth2/alpha/introspect',
        revocation_endpoint: 'https://auth.test/oauth2/alpha/token/revoke',
        authorization_endpoint: 'https://auth.test/oauth2/alpha/authorize',
        userinfo_endpoint: 'https://auth.test/oauth2/alpha/userinfo',
        pushed_authorization_request_endpoint: 'https://auth.test/oauth2/alpha/par',
        end_session_endpoint: 'https://auth.test/oauth2/alpha/connect/endSession',
        device_authorization_endpoint: 'https://auth.test/oauth2/alpha/device/code',
        backchannel_authentication_endpoint: 'https://auth.test/oauth2/alpha/bc-authorize',
        registration_endpoint: 'https://auth.test/oauth2/alpha/connect/register',
        grant_types_supported: [
          'client_credentials',
          'authorization_code',
          'refresh_token',
          'password',
          'urn:ietf:params:oauth:grant-type:device_code',
          'urn:openid:params:grant-type:ciba',
          'urn:ietf:params:oauth:grant-type:saml2-bearer',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
          'urn:ietf:params:oauth:grant-type:token-exchange',
        ],
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'private_key_jwt',
          'tls_client_auth',
          'self_signed_tls_client_auth',
          'none',
        ],
      });
      expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'reports']));
      // Each realm lists its own scopes only.
      const beta = (await t.app.inject({ method: 'GET', url: '/oauth2/beta/.well-known/openid-configuration' })).json();
      expect(beta.scopes_supported).not.toContain('reports');
    });

    it('derives every URL from BASE_URL, never from the Host header', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/oauth2/alpha/.well-known/openid-configuration',
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
      });
      expect(response.body).not.toContain('evil.example');
      expect(response.json().issuer).toBe('https://auth.test/oauth2/alpha');
    });
  });

  describe('key set', () => {
    it('publishes an RS256 and an ES256 public key per realm, distinct between realms, without private parts', async () => {
      const kids: string[] = [];
      for (const realm of ['', '/alpha', '/beta']) {
        const response = await t.app.inject({ method: 'GET', url: `/oauth2${realm}/connect/jwk_uri` });
        expect(response.statusCode).toBe(200);
        const { keys } = response.json() as { keys: Array<Record<string, string>> };
        expect(keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
        for (const key of keys) {
          expect(key).toMatchObject({ use: 'sig', kid: expect.any(String) });
          for (const member of PRIVATE_JWK_MEMBERS) expect(key[member]).toBeUndefined();
          kids.push(key.kid!);
        }
      }
      expect(new Set(kids).size).toBe(6);
    });

    it('stores private keys only encrypted', async () => {
      const rows = await t.store.db.query<{ private_jwk_encrypted: Uint8Array; public_jwk: object }>(
        'SELECT private_jwk_encrypted, public_jwk FROM signing_keys',
      );
      expect(rows.rows.length).toBeGreaterThanOrEqual(6);
      for (const row of rows.rows) {
        const text = Buffer.from(row.private_jwk_encrypted).toString('latin1');
        expect(text).not.toContain('"d"');
        expect(text).not.toContain('"kty"');
      }
    });
  });

  describe('isolation', () => {
    let alphaSvc: ServiceClient;
    let betaAuditor: ServiceClient;

    beforeAll(async () => {
      alphaSvc = await t.admin.serviceClient('alpha', '', { introspect_any_token: true });
      betaAuditor = await t.admin.serviceClient('beta', '', { introspect_any_token: true });
    });

    it('does not know a client of another realm', async () => {
      for (const realm of ['root', 'beta']) {
        const response = await clientCredentials(t.app, realm, alphaSvc);
        expect(response.statusCode).toBe(401);
        expect(response.json().error).toBe('invalid_client');
      }
    });

    it('keeps two clients with the same client_id apart', async () => {
      const inAlpha = await t.admin.createClient('alpha', { client_id: 'shared-name', grant_types: ['client_credentials'] });
      const inBeta = await t.admin.createClient('beta', { client_id: 'shared-name', grant_types: ['client_credentials'] });
      const alphaClient = { clientId: 'shared-name', secret: inAlpha.client_secret! };
      const betaClient = { clientId: 'shared-name', secret: inBeta.client_secret! };
      expect((await clientCredentials(t.app, 'alpha', alphaClient)).statusCode).toBe(200);
      expect((await clientCredentials(t.app, 'beta', alphaClient)).statusCode).toBe(401);
      expect((await clientCredentials(t.app, 'beta', betaClient)).statusCode).toBe(200);
      const alphaToken = await accessToken(t.app, 'alpha', alphaClient);
      expect((await introspect(t.app, 'beta', betaClient, alphaToken)).json()).toEqual({ active: false });
    });

    it('does not know a token of another realm, even to a client that may introspect any token', async () => {
      const token = await accessToken(t.app, 'alpha', alphaSvc);
      expect((await introspect(t.app, 'beta', betaAuditor, token)).json()).toEqual({ active: false });
      // Revoking it through another realm does nothing.
      expect((await revoke(t.app, 'beta', betaAuditor, token)).statusCode).toBe(200);
      expect((await introspect(t.app, 'alpha', alphaSvc, token)).json().active).toBe(true);
    });
  });

  describe('unknown and disabled realms', () => {
    const endpoints = (realm: string) => [
      { method: 'GET' as const, url: `/oauth2/${realm}/.well-known/openid-configuration` },
      { method: 'GET' as const, url: `/.well-known/oauth-authorization-server/oauth2/${realm}` },
      { method: 'GET' as const, url: `/oauth2/${realm}/connect/jwk_uri` },
      { method: 'POST' as const, url: `/oauth2/${realm}/access_token` },
      { method: 'POST' as const, url: `/oauth2/${realm}/introspect` },
      { method: 'POST' as const, url: `/oauth2/${realm}/token/revoke` },
    ];

    it('answers 404 below an unknown realm, and below /oauth2/root', async () => {
      for (const realm of ['nowhere', 'root']) {
        for (const endpoint of endpoints(realm)) {
          const response = await t.app.inject({ ...endpoint, payload: endpoint.method === 'POST' ? {} : undefined });
          expect(response.statusCode, `${endpoint.method} ${endpoint.url}`).toBe(404);
        }
      }
    });

    it('answers 404 on every endpoint of a realm whose provider is disabled, and serves it again when enabled', async () => {
      await t.admin.createRealm('gamma');
      const svc = await t.admin.serviceClient('gamma');
      const token = await accessToken(t.app, 'gamma', svc);
      expect((await t.admin.request('PATCH', '/realms/gamma', { settings: { oauth2_enabled: false } })).statusCode).toBe(200);

      for (const endpoint of endpoints('gamma')) {
        const response =
          endpoint.method === 'POST'
            ? await postForm(t.app, endpoint.url, { grant_type: 'client_credentials', token, client_id: svc.clientId, client_secret: svc.secret })
            : await t.app.inject(endpoint);
        expect(response.statusCode, `${endpoint.method} ${endpoint.url}`).toBe(404);
        expect(response.body).not.toContain('access_token');
      }
      // The admin API still manages it.
      expect((await t.admin.request('GET', '/realms/gamma/clients')).statusCode).toBe(200);

      await t.admin.request('PATCH', '/realms/gamma', { settings: { oauth2_enabled: true } });
      expect((await clientCredentials(t.app, 'gamma', svc)).statusCode).toBe(200);
    });

    it('disables the root realm the same way', async () => {
      await t.admin.request('PATCH', '/realms/root', { settings: { oauth2_enabled: false } });
      try {
        expect((await t.app.inject({ method: 'GET', url: '/oauth2/.well-known/openid-configuration' })).statusCode).toBe(404);
        expect((await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server/oauth2' })).statusCode).toBe(404);
        expect((await t.app.inject({ method: 'GET', url: '/oauth2/alpha/.well-known/openid-configuration' })).statusCode).toBe(200);
      } finally {
        await t.admin.request('PATCH', '/realms/root', { settings: { oauth2_enabled: true } });
      }
      expect((await t.app.inject({ method: 'GET', url: '/oauth2/.well-known/openid-configuration' })).statusCode).toBe(200);
    });
  });

  describe('operations', () => {
    it('answers /healthz and /readyz', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    });

    it('answers an unknown path with 404 in the error shape', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/nothing/here' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'not_found', error_description: expect.any(String) });
    });
  });
});
