import { createHash } from 'node:crypto';
import dns from 'node:dns';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { keyPair } from '../support/keys.js';
import { accessToken, realmPath } from '../support/oauth.js';

/**
 * Dynamic client registration (RFC 7591 §3) and client configuration (RFC 7592) over HTTP:
 * the initial access token, every error of RFC 7591 §3.2.2, the SSRF guard on jwks_uri,
 * and what a registration access token may and may not reach.
 */

const REDIRECT = 'https://app.example/callback';
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Registered = {
  client_id: string;
  client_secret?: string;
  registration_access_token: string;
  registration_client_uri: string;
} & Record<string, unknown>;

describe('dynamic client registration', () => {
  let t: TestApp;
  let publicJwk: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha', { rate_limit_registration: null });
    await t.admin.createRealm('beta');
    await t.admin.createRealm('open', { open_registration: true, rate_limit_registration: null });
    await t.admin.putScope('alpha', 'orders:read');
    publicJwk = (await keyPair('ES256')).publicJwk as Record<string, unknown>;
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const registerUrl = (realm: string) => `${realmPath(realm)}/connect/register`;
  const clientUrl = (realm: string, clientId: string) => `${registerUrl(realm)}/${clientId}`;
  const bearer = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

  /**
   * These tests are about metadata, not the realm's registration policy
   * (registration-policy.test.ts): their tokens allow what they ask for beyond it.
   */
  const ALLOWS = { grant_types: ['client_credentials'], scope: 'orders:read orders:write' };

  async function initialAccessToken(realm = 'alpha', allows: object = ALLOWS): Promise<string> {
    const response = await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, allows);
    expect(response.statusCode).toBe(201);
    return response.json().token as string;
  }

  function post(realm: string, body: unknown, token: string | undefined): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'POST',
      url: registerUrl(realm),
      headers: { 'content-type': 'application/json', ...bearer(token) },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  /** A registration with a fresh initial access token. */
  async function register(body: unknown, realm = 'alpha'): Promise<LightMyRequestResponse> {
    return post(realm, body, await initialAccessToken(realm));
  }

  async function registered(body: Record<string, unknown>, realm = 'alpha'): Promise<Registered> {
    const response = await register(body, realm);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as Registered;
  }

  function configuration(method: 'GET' | 'PUT' | 'DELETE', realm: string, clientId: string, token: string | undefined, body?: unknown) {
    return t.app.inject({
      method,
      url: clientUrl(realm, clientId),
      headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  function expectError(response: LightMyRequestResponse, status: number, error: string): void {
    expect({ status: response.statusCode, body: response.body }).toMatchObject({ status });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error, error_description: expect.stringMatching(/\S/) });
  }

  function expectInvalidToken(response: LightMyRequestResponse, realm = 'alpha'): void {
    expectError(response, 401, 'invalid_token');
    expect(response.headers['www-authenticate']).toMatch(new RegExp(`^Bearer realm="${realm}"`));
  }

  async function storedClient(realm: string, clientId: string) {
    const result = await t.store.db.query<{ client_secret_hash: Uint8Array | null; registration_token_hash: Uint8Array | null; row: string }>(
      `SELECT client_secret_hash, registration_token_hash, row_to_json(c)::text AS row FROM clients c WHERE realm = $1 AND client_id = $2`,
      [realm, clientId],
    );
    return result.rows[0];
  }

  describe('registration (RFC 7591 §3.1)', () => {
    it('registers a confidential client with every default, and shows its credentials once', async () => {
      const response = await register({ redirect_uris: [REDIRECT] });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json() as Registered;
      expect(body).toEqual({
        client_id: expect.stringMatching(UUID),
        client_id_issued_at: expect.any(Number),
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        client_secret_expires_at: 0,
        registration_access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        registration_client_uri: `https://auth.test/oauth2/alpha/connect/register/${body.client_id}`,
        redirect_uris: [REDIRECT],
        post_logout_redirect_uris: [],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        tls_client_certificate_bound_access_tokens: false,
        id_token_signed_response_alg: 'RS256',
        authorization_signed_response_alg: 'RS256',
        introspection_signed_response_alg: 'RS256',
        require_pushed_authorization_requests: false,
      });
      expect(Math.abs((body.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60);
      const client = await t.store.clients.get('alpha', body.client_id);
      expect(client).toMatchObject({ client_type: 'confidential', redirect_uris: [REDIRECT], skip_consent: false });
    });

    it('stores the client secret and the registration access token only as SHA-256, and spends the initial access token', async () => {
      const token = await initialAccessToken();
      const body = (await post('alpha', { redirect_uris: [REDIRECT], client_name: 'Hashed' }, token)).json() as Registered;
      const stored = await storedClient('alpha', body.client_id);
      expect(Buffer.from(stored!.client_secret_hash!)).toEqual(sha256(body.client_secret!));
      expect(Buffer.from(stored!.registration_token_hash!)).toEqual(sha256(body.registration_access_token));
      expect(stored!.row).not.toContain(body.client_secret);
      expect(stored!.row).not.toContain(body.registration_access_token);
      const spent = await t.store.db.query<{ used_at: Date | null }>('SELECT used_at FROM initial_access_tokens WHERE token_hash = $1', [sha256(token)]);
      expect(spent.rows[0]?.used_at).toBeInstanceOf(Date);
    });

    it('registers every metadata field it serves, under RFC 7591 names', async () => {
      const body = await registered({
        client_name: 'Orders app',
        redirect_uris: [REDIRECT, 'com.example.app:/callback', 'http://127.0.0.1:8080/cb'],
        post_logout_redirect_uris: ['https://app.example/bye'],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types: ['code'],
        token_endpoint_auth_method: 'private_key_jwt',
        scope: 'openid profile orders:read',
        jwks: { keys: [publicJwk] },
        tls_client_certificate_bound_access_tokens: true,
        id_token_signed_response_alg: 'ES256',
        authorization_signed_response_alg: 'ES256',
        introspection_signed_response_alg: 'ES256',
        require_pushed_authorization_requests: true,
        backchannel_logout_uri: 'https://app.example/backchannel-logout',
        backchannel_logout_session_required: true,
        frontchannel_logout_uri: 'https://app.example/frontchannel-logout',
      });
      expect(body).toMatchObject({
        client_name: 'Orders app',
        redirect_uris: [REDIRECT, 'com.example.app:/callback', 'http://127.0.0.1:8080/cb'],
        post_logout_redirect_uris: ['https://app.example/bye'],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types: ['code'],
        token_endpoint_auth_method: 'private_key_jwt',
        scope: 'openid profile orders:read',
        jwks: { keys: [publicJwk] },
        tls_client_certificate_bound_access_tokens: true,
        id_token_signed_response_alg: 'ES256',
        authorization_signed_response_alg: 'ES256',
        introspection_signed_response_alg: 'ES256',
        require_pushed_authorization_requests: true,
        backchannel_logout_uri: 'https://app.example/backchannel-logout',
        backchannel_logout_session_required: true,
        frontchannel_logout_uri: 'https://app.example/frontchannel-logout',
      });
      // private_key_jwt has no secret to give.
      expect(body).not.toHaveProperty('client_secret');
      expect(body).not.toHaveProperty('client_secret_expires_at');
      expect(await t.store.clients.get('alpha', body.client_id)).toMatchObject({ require_par: true, jwks: { keys: [publicJwk] } });
    });

    it('registers a public client with token_endpoint_auth_method none, without a secret', async () => {
      const body = await registered({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
      expect(body.token_endpoint_auth_method).toBe('none');
      expect(body).not.toHaveProperty('client_secret');
      expect(body.registration_access_token).toEqual(expect.any(String));
      expect((await t.store.clients.get('alpha', body.client_id))?.client_type).toBe('public');
      expect((await storedClient('alpha', body.client_id))?.client_secret_hash).toBeNull();
    });

    it('registers a client_credentials client without redirect URIs; its response_types follow from its grants', async () => {
      const body = await registered({ grant_types: ['client_credentials'], scope: 'orders:read' });
      expect(body).toMatchObject({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [] });
      const token = await accessToken(t.app, 'alpha', { clientId: body.client_id, secret: body.client_secret! }, 'orders:read');
      expect(token).toEqual(expect.any(String));
    });

    it('serves the root realm at {BASE_URL}/oauth2/connect/register, its clients kept apart from the sub-realms\'', async () => {
      const body = await registered({ grant_types: ['client_credentials'] }, 'root');
      expect(body.registration_client_uri).toBe(`https://auth.test/oauth2/connect/register/${body.client_id}`);
      expect(await t.store.clients.get('root', body.client_id)).toBeDefined();
      expect(await t.store.clients.get('alpha', body.client_id)).toBeUndefined();
      const read = await t.app.inject({ method: 'GET', url: new URL(body.registration_client_uri).pathname, headers: bearer(body.registration_access_token) });
      expect(read.statusCode).toBe(200);
      expectInvalidToken(await configuration('GET', 'alpha', body.client_id, body.registration_access_token));
    });

    it('ignores unknown metadata and null values (RFC 7591 §2, RFC 7592 §2.2)', async () => {
      const body = await registered({
        redirect_uris: [REDIRECT],
        logo_uri: 'https://app.example/logo.png',
        software_statement: 'eyJ...',
        // A name in a language the server does not speak is refused (test/clients/registration-names.test.ts); a null one is none.
        'client_name#de': null,
        client_name: null,
        jwks_uri: null,
      });
      expect(body).not.toHaveProperty('logo_uri');
      expect(body).not.toHaveProperty('software_statement');
      expect(body).not.toHaveProperty('client_name');
      expect(body).not.toHaveProperty('client_name#de');
      expect(body).not.toHaveProperty('jwks_uri');
    });

    it('ignores client_id, client_type and require_pkce, and takes what it would have of the privileged fields', async () => {
      const body = await registered({
        client_id: 'chosen-id',
        client_type: 'public',
        require_pkce: true,
        skip_consent: false,
        introspect_any_token: false,
        allowed_audiences: [],
        grant_types: ['client_credentials'],
      });
      expect(body.client_id).toMatch(UUID);
      for (const field of ['client_type', 'skip_consent', 'introspect_any_token', 'require_pkce', 'allowed_audiences']) expect(body).not.toHaveProperty(field);
      expect(await t.store.clients.get('alpha', 'chosen-id')).toBeUndefined();
      expect(await t.store.clients.get('alpha', body.client_id)).toMatchObject({
        client_type: 'confidential',
        token_endpoint_auth_method: 'client_secret_basic',
        skip_consent: false,
        introspect_any_token: false,
        require_pkce: false,
        allowed_audiences: [],
      });
    });
    it('never takes roles from a registering client, and keeps an admin\'s through the client\'s own update (CONTRACT.md §14)', async () => {
      const client = await registered({ grant_types: ['client_credentials'], roles: ['realmgate-admin'] }, 'root');
      expect(await t.store.clients.get('root', client.client_id)).not.toHaveProperty('roles');
      expect((await t.admin.request('PATCH', `/realms/root/clients/${client.client_id}`, { roles: ['realmgate-viewer'] })).statusCode).toBe(200);
      const read = (await configuration('GET', 'root', client.client_id, client.registration_access_token)).json();
      const updated = await configuration('PUT', 'root', client.client_id, client.registration_access_token, { ...read, client_name: 'updated', roles: ['realmgate-admin'] });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(await t.store.clients.get('root', client.client_id)).toMatchObject({ client_name: 'updated', roles: ['realmgate-viewer'] });
    });
  });

  describe('the initial access token', () => {
    it('is required: without it, 401 invalid_token with a Bearer challenge naming no error', async () => {
      const response = await post('alpha', { redirect_uris: [REDIRECT] }, undefined);
      expectInvalidToken(response);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha"');
    });

    it('refuses a wrong, malformed, expired or other realm\'s token with 401 invalid_token, and creates nothing', async () => {
      const before = (await t.store.clients.list('alpha')).length;
      const expired = await initialAccessToken();
      await t.store.db.query(`UPDATE initial_access_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(expired)]);
      const betas = await initialAccessToken('beta');
      for (const token of ['not-a-token', expired, betas, '']) {
        const response = await post('alpha', { redirect_uris: [REDIRECT] }, token);
        expectInvalidToken(response);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha", error="invalid_token"');
      }
      for (const header of ['Basic abc', 'Bearer', 'Bearer a b']) {
        const response = await t.app.inject({
          method: 'POST',
          url: registerUrl('alpha'),
          headers: { 'content-type': 'application/json', authorization: header },
          payload: JSON.stringify({ redirect_uris: [REDIRECT] }),
        });
        expectInvalidToken(response);
      }
      expect((await t.store.clients.list('alpha')).length).toBe(before);
    });

    it('registers one client: its second use is refused', async () => {
      const token = await initialAccessToken();
      expect((await post('alpha', { redirect_uris: [REDIRECT] }, token)).statusCode).toBe(201);
      expectInvalidToken(await post('alpha', { redirect_uris: [REDIRECT] }, token));
    });

    it('lets exactly one of concurrent registrations with one token succeed', async () => {
      const token = await initialAccessToken();
      const before = (await t.store.clients.list('alpha')).length;
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => post('alpha', { grant_types: ['client_credentials'], client_name: `racer ${i}` }, token)),
      );
      expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 401, 401, 401, 401, 401, 401, 401]);
      for (const response of responses.filter((r) => r.statusCode === 401)) expectInvalidToken(response);
      expect((await t.store.clients.list('alpha')).length).toBe(before + 1);
    });

    it('is not spent by a registration that is refused', async () => {
      const token = await initialAccessToken();
      expectError(await post('alpha', { redirect_uris: ['http://app.example/cb'] }, token), 400, 'invalid_redirect_uri');
      expect((await post('alpha', { redirect_uris: [REDIRECT] }, token)).statusCode).toBe(201);
    });

    it('is not needed in a realm with open_registration, which does not look at it', async () => {
      expect((await post('open', { redirect_uris: [REDIRECT] }, undefined)).statusCode).toBe(201);
      expect((await post('open', { redirect_uris: [REDIRECT] }, 'whatever')).statusCode).toBe(201);
      // The setting is the realm's own.
      expectInvalidToken(await post('beta', { redirect_uris: [REDIRECT] }, undefined), 'beta');
    });
  });

  describe('refused metadata (RFC 7591 §3.2.2)', () => {
    const invalidRedirects: Array<[string, Record<string, unknown>]> = [
      ['a relative URI', { redirect_uris: ['/callback'] }],
      ['a URI with a fragment', { redirect_uris: ['https://app.example/cb#frag'] }],
      ['an empty fragment', { redirect_uris: ['https://app.example/cb#'] }],
      ['http on a host that is not loopback', { redirect_uris: ['http://app.example/cb'] }],
      ['the javascript scheme', { redirect_uris: ['javascript:alert(1)'] }],
      ['the data scheme', { redirect_uris: ['data:text/html,<script>alert(1)</script>'] }],
      ['the file scheme', { redirect_uris: ['file:///etc/passwd'] }],
      ['whitespace', { redirect_uris: ['https://app.example/cb x'] }],
      ['a NUL byte', { redirect_uris: ['https://app.example/cb\u0000'] }],
      ['no redirect URI for authorization_code', {}],
      ['an empty list for authorization_code', { redirect_uris: [] }],
      ['a list that is not a list', { redirect_uris: REDIRECT }],
      ['a hundred URIs', { redirect_uris: Array.from({ length: 100 }, (_, i) => `https://app.example/cb${i}`) }],
      ['a bad post-logout redirect URI', { redirect_uris: [REDIRECT], post_logout_redirect_uris: ['http://app.example/bye'] }],
    ];
    for (const [name, body] of invalidRedirects) {
      it(`invalid_redirect_uri: ${name}`, async () => {
        expectError(await register(body), 400, 'invalid_redirect_uri');
      });
    }

    const invalidMetadata: Array<[string, unknown]> = [
      ['an unknown token_endpoint_auth_method', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_jwt' }],
      ['response_types token', { redirect_uris: [REDIRECT], response_types: ['token'] }],
      ['response_types code id_token', { redirect_uris: [REDIRECT], response_types: ['code id_token'] }],
      ['response_types code without the authorization_code grant', { grant_types: ['client_credentials'], response_types: ['code'] }],
      ['the authorization_code grant without response_types code', { redirect_uris: [REDIRECT], response_types: [] }],
      ['an unknown grant type', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'implicit'] }],
      ['a repeated grant type', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'authorization_code'] }],
      ['a hundred grant types', { grant_types: Array.from({ length: 100 }, () => 'client_credentials') }],
      ['client_credentials for a public client', { token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] }],
      ['a private key in jwks', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' }, d: 'secret' }] } }],
      ['a symmetric key in jwks', { grant_types: ['client_credentials'], jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }],
      ['jwks that is not a key set', { grant_types: ['client_credentials'], jwks: [{ kty: 'EC' }] }],
      ['jwks and jwks_uri both', { grant_types: ['client_credentials'], jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' }] }, jwks_uri: 'https://93.184.215.14/jwks' }],
      ['private_key_jwt without keys', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt' }],
      ['tls_client_auth without a subject', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'tls_client_auth' }],
      ['a scope the realm does not define', { grant_types: ['client_credentials'], scope: 'orders:read orders:write' }],
      ['a malformed scope', { grant_types: ['client_credentials'], scope: 'a  "b"' }],
      ['an unsupported ID token algorithm', { redirect_uris: [REDIRECT], id_token_signed_response_alg: 'none' }],
      ['an unsupported introspection response algorithm (RFC 9701 §6)', { grant_types: ['client_credentials'], introspection_signed_response_alg: 'HS256' }],
      ['a client_name that is not a string', { redirect_uris: [REDIRECT], client_name: ['x'] }],
      ['a NUL byte in client_name', { redirect_uris: [REDIRECT], client_name: 'bad\u0000name' }],
      ['a NUL byte in a JWK', { grant_types: ['client_credentials'], jwks: { keys: [{ kty: 'EC\u0000' }] } }],
      ['a body that is an array', [{ redirect_uris: [REDIRECT] }]],
      ['a body that is a string', '"hello"'],
      ['a body that is null', 'null'],
    ];
    for (const [name, body] of invalidMetadata) {
      it(`invalid_client_metadata: ${name}`, async () => {
        expectError(await register(body), 400, 'invalid_client_metadata');
      });
    }

    it('refuses bodies that are not JSON, too large, or of another type, in the same JSON shape', async () => {
      expectError(await register('{"redirect_uris":'), 400, 'invalid_request');
      expectError(await register('{"__proto__":{"x":1}}'), 400, 'invalid_request');
      const token = await initialAccessToken();
      const form = await t.app.inject({
        method: 'POST',
        url: registerUrl('alpha'),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...bearer(token) },
        payload: 'redirect_uris=https%3A%2F%2Fapp.example%2Fcallback',
      });
      expectError(form, 415, 'invalid_request');
      const huge = await post('alpha', { redirect_uris: [REDIRECT], client_name: 'x'.repeat(300 * 1024) }, token);
      expectError(huge, 413, 'invalid_request');
    });
  });

  describe('the jwks_uri of a self-registered client cannot lead into the server\'s network', () => {
    const internal = [
      'https://127.0.0.1/jwks',
      'https://127.1.2.3/jwks',
      'https://0x7f.1/jwks',
      'https://10.1.2.3/jwks',
      'https://172.16.0.1/jwks',
      'https://192.168.1.1/jwks',
      'https://100.64.0.1/jwks',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/jwks',
      'https://[::1]/jwks',
      'https://[::]/jwks',
      'https://[::ffff:127.0.0.1]/jwks',
      'https://[::ffff:a9fe:a9fe]/jwks',
      'https://[fd00::1]/jwks',
      'https://[fe80::1]/jwks',
      'https://[64:ff9b::a00:1]/jwks',
      'https://localhost/jwks',
      'https://LOCALHOST./jwks',
      'https://keys.localhost/jwks',
      'https://metadata.google.internal/jwks',
      'https://printer.local/jwks',
      // The special-purpose ranges the outbound fetcher's guard knows beyond the private ones.
      'https://198.18.0.1/jwks',
      'https://192.0.0.8/jwks',
      'https://[2002:7f00:1::1]/jwks', // 6to4 wrapping 127.0.0.1
    ];
    for (const jwksUri of internal) {
      it(`refuses ${jwksUri}`, async () => {
        const lookup = vi.spyOn(dns.promises, 'lookup');
        const response = await register({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri });
        expectError(response, 400, 'invalid_client_metadata');
        expect(response.json().error_description).toMatch(/jwks_uri/);
        expect(lookup).not.toHaveBeenCalled(); // literal addresses and reserved names need no lookup
      });
    }

    it('refuses http', async () => {
      expectError(await register({ grant_types: ['client_credentials'], jwks_uri: 'http://93.184.215.14/jwks' }), 400, 'invalid_client_metadata');
    });

    it('resolves a host name and refuses it when any address is internal, or when it does not resolve', async () => {
      const lookup = vi.spyOn(dns.promises, 'lookup') as unknown as { mockResolvedValueOnce(v: unknown): void; mockRejectedValueOnce(v: unknown): void };
      lookup.mockResolvedValueOnce([{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.7', family: 4 }]);
      lookup.mockResolvedValueOnce([{ address: 'fd12:3456::1', family: 6 }]);
      lookup.mockRejectedValueOnce(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
      for (let i = 0; i < 3; i++) {
        const response = await register({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://keys.example.com/jwks' });
        expectError(response, 400, 'invalid_client_metadata');
      }
      expect(dns.promises.lookup).toHaveBeenCalledWith('keys.example.com', expect.objectContaining({ all: true }));
    });

    it('accepts a host name that resolves to public addresses only, and a public literal address', async () => {
      const lookup = vi.spyOn(dns.promises, 'lookup') as unknown as { mockResolvedValueOnce(v: unknown): void };
      lookup.mockResolvedValueOnce([{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }]);
      const named = await registered({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://keys.example.com/jwks' });
      expect(named.jwks_uri).toBe('https://keys.example.com/jwks');
      const literal = await registered({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://93.184.215.14/jwks' });
      expect(literal.jwks_uri).toBe('https://93.184.215.14/jwks');
    });

    it('lets an admin set an internal jwks_uri, which the client may keep in an update', async () => {
      const client = await registered({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] } });
      const patched = await t.admin.request('PATCH', `/realms/alpha/clients/${client.client_id}`, { jwks: null, jwks_uri: 'https://10.0.0.8/jwks' });
      expect(patched.statusCode, patched.body).toBe(200);
      const read = (await configuration('GET', 'alpha', client.client_id, client.registration_access_token)).json();
      const kept = await configuration('PUT', 'alpha', client.client_id, client.registration_access_token, { ...read, client_name: 'kept' });
      expect(kept.statusCode, kept.body).toBe(200);
      const moved = await configuration('PUT', 'alpha', client.client_id, client.registration_access_token, { ...read, jwks_uri: 'https://10.0.0.9/jwks' });
      expectError(moved, 400, 'invalid_client_metadata');
    });
  });

  describe('client configuration (RFC 7592)', () => {
    it('reads the registered metadata, never the secret nor the registration access token', async () => {
      const client = await registered({ redirect_uris: [REDIRECT], client_name: 'Reader', scope: 'openid' });
      const response = await configuration('GET', 'alpha', client.client_id, client.registration_access_token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const { client_secret: _secret, registration_access_token: _token, ...expected } = client;
      expect(response.json()).toEqual(expected);
      expect(response.body).not.toContain(client.client_secret);
      expect(response.body).not.toContain(client.registration_access_token);
    });

    it('refuses a missing, wrong or other client\'s token, an unknown client and an admin\'s client with the same 401', async () => {
      const client = await registered({ redirect_uris: [REDIRECT] });
      const other = await registered({ redirect_uris: [REDIRECT] });
      const adminClient = await t.admin.createClient('alpha', { grant_types: ['client_credentials'] });
      const inBeta = await registered({ redirect_uris: [REDIRECT] }, 'beta');
      const attempts: Array<[string, string | undefined, string]> = [
        ['alpha', undefined, client.client_id],
        ['alpha', 'wrong', client.client_id],
        ['alpha', other.registration_access_token, client.client_id],
        ['alpha', client.registration_access_token, adminClient.client_id],
        ['alpha', client.registration_access_token, '00000000-0000-4000-8000-000000000000'],
        ['alpha', client.registration_access_token, '%00'],
        ['alpha', client.registration_access_token, 'x'.repeat(100)],
        ['alpha', inBeta.registration_access_token, inBeta.client_id],
        ['beta', client.registration_access_token, client.client_id],
      ];
      const bodies = new Set<string>();
      for (const [realm, token, clientId] of attempts) {
        for (const method of ['GET', 'PUT', 'DELETE'] as const) {
          const response = await configuration(method, realm, clientId, token, method === 'PUT' ? { client_id: clientId, redirect_uris: [REDIRECT] } : undefined);
          expectInvalidToken(response, realm);
          if (token !== undefined) bodies.add(response.body);
        }
      }
      expect(bodies.size).toBe(1); // nothing tells an existing client from a missing one
      // Nothing changed.
      expect((await configuration('GET', 'alpha', client.client_id, client.registration_access_token)).statusCode).toBe(200);
      expect((await t.admin.request('GET', `/realms/alpha/clients/${adminClient.client_id}`)).statusCode).toBe(200);
    });

    it('replaces the metadata in full on PUT: what is omitted goes back to its default', async () => {
      const client = await registered({
        redirect_uris: [REDIRECT],
        post_logout_redirect_uris: ['https://app.example/bye'],
        client_name: 'Before',
        scope: 'openid orders:read',
        grant_types: ['authorization_code', 'refresh_token'],
        id_token_signed_response_alg: 'ES256',
        authorization_signed_response_alg: 'ES256',
        introspection_signed_response_alg: 'ES256',
      });
      const response = await configuration('PUT', 'alpha', client.client_id, client.registration_access_token, {
        client_id: client.client_id,
        client_secret: client.client_secret,
        redirect_uris: ['https://app.example/other'],
        client_name: 'After',
        // fields of the registration response that a client echoes back are ignored
        registration_client_uri: client.registration_client_uri,
        client_id_issued_at: 1,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        client_id: client.client_id,
        client_id_issued_at: client.client_id_issued_at,
        client_secret_expires_at: 0,
        registration_client_uri: client.registration_client_uri,
        client_name: 'After',
        redirect_uris: ['https://app.example/other'],
        post_logout_redirect_uris: [],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        tls_client_certificate_bound_access_tokens: false,
        id_token_signed_response_alg: 'RS256',
        authorization_signed_response_alg: 'RS256',
        introspection_signed_response_alg: 'RS256',
        require_pushed_authorization_requests: false,
      });
      // The secret and the registration access token stay as they were.
      const stored = await storedClient('alpha', client.client_id);
      expect(Buffer.from(stored!.client_secret_hash!)).toEqual(sha256(client.client_secret!));
      expect((await configuration('GET', 'alpha', client.client_id, client.registration_access_token)).json().client_name).toBe('After');
    });

    it('refuses an update without its own client_id, or with another client_secret, and changes nothing', async () => {
      const client = await registered({ redirect_uris: [REDIRECT], client_name: 'Unchanged' });
      const update = { redirect_uris: ['https://app.example/x'], client_name: 'Changed' };
      for (const body of [
        update,
        { ...update, client_id: 'someone-else' },
        { ...update, client_id: client.client_id, client_secret: 'not-the-secret' },
        { ...update, client_id: client.client_id, client_secret: 42 },
        [{ ...update, client_id: client.client_id }],
      ]) {
        expectError(await configuration('PUT', 'alpha', client.client_id, client.registration_access_token, body), 400, 'invalid_client_metadata');
      }
      expectError(
        await configuration('PUT', 'alpha', client.client_id, client.registration_access_token, { client_id: client.client_id, redirect_uris: ['http://evil.example/'] }),
        400,
        'invalid_redirect_uri',
      );
      const read = (await configuration('GET', 'alpha', client.client_id, client.registration_access_token)).json();
      expect(read).toMatchObject({ client_name: 'Unchanged', redirect_uris: [REDIRECT] });
    });

    it('removes the secret when the client becomes public, and issues a new one when it needs one again', async () => {
      const client = await registered({ redirect_uris: [REDIRECT] });
      const token = client.registration_access_token;
      const toPublic = await configuration('PUT', 'alpha', client.client_id, token, {
        client_id: client.client_id,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      });
      expect(toPublic.statusCode, toPublic.body).toBe(200);
      expect(toPublic.json()).not.toHaveProperty('client_secret');
      expect(toPublic.json()).not.toHaveProperty('client_secret_expires_at');
      expect((await storedClient('alpha', client.client_id))?.client_secret_hash).toBeNull();
      expect((await t.store.clients.get('alpha', client.client_id))?.client_type).toBe('public');

      const back = await configuration('PUT', 'alpha', client.client_id, token, { client_id: client.client_id, redirect_uris: [REDIRECT] });
      expect(back.statusCode, back.body).toBe(200);
      const secret = back.json().client_secret as string;
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(secret).not.toBe(client.client_secret);
      expect(back.json().client_secret_expires_at).toBe(0);
      expect(Buffer.from((await storedClient('alpha', client.client_id))!.client_secret_hash!)).toEqual(sha256(secret));
    });

    it('keeps what an admin set on the client through a client\'s update', async () => {
      const client = await registered({ grant_types: ['client_credentials'] });
      await t.admin.request('PATCH', `/realms/alpha/clients/${client.client_id}`, { skip_consent: true, introspect_any_token: true, require_pkce: true });
      const response = await configuration('PUT', 'alpha', client.client_id, client.registration_access_token, {
        client_id: client.client_id,
        grant_types: ['client_credentials'],
        skip_consent: false,
        introspect_any_token: false,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(await t.store.clients.get('alpha', client.client_id)).toMatchObject({ skip_consent: true, introspect_any_token: true, require_pkce: true });
    });

    it('deletes the client and its tokens; its registration access token then opens nothing', async () => {
      const client = await registered({ grant_types: ['client_credentials'], scope: 'orders:read' });
      await accessToken(t.app, 'alpha', { clientId: client.client_id, secret: client.client_secret! }, 'orders:read');
      const removed = await configuration('DELETE', 'alpha', client.client_id, client.registration_access_token);
      expect(removed.statusCode).toBe(204);
      expect(removed.body).toBe('');
      expect(await t.store.clients.get('alpha', client.client_id)).toBeUndefined();
      const tokens = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE realm = $1 AND client_id = $2', ['alpha', client.client_id]);
      expect(tokens.rows[0]?.n).toBe(0);
      for (const method of ['GET', 'DELETE'] as const) {
        expectInvalidToken(await configuration(method, 'alpha', client.client_id, client.registration_access_token));
      }
    });

    it('answers bad input with 4xx, never 500', async () => {
      const client = await registered({ redirect_uris: [REDIRECT] });
      const token = client.registration_access_token;
      const bodies: unknown[] = [
        { client_id: client.client_id, redirect_uris: Array.from({ length: 100 }, () => REDIRECT) },
        { client_id: client.client_id, redirect_uris: [REDIRECT], grant_types: Array.from({ length: 100 }, (_, i) => `g${i}`) },
        { client_id: client.client_id, redirect_uris: [REDIRECT], client_name: '\u0000' },
        { client_id: `${client.client_id}\u0000` },
        { client_id: client.client_id, redirect_uris: [REDIRECT], jwks: { keys: Array.from({ length: 100 }, () => ({ kty: 'EC' })) } },
        { client_id: client.client_id, redirect_uris: [REDIRECT], response_types: Array.from({ length: 100 }, () => 'code') },
        { client_id: client.client_id, redirect_uris: [{}], scope: 7, jwks_uri: 'not a url' },
      ];
      for (const body of bodies) {
        const response = await configuration('PUT', 'alpha', client.client_id, token, body);
        expect(response.statusCode, response.body).toBe(400);
        expect(['invalid_client_metadata', 'invalid_redirect_uri']).toContain(response.json().error);
      }
      for (const body of bodies.map((b) => ({ ...(b as object), client_id: undefined }))) {
        const response = await register(body);
        expect(response.statusCode, response.body).toBe(400);
      }
    });
  });
});
