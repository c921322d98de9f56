import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, clientCredentials, introspect } from '../support/oauth.js';
import { DEFAULT_SETTINGS, ISO_TIMESTAMP, PRIVATE_JWK_MEMBERS, SECONDS_SETTINGS, expectAdminError } from './helpers.js';

interface RealmBody {
  name: string;
  issuer: string;
  settings: Record<string, unknown>;
  created_at: string;
}

describe('admin API: realms', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const getRealm = (name: string) => t.admin.request('GET', `/realms/${name}`);
  const listNames = async (): Promise<string[]> =>
    ((await t.admin.request('GET', '/realms')).json() as RealmBody[]).map((realm) => realm.name);

  describe('the root realm', () => {
    it('always exists, with the issuer {BASE_URL}/oauth2 and the default settings', async () => {
      const response = await getRealm('root');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        name: 'root',
        issuer: `${BASE_URL}/oauth2`,
        settings: DEFAULT_SETTINGS,
        created_at: expect.stringMatching(ISO_TIMESTAMP),
      });
    });

    it('is listed', async () => {
      const response = await t.admin.request('GET', '/realms');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toContainEqual({
        name: 'root',
        issuer: `${BASE_URL}/oauth2`,
        settings: DEFAULT_SETTINGS,
        created_at: expect.stringMatching(ISO_TIMESTAMP),
      });
    });

    it('cannot be deleted: 409 conflict, and it still exists', async () => {
      expectAdminError(await t.admin.request('DELETE', '/realms/root'), 409, 'conflict');
      expect((await getRealm('root')).statusCode).toBe(200);
    });

    it('cannot be created again: 409 conflict', async () => {
      expectAdminError(await t.admin.request('POST', '/realms', { name: 'root' }), 409, 'conflict');
    });
  });

  describe('creating a realm', () => {
    it('answers 201 with its name, issuer {BASE_URL}/oauth2/{name}, every default setting and created_at', async () => {
      const before = Date.now();
      const response = await t.admin.request('POST', '/realms', { name: 'alpha' });
      expect(response.statusCode).toBe(201);
      const body = response.json() as RealmBody;
      expect(body).toEqual({
        name: 'alpha',
        issuer: 'https://auth.test/oauth2/alpha',
        settings: DEFAULT_SETTINGS,
        created_at: expect.stringMatching(ISO_TIMESTAMP),
      });
      // The database clock may differ a little from the test's.
      expect(Math.abs(Date.parse(body.created_at) - before)).toBeLessThan(60_000);

      const read = await getRealm('alpha');
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(body);
      expect(await listNames()).toContain('alpha');
    });

    it('fills the settings not given with the defaults', async () => {
      const response = await t.admin.request('POST', '/realms', {
        name: 'tuned',
        settings: { access_token_lifetime: 60, signing_alg: 'RS256', authentication: ['password', 'otp'] },
      });
      expect(response.statusCode).toBe(201);
      expect(response.json().settings).toEqual({
        ...DEFAULT_SETTINGS,
        access_token_lifetime: 60,
        signing_alg: 'RS256',
        authentication: ['password', 'otp'],
      });
    });

    it('answers a duplicate name with 409 conflict and keeps the existing realm as it was', async () => {
      await t.admin.createRealm('dup', { code_lifetime: 30 });
      const before = (await getRealm('dup')).json();
      expectAdminError(await t.admin.request('POST', '/realms', { name: 'dup', settings: { code_lifetime: 99 } }), 409, 'conflict');
      expect((await getRealm('dup')).json()).toEqual(before);
    });

    it('accepts names of 1 and 63 characters, digits first and inner hyphens', async () => {
      for (const name of ['x', 'a'.repeat(63), '0day', 'team-7', 'a--b']) {
        const response = await t.admin.request('POST', '/realms', { name });
        expect({ name, status: response.statusCode }).toEqual({ name, status: 201 });
        expect(response.json().issuer).toBe(`${BASE_URL}/oauth2/${name}`);
      }
    });

    it.each([
      ['uppercase letters', 'Alpha'],
      ['64 characters', 'a'.repeat(64)],
      ['a leading hyphen', '-alpha'],
      ['an empty name', ''],
      ['an underscore', 'a_b'],
      ['a dot', 'a.b'],
      ['a slash', 'a/b'],
      ['a space', 'a b'],
      ['a non-ASCII letter', 'ålpha'],
    ])('refuses a name with %s: 400 invalid_request, nothing created', async (_rule, name) => {
      expectAdminError(await t.admin.request('POST', '/realms', { name }), 400, 'invalid_request');
      expect(await listNames()).not.toContain(name);
    });

    it.each(['authorize', 'access_token', 'token', 'introspect', 'par', 'device', 'bc-authorize', 'connect', 'userinfo', 'login', 'consent'])(
      'refuses the endpoint path segment "%s" as a name: 400 invalid_request, nothing created',
      async (name) => {
        expectAdminError(await t.admin.request('POST', '/realms', { name }), 400, 'invalid_request');
        expect(await listNames()).not.toContain(name);
        expectAdminError(await getRealm(name), 404, 'not_found');
      },
    );

    it('refuses a missing or non-string name, and unknown top-level fields', async () => {
      expectAdminError(await t.admin.request('POST', '/realms', {}), 400, 'invalid_request');
      expectAdminError(await t.admin.request('POST', '/realms', { name: 42 }), 400, 'invalid_request');
      expectAdminError(await t.admin.request('POST', '/realms', { name: 'extra', issuer: 'https://evil.example' }), 400, 'invalid_request');
      expect(await listNames()).not.toContain('extra');
    });

    it('refuses an unknown settings key: 400 invalid_request, nothing created', async () => {
      const response = await t.admin.request('POST', '/realms', { name: 'unknownkey', settings: { token_lifetime: 60 } });
      expectAdminError(response, 400, 'invalid_request');
      expect(await listNames()).not.toContain('unknownkey');
    });

    it.each([
      ['oauth2_enabled', 'yes'],
      ['code_lifetime', '120'],
      ['access_token_lifetime', null],
      ['issue_refresh_tokens', 1],
      ['signing_alg', 'HS256'],
      ['signing_alg', 'none'],
      ['authentication', 'password'],
      ['authentication', []],
      ['authentication', ['password', 'sms']],
      ['authentication', ['password', 'password']],
      ['authentication', ['otp', 'password']],
      ['authentication', ['risk', 'password', 'otp']],
    ])('refuses %s = %j: 400 invalid_request, nothing created', async (key, value) => {
      const response = await t.admin.request('POST', '/realms', { name: 'wrongtype', settings: { [key]: value } });
      expectAdminError(response, 400, 'invalid_request');
      expect(await listNames()).not.toContain('wrongtype');
    });

    it('accepts the steps in any order that starts with password or passkey, the risk step among them', async () => {
      for (const steps of [['passkey'], ['password', 'risk', 'otp'], ['passkey', 'password'], ['password', 'otp', 'passkey']]) {
        const name = `steps-${steps.join('-')}`;
        const created = await t.admin.request('POST', '/realms', { name, settings: { authentication: steps } });
        expect(created.statusCode, created.body).toBe(201);
        expect(created.json().settings.authentication).toEqual(steps);
      }
    });

    it.each(SECONDS_SETTINGS)('refuses a zero, negative or fractional %s, and accepts 1 and 2', async (key) => {
      for (const value of [0, -1, 1.5, 0.5]) {
        const response = await t.admin.request('POST', '/realms', { name: 'badseconds', settings: { [key]: value } });
        expectAdminError(response, 400, 'invalid_request');
      }
      expect(await listNames()).not.toContain('badseconds');

      const name = `ok-${key.replaceAll('_', '-')}`;
      const created = await t.admin.request('POST', '/realms', { name, settings: { [key]: 1 } });
      expect(created.statusCode).toBe(201);
      expect(created.json().settings[key]).toBe(1);
      const patched = await t.admin.request('PATCH', `/realms/${name}`, { settings: { [key]: 2 } });
      expect(patched.statusCode).toBe(200);
      expect(patched.json().settings[key]).toBe(2);
    });

    it('gives the realm the built-in scopes openid, profile and email', async () => {
      await t.admin.createRealm('withscopes');
      const response = await t.admin.request('GET', '/realms/withscopes/scopes');
      expect(response.statusCode).toBe(200);
      const names = (response.json() as Array<{ name: string }>).map((scope) => scope.name).sort();
      expect(names).toEqual(['email', 'openid', 'profile']);
    });

    it('gives the realm a current RS256 and a current ES256 signing key, published without private parts', async () => {
      await t.admin.createRealm('withkeys');
      const keys = await t.admin.request('GET', '/realms/withkeys/keys');
      expect(keys.statusCode).toBe(200);
      const adminKeys = keys.json().keys as Array<{ kid: string; alg: string; current: boolean }>;
      expect(adminKeys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
      expect(adminKeys.every((key) => key.current === true && typeof key.kid === 'string' && key.kid.length > 0)).toBe(true);

      const jwks = await t.app.inject({ method: 'GET', url: '/oauth2/withkeys/connect/jwk_uri' });
      expect(jwks.statusCode).toBe(200);
      const published = jwks.json().keys as Array<Record<string, unknown>>;
      expect(published).toHaveLength(2);
      for (const key of published) {
        expect(key).toMatchObject({ kid: expect.any(String), alg: expect.stringMatching(/^(RS256|ES256)$/), use: 'sig' });
        for (const member of PRIVATE_JWK_MEMBERS) expect(key).not.toHaveProperty(member);
      }
      expect(published.map((key) => key.kty).sort()).toEqual(['EC', 'RSA']);
      expect(published.map((key) => key.kid).sort()).toEqual(adminKeys.map((key) => key.kid).sort());

      // Each realm has keys of its own.
      const rootJwks = (await t.app.inject({ method: 'GET', url: '/oauth2/connect/jwk_uri' })).json().keys as Array<{ kid: string }>;
      expect(rootJwks).toHaveLength(2);
      for (const key of rootJwks) expect(adminKeys.map((k) => k.kid)).not.toContain(key.kid);
    });
  });

  describe('reading and changing a realm', () => {
    it('answers an unknown realm with 404 not_found', async () => {
      expectAdminError(await getRealm('nosuchrealm'), 404, 'not_found');
      expectAdminError(await t.admin.request('PATCH', '/realms/nosuchrealm', { settings: { code_lifetime: 5 } }), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', '/realms/nosuchrealm'), 404, 'not_found');
      expect(await listNames()).not.toContain('nosuchrealm');
    });

    it('PATCH merges settings: only the keys sent change, and a later PATCH keeps the earlier change', async () => {
      await t.admin.createRealm('merge', { par_lifetime: 45 });
      const first = await t.admin.request('PATCH', '/realms/merge', { settings: { code_lifetime: 1 } });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({
        name: 'merge',
        issuer: `${BASE_URL}/oauth2/merge`,
        settings: { ...DEFAULT_SETTINGS, par_lifetime: 45, code_lifetime: 1 },
        created_at: expect.stringMatching(ISO_TIMESTAMP),
      });

      const second = await t.admin.request('PATCH', '/realms/merge', { settings: { require_pkce: true, code_lifetime: 2 } });
      expect(second.statusCode).toBe(200);
      const third = await t.admin.request('PATCH', '/realms/merge', { settings: { access_token_lifetime: 2 } });
      const expected = { ...DEFAULT_SETTINGS, par_lifetime: 45, code_lifetime: 2, require_pkce: true, access_token_lifetime: 2 };
      expect(third.json().settings).toEqual(expected);
      expect((await getRealm('merge')).json().settings).toEqual(expected);
    });

    it('PATCH with an invalid or unknown setting answers 400 invalid_request and changes nothing', async () => {
      await t.admin.createRealm('stable', { code_lifetime: 30 });
      const before = (await getRealm('stable')).json();
      for (const body of [
        { settings: { code_lifetime: 0 } },
        { settings: { code_lifetime: 60, access_token_lifetime: -5 } }, // one bad value spoils the whole patch
        { settings: { code_lifetime: 60, no_such_setting: true } },
        { settings: { device_poll_interval: 2.5 } },
        { settings: { stateless_tokens: 'true' } },
        { settings: 'code_lifetime=60' },
        { settings: { code_lifetime: 60 }, name: 'renamed' },
        {},
      ]) {
        expectAdminError(await t.admin.request('PATCH', '/realms/stable', body), 400, 'invalid_request');
      }
      expect((await getRealm('stable')).json()).toEqual(before);
    });

    it('a realm whose OAuth 2.0 provider is disabled answers 404 on its endpoints but stays managed by the admin API', async () => {
      await t.admin.createRealm('switch');
      expect((await t.app.inject({ method: 'GET', url: '/oauth2/switch/connect/jwk_uri' })).statusCode).toBe(200);
      const off = await t.admin.request('PATCH', '/realms/switch', { settings: { oauth2_enabled: false } });
      expect(off.statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/oauth2/switch/connect/jwk_uri' })).statusCode).toBe(404);
      expect((await t.admin.request('GET', '/realms/switch/scopes')).statusCode).toBe(200);
      await t.admin.request('PATCH', '/realms/switch', { settings: { oauth2_enabled: true } });
      expect((await t.app.inject({ method: 'GET', url: '/oauth2/switch/connect/jwk_uri' })).statusCode).toBe(200);
    });
  });

  describe('deleting a realm', () => {
    it('answers 204, then 404 on every read, and drops it from the list', async () => {
      await t.admin.createRealm('doomed');
      const response = await t.admin.request('DELETE', '/realms/doomed');
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expectAdminError(await getRealm('doomed'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', '/realms/doomed/clients'), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', '/realms/doomed'), 404, 'not_found');
      expect(await listNames()).not.toContain('doomed');
      expect((await t.app.inject({ method: 'GET', url: '/oauth2/doomed/connect/jwk_uri' })).statusCode).toBe(404);
    });

    it('removes its clients, users, scopes, keys and tokens: a realm re-created with its name has none of them', async () => {
      await t.admin.createRealm('phoenix');
      const old: ServiceClient = await t.admin.serviceClient('phoenix', 'api:read', { client_id: 'svc' });
      await t.admin.createClient('phoenix', { client_id: 'reader', grant_types: ['client_credentials'], introspect_any_token: true });
      expect((await t.admin.request('POST', '/realms/phoenix/users', { username: 'ann', password: 'correct horse' })).statusCode).toBe(201);
      const oldKids = ((await t.admin.request('GET', '/realms/phoenix/keys')).json().keys as Array<{ kid: string }>).map((k) => k.kid);
      // The client authenticates once, so that it sits in the client cache when its realm goes.
      const issued = await clientCredentials(t.app, 'phoenix', old);
      expect(issued.statusCode).toBe(200);
      const oldToken = issued.json().access_token as string;

      expect((await t.admin.request('DELETE', '/realms/phoenix')).statusCode).toBe(204);
      expect((await t.admin.request('POST', '/realms', { name: 'phoenix' })).statusCode).toBe(201);

      expect((await t.admin.request('GET', '/realms/phoenix/clients')).json()).toEqual([]);
      expectAdminError(await t.admin.request('GET', '/realms/phoenix/clients/svc'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', '/realms/phoenix/users/ann'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', '/realms/phoenix/scopes/api:read'), 404, 'not_found');
      const scopes = (await t.admin.request('GET', '/realms/phoenix/scopes')).json() as Array<{ name: string }>;
      expect(scopes.map((scope) => scope.name).sort()).toEqual(['email', 'openid', 'profile']);
      const newKids = ((await t.admin.request('GET', '/realms/phoenix/keys')).json().keys as Array<{ kid: string }>).map((k) => k.kid);
      expect(newKids).toHaveLength(2);
      for (const kid of oldKids) expect(newKids).not.toContain(kid);

      // The old credentials get no token from the new realm.
      const refused = await clientCredentials(t.app, 'phoenix', old);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });

      // Even a new client that takes the old client_id does not inherit the old tokens.
      const reborn: ServiceClient = await t.admin.serviceClient('phoenix', '', { client_id: 'svc', introspect_any_token: true });
      const lookup = await introspect(t.app, 'phoenix', reborn, oldToken);
      expect(lookup.statusCode).toBe(200);
      expect(lookup.json()).toEqual({ active: false });
      const leftovers = await t.store.db.query<{ n: number }>(
        `SELECT ((SELECT count(*) FROM tokens WHERE realm = $1) + (SELECT count(*) FROM users WHERE realm = $1))::int AS n`,
        ['phoenix'],
      );
      expect(leftovers.rows[0]!.n).toBe(0);
    });
  });
});
