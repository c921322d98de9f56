import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_HASHING } from '../../src/authn/password-hashing.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { ISO_TIMESTAMP, PRIVATE_JWK_MEMBERS, expectAdminError } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ARGON2ID_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';

/** The algorithm, version and cost parameters of an encoded argon2 hash, whatever their order. */
function argon2Parameters(encoded: string): Record<string, string> {
  const [, id, version, params] = encoded.split('$');
  return {
    id: id!,
    ...Object.fromEntries([version!, ...params!.split(',')].map((pair) => pair.split('=') as [string, string])),
  };
}

interface UserBody {
  username: string;
  sub: string;
  claims: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
interface AdminKey {
  kid: string;
  alg: string;
  current: boolean;
  retired_at?: string;
}

describe('admin API: users, scopes and signing keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ passwordHashing: PASSWORD_HASHING }); // the stored hashes' parameters are checked
    await t.admin.createRealm('alpha');
    await t.admin.createRealm('beta');
  });
  afterAll(() => t.close());

  describe('users', () => {
    const userUrl = (username?: string, realm = 'alpha') =>
      `/realms/${realm}/users${username === undefined ? '' : `/${encodeURIComponent(username)}`}`;
    const createUser = (body: Record<string, unknown>, realm = 'alpha') => t.admin.request('POST', userUrl(undefined, realm), body);
    const storedHash = async (username: string, realm = 'alpha'): Promise<string | null> => {
      const result = await t.store.db.query<{ password_hash: string | null }>(
        'SELECT password_hash FROM users WHERE realm = $1 AND username = $2',
        [realm, username],
      );
      return result.rows[0]?.password_hash ?? null;
    };
    const userCount = async (realm = 'alpha'): Promise<number> =>
      (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE realm = $1', [realm])).rows[0]!.n;

    it('POST answers 201 {username, sub, claims, created_at, updated_at, enabled} and no password or hash', async () => {
      const password = 'hunter2-hunter2';
      const response = await createUser({ username: 'alice', password, claims: { email: 'alice@example.com', email_verified: true } });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({
        username: 'alice',
        sub: expect.stringMatching(UUID),
        claims: { email: 'alice@example.com', email_verified: true },
        created_at: expect.stringMatching(ISO_TIMESTAMP),
        updated_at: expect.stringMatching(ISO_TIMESTAMP),
        enabled: true,
        identities: [],
        roles: [],
        groups: [],
        effective_roles: [],
      });
      expect(response.body).not.toContain(password);
      expect(response.body).not.toContain('$argon2');

      const read = await t.admin.request('GET', userUrl('alice'));
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(response.json());
      expect(read.body).not.toContain(password);
      expect(read.body).not.toContain('$argon2');
    });

    it('gives a user without claims an empty claims object, and each user its own sub', async () => {
      const first = await createUser({ username: 'plain', password: 'password-1' });
      const second = await createUser({ username: 'plain2', password: 'password-1' });
      expect(first.statusCode).toBe(201);
      expect(first.json().claims).toEqual({});
      expect(first.json().sub).not.toBe(second.json().sub);
    });

    it('stores the password only as an argon2id hash (v=19, m=19456, t=2, p=1) of it', async () => {
      const password = 'correct horse battery staple';
      expect((await createUser({ username: 'hashed', password })).statusCode).toBe(201);
      const hash = (await storedHash('hashed'))!;
      expect(argon2Parameters(hash)).toEqual({ id: 'argon2id', v: '19', m: '19456', t: '2', p: '1' });
      expect(hash).not.toContain(password);
      expect(await argon2.verify(hash, password)).toBe(true);
      const dump = await t.store.db.query<{ row: string }>('SELECT u::text AS row FROM users u');
      for (const { row } of dump.rows) expect(row).not.toContain(password);
    });

    it('writes the hash in the PHC string format, parameters in the order m,t,p, as other argon2 verifiers require', async () => {
      expect((await createUser({ username: 'phc', password: 'password-phc' })).statusCode).toBe(201);
      const hash = (await storedHash('phc'))!;
      expect(hash.slice(0, ARGON2ID_PREFIX.length)).toBe(ARGON2ID_PREFIX);
      expect(hash.slice(ARGON2ID_PREFIX.length)).toMatch(/^[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/); // salt $ hash, unpadded base64
    });

    it('answers a taken username with 409 conflict, also when it differs only in case, and keeps the first user', async () => {
      const created = await createUser({ username: 'Bob', password: 'first-password', claims: { name: 'Bob' } });
      expect(created.statusCode).toBe(201);
      const hash = await storedHash('Bob');
      for (const username of ['Bob', 'bob', 'BOB']) {
        expectAdminError(await createUser({ username, password: 'second-password', claims: { name: 'Impostor' } }), 409, 'conflict');
      }
      expect((await t.admin.request('GET', userUrl('Bob'))).json()).toEqual(created.json());
      expect(await storedHash('Bob')).toBe(hash);
    });

    it('refuses a password shorter than 8 characters and accepts one of 8', async () => {
      expectAdminError(await createUser({ username: 'shorty', password: '1234567' }), 400, 'invalid_request');
      expectAdminError(await t.admin.request('GET', userUrl('shorty')), 404, 'not_found');
      expect((await createUser({ username: 'shorty', password: 'k2#b9!qz' })).statusCode).toBe(201);
    });

    it.each(['sub', 'iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'auth_time', 'nonce', 'acr', 'amr', 'azp', 'cnf', 'act', 'scope', 'client_id'])(
      'refuses the reserved claim "%s": 400 invalid_request, nothing created',
      async (claim) => {
        const before = await userCount();
        const response = await createUser({ username: `reserved-${claim}`, password: 'password-1', claims: { name: 'X', [claim]: 'x' } });
        expectAdminError(response, 400, 'invalid_request');
        expect(await userCount()).toBe(before);
      },
    );

    it.each([
      ['no username', { password: 'password-1' }],
      ['no password', { username: 'nopass' }],
      ['an empty username', { username: '', password: 'password-1' }],
      ['a username with a space', { username: 'a b', password: 'password-1' }],
      ['a username with a slash', { username: 'a/b', password: 'password-1' }],
      ['a non-string password', { username: 'numeric', password: 12345678 }],
      ['claims that are not an object', { username: 'arr', password: 'password-1', claims: ['x'] }],
      ['an unknown field', { username: 'extra', password: 'password-1', password_hash: '$argon2id$v=19$x' }],
    ])('refuses %s: 400 invalid_request, nothing created', async (_rule, body) => {
      const before = await userCount();
      expectAdminError(await createUser(body), 400, 'invalid_request');
      expect(await userCount()).toBe(before);
    });

    it('PATCH of the password changes the stored hash to one of the new password, and nothing else', async () => {
      const created = (await createUser({ username: 'carol', password: 'old-password', claims: { name: 'Carol' } })).json() as UserBody;
      const oldHash = (await storedHash('carol'))!;
      const response = await t.admin.request('PATCH', userUrl('carol'), { password: 'new-password' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ...created, updated_at: expect.stringMatching(ISO_TIMESTAMP) });
      expect(response.body).not.toContain('new-password');
      expect(response.body).not.toContain('$argon2');

      const newHash = (await storedHash('carol'))!;
      expect(newHash).not.toBe(oldHash);
      expect(argon2Parameters(newHash)).toEqual({ id: 'argon2id', v: '19', m: '19456', t: '2', p: '1' });
      expect(await argon2.verify(newHash, 'new-password')).toBe(true);
      expect(await argon2.verify(newHash, 'old-password')).toBe(false);
    });

    it('PATCH of claims merges: sent claims change, null removes one, the others stay', async () => {
      await createUser({ username: 'dave', password: 'password-1', claims: { name: 'Dave', email: 'dave@example.com', locale: 'en' } });
      const hash = await storedHash('dave');
      const first = await t.admin.request('PATCH', userUrl('dave'), { claims: { name: 'David', email: null, nickname: 'D' } });
      expect(first.statusCode).toBe(200);
      expect(first.json().claims).toEqual({ name: 'David', locale: 'en', nickname: 'D' });
      const second = await t.admin.request('PATCH', userUrl('dave'), { claims: { locale: 'fr' } });
      expect(second.json().claims).toEqual({ name: 'David', locale: 'fr', nickname: 'D' });
      expect((await t.admin.request('GET', userUrl('dave'))).json().claims).toEqual({ name: 'David', locale: 'fr', nickname: 'D' });
      expect(await storedHash('dave')).toBe(hash); // a claims change keeps the password
    });

    it('PATCH of claims leaves the claims not sent exactly as they were, nested values included', async () => {
      const address = { street_address: '1 Main St', locality: 'Springfield', region: null, country: 'US' };
      await createUser({ username: 'erin', password: 'password-1', claims: { address, tags: ['a', null] } });
      const response = await t.admin.request('PATCH', userUrl('erin'), { claims: { nickname: 'E' } });
      expect(response.statusCode).toBe(200);
      expect(response.json().claims).toEqual({ address, tags: ['a', null], nickname: 'E' });
    });

    it('PATCH that breaks a rule answers 400 invalid_request and changes nothing', async () => {
      const created = (await createUser({ username: 'frank', password: 'password-1', claims: { name: 'Frank' } })).json();
      const hash = await storedHash('frank');
      for (const patch of [
        { claims: { sub: 'someone-else' } },
        { claims: { name: 'Frankie', iss: 'https://evil.example' } },
        { password: 'short' },
        { password: 'long-enough', claims: { exp: 1 } },
        { username: 'renamed' },
      ]) {
        expectAdminError(await t.admin.request('PATCH', userUrl('frank'), patch), 400, 'invalid_request');
      }
      expect((await t.admin.request('GET', userUrl('frank'))).json()).toEqual(created);
      expect(await storedHash('frank')).toBe(hash);
    });

    it('answers an unknown user with 404 not_found on GET, PATCH and DELETE', async () => {
      expectAdminError(await t.admin.request('GET', userUrl('nobody')), 404, 'not_found');
      expectAdminError(await t.admin.request('PATCH', userUrl('nobody'), { claims: { name: 'x' } }), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', userUrl('nobody')), 404, 'not_found');
    });

    it('DELETE answers 204, then 404; the username can then be taken by a new user with a new sub', async () => {
      const created = (await createUser({ username: 'gone', password: 'password-1' })).json() as UserBody;
      const response = await t.admin.request('DELETE', userUrl('gone'));
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expectAdminError(await t.admin.request('GET', userUrl('gone')), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', userUrl('gone')), 404, 'not_found');
      expect(await storedHash('gone')).toBeNull();
      const again = await createUser({ username: 'gone', password: 'password-2' });
      expect(again.statusCode).toBe(201);
      expect(again.json().sub).not.toBe(created.sub);
    });

    it('keeps realms apart: a user of alpha is 404 under beta, and beta may have the same username', async () => {
      await createUser({ username: 'henry', password: 'password-1', claims: { name: 'Alpha Henry' } });
      expectAdminError(await t.admin.request('GET', userUrl('henry', 'beta')), 404, 'not_found');
      expectAdminError(await t.admin.request('PATCH', userUrl('henry', 'beta'), { claims: { name: 'x' } }), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', userUrl('henry', 'beta')), 404, 'not_found');
      expect((await createUser({ username: 'henry', password: 'password-2', claims: { name: 'Beta Henry' } }, 'beta')).statusCode).toBe(201);
      expect((await t.admin.request('GET', userUrl('henry'))).json().claims).toEqual({ name: 'Alpha Henry' });
    });

    it('answers 404 not_found on the user routes of an unknown realm', async () => {
      expectAdminError(await createUser({ username: 'x', password: 'password-1' }, 'nowhere'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', userUrl('x', 'nowhere')), 404, 'not_found');
      expectAdminError(await t.admin.request('PATCH', userUrl('x', 'nowhere'), { claims: {} }), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', userUrl('x', 'nowhere')), 404, 'not_found');
    });
  });

  describe('scopes', () => {
    const scopeUrl = (name?: string, realm = 'alpha') =>
      `/realms/${realm}/scopes${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
    const putScope = (name: string, body: unknown, realm = 'alpha') => t.admin.request('PUT', scopeUrl(name, realm), body);
    const listScopes = async (realm = 'alpha') =>
      (await t.admin.request('GET', scopeUrl(undefined, realm))).json() as Array<{ name: string; description: string }>;

    it('lists openid, profile and email in every realm, each as {name, description}', async () => {
      for (const realm of ['root', 'alpha', 'beta']) {
        const response = await t.admin.request('GET', scopeUrl(undefined, realm));
        expect(response.statusCode).toBe(200);
        const scopes = response.json() as Array<Record<string, unknown>>;
        for (const name of ['openid', 'profile', 'email']) {
          expect(scopes).toContainEqual({ name, description: expect.any(String) });
        }
      }
    });

    it('PUT creates a scope: 201 {name, description}; PUT again updates it: 200', async () => {
      const created = await putScope('reports:read', { description: 'Read your reports' });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({ name: 'reports:read', description: 'Read your reports' });
      expect((await t.admin.request('GET', scopeUrl('reports:read'))).json()).toEqual(created.json());

      const updated = await putScope('reports:read', { description: 'Read and list your reports' });
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toEqual({ name: 'reports:read', description: 'Read and list your reports' });
      expect((await t.admin.request('GET', scopeUrl('reports:read'))).json()).toEqual(updated.json());
      expect((await listScopes()).filter((scope) => scope.name === 'reports:read')).toEqual([updated.json()]);
    });

    it('PUT of a built-in scope updates its description: 200', async () => {
      const response = await putScope('profile', { description: 'Your public profile' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ name: 'profile', description: 'Your public profile' });
    });

    it.each([
      ['a double quote', 'say"hi'],
      ['a backslash', 'back\\slash'],
      ['a space', 'two words'],
      ['a non-ASCII character', 'café'],
    ])('refuses a scope name with %s: 400 invalid_request, nothing created', async (_rule, name) => {
      const response = await putScope(name, { description: 'x' });
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toMatch(/^name: /);
      expect((await listScopes()).map((scope) => scope.name)).not.toContain(name);
    });

    it('refuses a body without a string description, or with other fields', async () => {
      for (const body of [{}, { description: 42 }, { description: 'x', name: 'other' }]) {
        expectAdminError(await putScope('badbody', body), 400, 'invalid_request');
      }
      expectAdminError(await t.admin.request('GET', scopeUrl('badbody')), 404, 'not_found');
    });

    it('refuses to delete a built-in scope: 409 conflict, and it stays', async () => {
      for (const name of ['openid', 'profile', 'email']) {
        expectAdminError(await t.admin.request('DELETE', scopeUrl(name)), 409, 'conflict');
      }
      const names = (await listScopes()).map((scope) => scope.name);
      expect(names).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    });

    it('refuses to delete a scope a client uses: 409 conflict; once unused it can go', async () => {
      expect((await putScope('billing', { description: 'Billing' })).statusCode).toBe(201);
      await t.admin.createClient('alpha', { client_id: 'biller', grant_types: ['client_credentials'], scope: 'openid billing' });
      expectAdminError(await t.admin.request('DELETE', scopeUrl('billing')), 409, 'conflict');
      expect((await t.admin.request('GET', scopeUrl('billing'))).statusCode).toBe(200);

      expect((await t.admin.request('PATCH', '/realms/alpha/clients/biller', { scope: 'openid' })).statusCode).toBe(200);
      expect((await t.admin.request('DELETE', scopeUrl('billing'))).statusCode).toBe(204);
    });

    it('a client of another realm using a scope of the same name does not block deletion', async () => {
      expect((await putScope('shared', { description: 'x' }, 'alpha')).statusCode).toBe(201);
      expect((await putScope('shared', { description: 'x' }, 'beta')).statusCode).toBe(201);
      await t.admin.createClient('beta', { grant_types: ['client_credentials'], scope: 'shared' });
      expect((await t.admin.request('DELETE', scopeUrl('shared', 'alpha'))).statusCode).toBe(204);
      expect((await t.admin.request('GET', scopeUrl('shared', 'beta'))).statusCode).toBe(200);
    });

    it('DELETE of an unused scope answers 204, then 404', async () => {
      expect((await putScope('temporary', { description: 'x' })).statusCode).toBe(201);
      const response = await t.admin.request('DELETE', scopeUrl('temporary'));
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expectAdminError(await t.admin.request('GET', scopeUrl('temporary')), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', scopeUrl('temporary')), 404, 'not_found');
      expect((await listScopes()).map((scope) => scope.name)).not.toContain('temporary');
    });

    it('keeps realms apart: a scope of alpha is 404 under beta', async () => {
      expect((await putScope('alpha-only', { description: 'x' })).statusCode).toBe(201);
      expectAdminError(await t.admin.request('GET', scopeUrl('alpha-only', 'beta')), 404, 'not_found');
      expect((await listScopes('beta')).map((scope) => scope.name)).not.toContain('alpha-only');
    });

    it('answers 404 not_found on the scope routes of an unknown realm', async () => {
      expectAdminError(await t.admin.request('GET', scopeUrl(undefined, 'nowhere')), 404, 'not_found');
      expectAdminError(await putScope('x', { description: 'x' }, 'nowhere'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', scopeUrl('openid', 'nowhere')), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', scopeUrl('x', 'nowhere')), 404, 'not_found');
    });
  });

  describe('signing keys', () => {
    const adminKeys = async (realm: string): Promise<AdminKey[]> => {
      const response = await t.admin.request('GET', `/realms/${realm}/keys`);
      expect(response.statusCode).toBe(200);
      return response.json().keys as AdminKey[];
    };
    const jwks = async (realm: string): Promise<Array<Record<string, unknown>>> => {
      const response = await t.app.inject({ method: 'GET', url: realm === 'root' ? '/oauth2/connect/jwk_uri' : `/oauth2/${realm}/connect/jwk_uri` });
      expect(response.statusCode).toBe(200);
      return response.json().keys as Array<Record<string, unknown>>;
    };
    const rotate = async (realm: string): Promise<Array<{ kid: string; alg: string }>> => {
      const response = await t.admin.request('POST', `/realms/${realm}/keys/rotate`);
      expect(response.statusCode).toBe(200);
      const body = response.json() as { keys: Array<{ kid: string; alg: string }> };
      expect(Object.keys(body)).toEqual(['keys']);
      for (const key of body.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'kid']);
      return body.keys;
    };

    it('rotation answers 200 {keys: [{kid, alg}]} with new RS256 and ES256 keys, which GET …/keys marks current', async () => {
      await t.admin.createRealm('rotating');
      const before = await adminKeys('rotating');
      expect(before.map((key) => [key.alg, key.current]).sort()).toEqual([['ES256', true], ['RS256', true]]);

      const rotated = await rotate('rotating');
      expect(rotated.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
      for (const key of rotated) expect(before.map((old) => old.kid)).not.toContain(key.kid);
      expect(rotated[0]!.kid).not.toBe(rotated[1]!.kid);

      const after = await adminKeys('rotating');
      expect(after).toHaveLength(4);
      const current = after.filter((key) => key.current);
      expect(current.map((key) => key.kid).sort()).toEqual(rotated.map((key) => key.kid).sort());
      const previous = after.filter((key) => !key.current);
      expect(previous.map((key) => key.kid).sort()).toEqual(before.map((key) => key.kid).sort());
      for (const key of previous) expect(key.retired_at).toMatch(ISO_TIMESTAMP);
    });

    it('the JWKS publishes the new and the previous keys after a rotation, with no private parts', async () => {
      await t.admin.createRealm('published');
      const before = (await jwks('published')).map((key) => key.kid);
      expect(before).toHaveLength(2);
      const rotated = (await rotate('published')).map((key) => key.kid);

      const after = await jwks('published');
      expect(after.map((key) => key.kid).sort()).toEqual([...before, ...rotated].sort());
      for (const key of after) {
        expect(key).toMatchObject({ kid: expect.any(String), alg: expect.stringMatching(/^(RS256|ES256)$/), use: 'sig' });
        for (const member of PRIVATE_JWK_MEMBERS) expect(key).not.toHaveProperty(member);
      }
    });

    it('a second rotation retires the keys the first made current, and the first keys stay published', async () => {
      await t.admin.createRealm('twice');
      const original = (await adminKeys('twice')).map((key) => key.kid);
      const first = (await rotate('twice')).map((key) => key.kid);
      const second = (await rotate('twice')).map((key) => key.kid);
      const keys = await adminKeys('twice');
      expect(keys.filter((key) => key.current).map((key) => key.kid).sort()).toEqual([...second].sort());
      expect(keys.filter((key) => !key.current).map((key) => key.kid).sort()).toEqual([...original, ...first].sort());
      expect((await jwks('twice')).map((key) => key.kid).sort()).toEqual([...original, ...first, ...second].sort());
    });

    it('rotating one realm leaves the keys of another realm alone', async () => {
      const beforeBeta = await adminKeys('beta');
      await rotate('alpha');
      expect(await adminKeys('beta')).toEqual(beforeBeta);
      const betaKids = (await jwks('beta')).map((key) => key.kid);
      for (const key of await adminKeys('alpha')) expect(betaKids).not.toContain(key.kid);
    });

    it('answers 404 not_found for the keys of an unknown realm', async () => {
      expectAdminError(await t.admin.request('GET', '/realms/nowhere/keys'), 404, 'not_found');
      expectAdminError(await t.admin.request('POST', '/realms/nowhere/keys/rotate'), 404, 'not_found');
    });
  });
});
