import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, clientCredentials, introspect } from '../support/oauth.js';
import { expectAdminError, sha256 } from './helpers.js';

type ClientBody = { client_id: string; client_secret?: string } & Record<string, unknown>;

const REDIRECT = 'https://app.example/callback';
const JWKS = {
  keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', use: 'sig' }],
};

/** The defaults of a client record (CONTRACT.md §5) for what was not sent. */
const CONFIDENTIAL_DEFAULTS = {
  client_type: 'confidential',
  client_name: '',
  redirect_uris: [],
  post_logout_redirect_uris: [],
  scope: '',
  token_endpoint_auth_method: 'client_secret_basic',
  require_pkce: false,
  require_par: false,
  require_signed_request_object: false,
  skip_consent: false,
  tls_client_certificate_bound_access_tokens: false,
  introspect_any_token: false,
  id_token_signed_response_alg: 'RS256',
  authorization_signed_response_alg: 'RS256',
  introspection_signed_response_alg: 'RS256',
  allowed_audiences: [],
};

describe('admin API: clients', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    await t.admin.createRealm('beta');
  });
  afterAll(() => t.close());

  const url = (realm: string, clientId?: string, suffix = '') =>
    `/realms/${realm}/clients${clientId === undefined ? '' : `/${encodeURIComponent(clientId)}`}${suffix}`;
  const create = (realm: string, body: Record<string, unknown>) => t.admin.request('POST', url(realm), body);
  const read = (realm: string, clientId: string) => t.admin.request('GET', url(realm, clientId));
  const service = (realm: string, extra: Record<string, unknown> = {}): Promise<ServiceClient> => t.admin.serviceClient(realm, '', extra);

  /** 400 invalid_request, and no client with this client_id came to exist. */
  async function expectRefusedCreate(body: Record<string, unknown> & { client_id: string }, realm = 'alpha'): Promise<void> {
    expectAdminError(await create(realm, body), 400, 'invalid_request');
    expectAdminError(await read(realm, body.client_id), 404, 'not_found');
  }

  describe('creating a client', () => {
    it('generates a client_id when none is given, different for each client', async () => {
      const first = await create('alpha', { grant_types: ['client_credentials'] });
      const second = await create('alpha', { grant_types: ['client_credentials'] });
      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(201);
      const a = first.json() as ClientBody;
      const b = second.json() as ClientBody;
      expect(a.client_id).toMatch(/^\S{8,}$/);
      expect(b.client_id).toMatch(/^\S{8,}$/);
      expect(a.client_id).not.toBe(b.client_id);
      expect((await read('alpha', a.client_id)).statusCode).toBe(200);
    });

    it('keeps the client_id it is given', async () => {
      const response = await create('alpha', { client_id: 'my-app.v2', grant_types: ['client_credentials'] });
      expect(response.statusCode).toBe(201);
      expect(response.json().client_id).toBe('my-app.v2');
      expect((await read('alpha', 'my-app.v2')).json().client_id).toBe('my-app.v2');
    });

    it('returns a confidential client every default, its 256-bit secret once, and client_secret_expires_at 0', async () => {
      const response = await create('alpha', { client_id: 'defaults', grant_types: ['client_credentials'] });
      expect(response.statusCode).toBe(201);
      const body = response.json() as ClientBody;
      expect(body).toEqual({
        ...CONFIDENTIAL_DEFAULTS,
        client_id: 'defaults',
        grant_types: ['client_credentials'],
        client_id_issued_at: expect.any(Number),
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
        client_secret_expires_at: 0,
      });
      expect(Buffer.from(body.client_secret!, 'base64url').length).toBeGreaterThanOrEqual(32);
      expect(Math.abs((body.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60);

      // The secret works at the token endpoint.
      expect((await clientCredentials(t.app, 'alpha', { clientId: 'defaults', secret: body.client_secret! })).statusCode).toBe(200);
    });

    it('gives each confidential client a different secret', async () => {
      const a = (await create('alpha', { grant_types: ['client_credentials'] })).json() as ClientBody;
      const b = (await create('alpha', { grant_types: ['client_credentials'] })).json() as ClientBody;
      expect(a.client_secret).not.toBe(b.client_secret);
    });

    it('never returns the secret or any hash of it again: not from GET, nor from the list', async () => {
      const created = (await create('alpha', { client_id: 'secretive', grant_types: ['client_credentials'] })).json() as ClientBody;
      const secret = created.client_secret!;
      const hash = sha256(secret);
      const { client_secret: _secret, client_secret_expires_at: _expires, ...record } = created;

      const one = await read('alpha', 'secretive');
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(record);
      const list = await t.admin.request('GET', url('alpha'));
      expect(list.statusCode).toBe(200);
      expect(list.json()).toContainEqual(record);
      for (const body of [one.body, list.body]) {
        expect(body).not.toContain(secret);
        expect(body).not.toMatch(/secret_hash|secretHash|client_secret"/);
        for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(body).not.toContain(hash.toString(encoding));
      }
    });

    it('stores the SHA-256 of the secret in clients.client_secret_hash and the secret nowhere in the table', async () => {
      const created = (await create('alpha', { client_id: 'hashed', grant_types: ['client_credentials'] })).json() as ClientBody;
      const secret = created.client_secret!;
      const row = await t.store.db.query<{ client_secret_hash: Uint8Array }>(
        'SELECT client_secret_hash FROM clients WHERE realm = $1 AND client_id = $2',
        ['alpha', 'hashed'],
      );
      expect(Buffer.from(row.rows[0]!.client_secret_hash).equals(sha256(secret))).toBe(true);
      const dump = await t.store.db.query<{ row: string }>('SELECT c::text AS row FROM clients c');
      expect(dump.rows.length).toBeGreaterThan(0);
      for (const { row: text } of dump.rows) expect(text).not.toContain(secret);
    });

    it('makes a public client authenticate with "none", with no secret returned or stored', async () => {
      const response = await create('alpha', { client_id: 'spa', client_type: 'public', redirect_uris: [REDIRECT] });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({
        ...CONFIDENTIAL_DEFAULTS,
        client_id: 'spa',
        client_type: 'public',
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'], // RFC 7591 §2
        client_id_issued_at: expect.any(Number),
      });
      const row = await t.store.db.query<{ client_secret_hash: Uint8Array | null }>(
        'SELECT client_secret_hash FROM clients WHERE realm = $1 AND client_id = $2',
        ['alpha', 'spa'],
      );
      expect(row.rows[0]!.client_secret_hash).toBeNull();
    });

    it('returns no secret to a private_key_jwt client, which needs jwks or jwks_uri', async () => {
      await expectRefusedCreate({ client_id: 'pkjwt-nokeys', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt' });
      const withJwks = await create('alpha', { client_id: 'pkjwt', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: JWKS });
      expect(withJwks.statusCode).toBe(201);
      expect(withJwks.json()).not.toHaveProperty('client_secret');
      expect(withJwks.json()).not.toHaveProperty('client_secret_expires_at');
      expect(withJwks.json().jwks).toEqual(JWKS);
      const withUri = await create('alpha', {
        client_id: 'pkjwt-uri',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: 'https://app.example/jwks.json',
      });
      expect(withUri.statusCode).toBe(201);
    });

    it('answers a client_id taken in the realm with 409 conflict, leaving the existing client and its secret as they were', async () => {
      const original = await service('alpha', { client_id: 'taken', client_name: 'Original' });
      const before = (await read('alpha', 'taken')).json();
      expectAdminError(await create('alpha', { client_id: 'taken', client_name: 'Impostor', grant_types: ['client_credentials'] }), 409, 'conflict');
      expect((await read('alpha', 'taken')).json()).toEqual(before);
      expect((await clientCredentials(t.app, 'alpha', original)).statusCode).toBe(200);
    });
  });

  describe('client record rules: 400 invalid_request and nothing created', () => {
    it('a public client cannot use client_credentials', async () => {
      await expectRefusedCreate({ client_id: 'r1', client_type: 'public', grant_types: ['client_credentials'] });
    });

    it('a public client cannot authenticate with client_secret_basic', async () => {
      await expectRefusedCreate({
        client_id: 'r2',
        client_type: 'public',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'client_secret_basic',
      });
    });

    it('a confidential client cannot authenticate with "none"', async () => {
      await expectRefusedCreate({ client_id: 'r3', grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' });
    });

    it('authorization_code needs at least one redirect URI, whether asked for or by default', async () => {
      await expectRefusedCreate({ client_id: 'r4', grant_types: ['authorization_code'] });
      await expectRefusedCreate({ client_id: 'r4b', grant_types: ['authorization_code'], redirect_uris: [] });
      await expectRefusedCreate({ client_id: 'r4c' });
    });

    it.each([
      ['a fragment', 'https://app.example/cb#frag'],
      ['an empty fragment', 'https://app.example/cb#'],
      ['a relative path', '/callback'],
      ['no scheme', 'app.example/callback'],
      ['the javascript: scheme', 'javascript:alert(1)'],
      ['the data: scheme', 'data:text/html,hi'],
      ['http on a non-loopback host', 'http://app.example/callback'],
      ['http on a host that merely starts with localhost', 'http://localhost.evil.example/cb'],
      ['a leading space (the URL parser would trim it)', ' https://app.example/cb'],
      ['a trailing newline', 'https://app.example/cb\n'],
      ['a tab inside', 'https://app.example/c\tb'],
    ])('a redirect URI with %s is refused', async (_rule, uri) => {
      await expectRefusedCreate({ client_id: 'badredirect', redirect_uris: [REDIRECT, uri] });
    });

    it('a post-logout redirect URI follows the same rules', async () => {
      await expectRefusedCreate({ client_id: 'badlogout', redirect_uris: [REDIRECT], post_logout_redirect_uris: ['http://app.example/bye'] });
    });

    it('http on localhost and 127.0.0.1 is allowed (RFC 8252 §7.3)', async () => {
      const response = await create('alpha', {
        client_id: 'native',
        client_type: 'public',
        redirect_uris: ['http://localhost:8080/cb', 'http://127.0.0.1:53000/cb'],
      });
      expect(response.statusCode).toBe(201);
      expect(response.json().redirect_uris).toEqual(['http://localhost:8080/cb', 'http://127.0.0.1:53000/cb']);
    });

    it('jwks and jwks_uri cannot both be given', async () => {
      await expectRefusedCreate({
        client_id: 'bothkeys',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: JWKS,
        jwks_uri: 'https://app.example/jwks.json',
      });
    });

    it.each([
      ['an EC private key', { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'secret' }],
      ['an RSA private key', { kty: 'RSA', n: 'n', e: 'AQAB', d: 'secret', p: 'p', q: 'q' }],
      ['a symmetric key', { kty: 'oct', k: 'secret' }],
    ])('jwks holding %s is refused: a client registers public keys only', async (_kind, key) => {
      await expectRefusedCreate({
        client_id: 'privatejwks',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [key] },
      });
    });

    it('a scope the realm does not define is refused until the scope is defined', async () => {
      await expectRefusedCreate({ client_id: 'scoped', grant_types: ['client_credentials'], scope: 'openid reports:read' });
      expect((await t.admin.request('PUT', '/realms/alpha/scopes/reports:read', { description: 'Read reports' })).statusCode).toBe(201);
      const response = await create('alpha', { client_id: 'scoped', grant_types: ['client_credentials'], scope: 'openid reports:read' });
      expect(response.statusCode).toBe(201);
      expect(response.json().scope).toBe('openid reports:read');
    });

    it('a scope defined in another realm does not count', async () => {
      expect((await t.admin.request('PUT', '/realms/beta/scopes/beta:only', { description: 'x' })).statusCode).toBe(201);
      await expectRefusedCreate({ client_id: 'borrower', grant_types: ['client_credentials'], scope: 'beta:only' });
    });

    it.each([
      ['an unknown field', { secret: 'x' }],
      ['a client_secret chosen by the caller', { client_secret: 'my-own-secret-0123456789' }],
      ['grant_types as a string', { grant_types: 'client_credentials' }],
      ['an unknown grant type', { grant_types: ['implicit'] }],
      ['a repeated grant type', { grant_types: ['client_credentials', 'client_credentials'] }],
      ['an unknown client type', { client_type: 'trusted' }],
      ['an unknown auth method', { token_endpoint_auth_method: 'client_secret_jwt' }],
      ['an unsupported id_token_signed_response_alg', { id_token_signed_response_alg: 'HS256' }],
      ['an unsupported introspection_signed_response_alg', { introspection_signed_response_alg: 'HS256' }],
      ['a non-boolean flag', { require_pkce: 'true' }],
      ['a scope that is not scope-tokens', { scope: 'a  b' }],
      ['a client_id with a slash', { client_id: 'a/b' }],
      ['a client_id with a space', { client_id: 'a b' }],
      ['an empty client_id', { client_id: '' }],
      ['an http jwks_uri', { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://app.example/jwks' }],
    ])('%s is refused', async (_rule, fields) => {
      const before = ((await t.admin.request('GET', url('alpha'))).json() as ClientBody[]).length;
      expectAdminError(await create('alpha', { grant_types: ['client_credentials'], ...fields }), 400, 'invalid_request');
      expect(((await t.admin.request('GET', url('alpha'))).json() as ClientBody[]).length).toBe(before);
    });
  });

  describe('changing a client', () => {
    it('PATCH merges: only the keys sent change, and a later PATCH keeps the earlier change', async () => {
      const svc = await service('alpha', { client_id: 'patchme', client_name: 'First', require_pkce: false });
      const before = (await read('alpha', 'patchme')).json() as ClientBody;

      const first = await t.admin.request('PATCH', url('alpha', 'patchme'), { client_name: 'Second' });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ ...before, client_name: 'Second' });

      const second = await t.admin.request('PATCH', url('alpha', 'patchme'), { introspect_any_token: true });
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual({ ...before, client_name: 'Second', introspect_any_token: true });
      expect((await read('alpha', 'patchme')).json()).toEqual({ ...before, client_name: 'Second', introspect_any_token: true });

      // Changing the record leaves the secret alone.
      expect(second.json()).not.toHaveProperty('client_secret');
      expect((await clientCredentials(t.app, 'alpha', svc)).statusCode).toBe(200);
    });

    it('PATCH whose merged record breaks a rule answers 400 invalid_request and changes nothing', async () => {
      const svc = await service('alpha', { client_id: 'steady', client_name: 'Steady' });
      const before = (await read('alpha', 'steady')).json();
      for (const patch of [
        { client_type: 'public' }, // public + client_credentials
        { token_endpoint_auth_method: 'none' },
        { grant_types: ['authorization_code'] }, // without redirect URIs
        { client_name: 'Changed', redirect_uris: ['https://app.example/cb#x'] }, // one bad field spoils the whole patch
        { client_name: 'Changed', scope: 'undefined:scope' },
        { client_id: 'renamed' },
        { client_secret: 'chosen-by-caller' },
        { unknown_field: true },
      ]) {
        expectAdminError(await t.admin.request('PATCH', url('alpha', 'steady'), patch), 400, 'invalid_request');
      }
      expect((await read('alpha', 'steady')).json()).toEqual(before);
      expect((await clientCredentials(t.app, 'alpha', svc)).statusCode).toBe(200);
      expectAdminError(await read('alpha', 'renamed'), 404, 'not_found');
    });

    it('PATCH of an unknown client answers 404 not_found', async () => {
      expectAdminError(await t.admin.request('PATCH', url('alpha', 'ghost'), { client_name: 'x' }), 404, 'not_found');
    });

    it('PATCH that makes a public client confidential returns its new secret once, which then works', async () => {
      expect((await create('alpha', { client_id: 'grows-up', client_type: 'public', redirect_uris: [REDIRECT] })).statusCode).toBe(201);
      const response = await t.admin.request('PATCH', url('alpha', 'grows-up'), {
        client_type: 'confidential',
        grant_types: ['authorization_code', 'client_credentials'],
      });
      expect(response.statusCode).toBe(200);
      const body = response.json() as ClientBody;
      expect(body).toMatchObject({
        client_type: 'confidential',
        token_endpoint_auth_method: 'client_secret_basic',
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
        client_secret_expires_at: 0,
      });
      expect((await clientCredentials(t.app, 'alpha', { clientId: 'grows-up', secret: body.client_secret! })).statusCode).toBe(200);
      expect((await read('alpha', 'grows-up')).json()).not.toHaveProperty('client_secret');
      // A later PATCH does not show or change it again.
      const later = await t.admin.request('PATCH', url('alpha', 'grows-up'), { client_name: 'Grown' });
      expect(later.json()).not.toHaveProperty('client_secret');
      expect((await clientCredentials(t.app, 'alpha', { clientId: 'grows-up', secret: body.client_secret! })).statusCode).toBe(200);
    });

    it('PATCH from a secret to private_key_jwt removes the stored secret hash', async () => {
      const svc = await service('alpha', { client_id: 'tokey' });
      const response = await t.admin.request('PATCH', url('alpha', 'tokey'), { token_endpoint_auth_method: 'private_key_jwt', jwks: JWKS });
      expect(response.statusCode).toBe(200);
      expect(response.json()).not.toHaveProperty('client_secret');
      const row = await t.store.db.query<{ client_secret_hash: Uint8Array | null }>(
        'SELECT client_secret_hash FROM clients WHERE realm = $1 AND client_id = $2',
        ['alpha', 'tokey'],
      );
      expect(row.rows[0]!.client_secret_hash).toBeNull();
      expect((await clientCredentials(t.app, 'alpha', svc)).statusCode).toBe(401);
    });
  });

  describe('rotating a secret', () => {
    it('answers {client_id, client_secret}: the new secret works at the token endpoint, the old one gets 401 invalid_client', async () => {
      const old = await service('alpha', { client_id: 'rotor' });
      expect((await clientCredentials(t.app, 'alpha', old)).statusCode).toBe(200); // cached as it was

      const response = await t.admin.request('POST', url('alpha', 'rotor', '/secret'));
      expect(response.statusCode).toBe(200);
      const body = response.json() as { client_id: string; client_secret: string };
      expect(body).toEqual({ client_id: 'rotor', client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) });
      expect(body.client_secret).not.toBe(old.secret);

      const fresh = await clientCredentials(t.app, 'alpha', { clientId: 'rotor', secret: body.client_secret });
      expect(fresh.statusCode).toBe(200);
      const stale = await clientCredentials(t.app, 'alpha', old);
      expect(stale.statusCode).toBe(401);
      expect(stale.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });

      const row = await t.store.db.query<{ client_secret_hash: Uint8Array }>(
        'SELECT client_secret_hash FROM clients WHERE realm = $1 AND client_id = $2',
        ['alpha', 'rotor'],
      );
      expect(Buffer.from(row.rows[0]!.client_secret_hash).equals(sha256(body.client_secret))).toBe(true);
      expect((await read('alpha', 'rotor')).body).not.toContain(body.client_secret);
    });

    it('refuses to rotate for a public client or a client without a secret: 400 invalid_request', async () => {
      expect((await create('alpha', { client_id: 'pub', client_type: 'public', redirect_uris: [REDIRECT] })).statusCode).toBe(201);
      expectAdminError(await t.admin.request('POST', url('alpha', 'pub', '/secret')), 400, 'invalid_request');
      const row = await t.store.db.query<{ client_secret_hash: Uint8Array | null }>(
        'SELECT client_secret_hash FROM clients WHERE realm = $1 AND client_id = $2',
        ['alpha', 'pub'],
      );
      expect(row.rows[0]!.client_secret_hash).toBeNull();
      expect((await create('alpha', { client_id: 'keyonly', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: JWKS })).statusCode).toBe(201);
      expectAdminError(await t.admin.request('POST', url('alpha', 'keyonly', '/secret')), 400, 'invalid_request');
    });

    it('answers 404 not_found for an unknown client', async () => {
      expectAdminError(await t.admin.request('POST', url('alpha', 'ghost', '/secret')), 404, 'not_found');
    });
  });

  describe('deleting a client', () => {
    it('answers 204, then 404; its credentials and the tokens it was issued stop working', async () => {
      const inspector = await service('alpha', { client_id: 'inspector', introspect_any_token: true });
      const victim = await service('alpha', { client_id: 'victim' });
      const token = await accessToken(t.app, 'alpha', victim);
      const beforeDelete = await introspect(t.app, 'alpha', inspector, token);
      expect(beforeDelete.json()).toMatchObject({ active: true, client_id: 'victim' });

      const response = await t.admin.request('DELETE', url('alpha', 'victim'));
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expectAdminError(await read('alpha', 'victim'), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', url('alpha', 'victim')), 404, 'not_found');
      expect(((await t.admin.request('GET', url('alpha'))).json() as ClientBody[]).map((c) => c.client_id)).not.toContain('victim');

      const afterDelete = await introspect(t.app, 'alpha', inspector, token);
      expect(afterDelete.statusCode).toBe(200);
      expect(afterDelete.json()).toEqual({ active: false });
      const stored = await t.store.db.query('SELECT 1 FROM tokens WHERE token_hash = $1', [sha256(token)]);
      expect(stored.rowCount).toBe(0);
      expect((await clientCredentials(t.app, 'alpha', victim)).statusCode).toBe(401);
    });
  });

  describe('realms', () => {
    it('answers 404 not_found on every client route of an unknown realm', async () => {
      expectAdminError(await t.admin.request('GET', url('nowhere')), 404, 'not_found');
      expectAdminError(await create('nowhere', { grant_types: ['client_credentials'] }), 404, 'not_found');
      expectAdminError(await read('nowhere', 'x'), 404, 'not_found');
      expectAdminError(await t.admin.request('PATCH', url('nowhere', 'x'), { client_name: 'x' }), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', url('nowhere', 'x')), 404, 'not_found');
      expectAdminError(await t.admin.request('POST', url('nowhere', 'x', '/secret')), 404, 'not_found');
    });

    it('keeps realms apart: a client of alpha is 404 under beta, and beta may use the same client_id', async () => {
      const alphaClient = await service('alpha', { client_id: 'shared-name', client_name: 'Alpha' });
      expectAdminError(await read('beta', 'shared-name'), 404, 'not_found');
      expectAdminError(await t.admin.request('PATCH', url('beta', 'shared-name'), { client_name: 'x' }), 404, 'not_found');
      expectAdminError(await t.admin.request('POST', url('beta', 'shared-name', '/secret')), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', url('beta', 'shared-name')), 404, 'not_found');
      expect(((await t.admin.request('GET', url('beta'))).json() as ClientBody[]).map((c) => c.client_id)).not.toContain('shared-name');
      // alpha's client is untouched, and its credentials mean nothing in beta.
      expect((await read('alpha', 'shared-name')).json().client_name).toBe('Alpha');
      expect((await clientCredentials(t.app, 'beta', alphaClient)).statusCode).toBe(401);

      const betaClient = await service('beta', { client_id: 'shared-name', client_name: 'Beta' });
      expect(betaClient.secret).not.toBe(alphaClient.secret);
      expect((await read('alpha', 'shared-name')).json().client_name).toBe('Alpha');
      expect((await read('beta', 'shared-name')).json().client_name).toBe('Beta');
      expect((await clientCredentials(t.app, 'alpha', alphaClient)).statusCode).toBe(200);
      expect((await clientCredentials(t.app, 'beta', alphaClient)).statusCode).toBe(401);
    });
  });
});
