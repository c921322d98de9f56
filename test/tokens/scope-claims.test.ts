import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { type ServiceClient, accessToken, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { Invalidations } from '../support/invalidations.js';
import { type TestUser, createUser, passwordTokens, refreshGrant, tokenRequest } from '../support/users.js';
import { expectAdminError } from '../admin/helpers.js';

type Json = Record<string, unknown>;

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const ALL_TOKENS = ['id_token', 'access_token', 'userinfo', 'introspection'];

/** The claims each test scope maps (CONTRACT.md §10 "Claims from scopes"). */
const SCOPES = {
  authz: [
    { name: 'roles', source: 'roles', tokens: ALL_TOKENS },
    { name: 'groups', source: 'groups', tokens: ['id_token', 'userinfo'] },
  ],
  org: [
    { name: 'department', source: 'attribute:department', tokens: ['access_token', 'introspection'] },
    { name: 'login', source: 'username', tokens: ['id_token'] },
    { name: 'mail', source: 'email', tokens: ['userinfo', 'introspection'] },
  ],
};

/** The claims a JWT carries whatever its scopes map. */
const OWN_ID_TOKEN_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'auth_time', 'at_hash', 'amr', 'acr', 'sid'];

function userinfo(app: FastifyInstance, realm: string, token: string) {
  return app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });
}

/**
 * One realm as the tests use it: roles `auditor`, `ledger:read`, `ledger:write`; the group
 * `bookkeepers` gives the two ledger roles; carol holds `auditor` herself and is a bookkeeper,
 * dave holds nothing and has no email. The scopes `authz` and `org` map claims, `plain` none.
 */
async function setUpRealm(admin: AdminClient, realm: string, settings: Json = {}) {
  await admin.createRealm(realm, { rate_limit_token: null, ...settings });
  const put = async (url: string, body: unknown = {}) => {
    const response = await admin.request('PUT', `/realms/${realm}${url}`, body);
    if (response.statusCode >= 300) throw new Error(`PUT ${url}: ${response.statusCode} ${response.body}`);
  };
  for (const role of ['auditor', 'ledger:read', 'ledger:write']) await put(`/roles/${role}`);
  await put('/groups/bookkeepers', { roles: ['ledger:write', 'ledger:read'] });
  for (const [name, claims] of Object.entries(SCOPES)) await put(`/scopes/${name}`, { description: name, claims });
  await put('/scopes/plain', { description: 'No claims' });
  const carol = await createUser(admin, realm, 'carol', { claims: { email: 'carol@example.com', department: 'Finance', name: 'Carol' } });
  const dave = await createUser(admin, realm, 'dave');
  await put('/users/carol/roles/auditor');
  await put('/users/carol/groups/bookkeepers');
  const created = await admin.createClient(realm, {
    grant_types: ['password', 'refresh_token', EXCHANGE],
    scope: 'openid profile authz org plain',
  });
  const web: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
  const service = await admin.serviceClient(realm, '');
  await admin.request('PATCH', `/realms/${realm}/clients/${service.clientId}`, { scope: 'authz org' });
  return { carol, dave, web, service };
}

describe('claims from scopes', () => {
  let t: TestApp;
  let invalidations: Invalidations;
  /** `jwt`: stateless access tokens; `opaque`: stored ones. */
  const realms: Record<'jwt' | 'opaque', Awaited<ReturnType<typeof setUpRealm>>> = {} as never;

  const tokensOf = (realm: 'jwt' | 'opaque', user: TestUser, scope: string) => passwordTokens(t.app, realm, realms[realm].web, user, scope);
  const introspected = async (realm: string, client: ServiceClient, token: string): Promise<Json> => {
    const response = await introspect(t.app, realm, client, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Json;
  };

  beforeAll(async () => {
    invalidations = Invalidations.watch();
    t = await startTestApp();
    realms.jwt = await setUpRealm(t.admin, 'jwt', { stateless_tokens: true });
    realms.opaque = await setUpRealm(t.admin, 'opaque');
  });
  afterAll(async () => {
    invalidations?.stop();
    await t?.close();
  });

  describe('each kind of token carries what its scopes map for it', () => {
    it.each(['jwt', 'opaque'] as const)('the ID token (%s): roles (her own and her group\'s), groups, username; no claim mapped elsewhere only', async (realm) => {
      const { id_token: idToken } = await tokensOf(realm, realms[realm].carol, 'openid authz org');
      const claims = decodeJwt(idToken!);
      expect(claims).toMatchObject({
        sub: realms[realm].carol.sub,
        roles: ['auditor', 'ledger:read', 'ledger:write'],
        groups: ['bookkeepers'],
        login: 'carol',
      });
      expect(claims).not.toHaveProperty('department');
      expect(claims).not.toHaveProperty('mail');
    });

    it('the JWT access token: roles and the department attribute; not the ID token\'s or UserInfo\'s alone', async () => {
      const { access_token: token, scope } = await tokensOf('jwt', realms.jwt.carol, 'openid authz org');
      const claims = decodeJwt(token);
      expect(scope).toBe('openid authz org');
      expect(claims).toMatchObject({ roles: ['auditor', 'ledger:read', 'ledger:write'], department: 'Finance', sub: realms.jwt.carol.sub, scope });
      for (const name of ['groups', 'login', 'mail']) expect(claims).not.toHaveProperty(name);
    });

    it.each(['jwt', 'opaque'] as const)('UserInfo (%s): roles, groups and mail beside the standard claims', async (realm) => {
      const { access_token: token } = await tokensOf(realm, realms[realm].carol, 'openid profile authz org');
      const response = await userinfo(t.app, realm, token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        sub: realms[realm].carol.sub,
        name: 'Carol',
        preferred_username: 'carol',
        updated_at: expect.any(Number),
        roles: ['auditor', 'ledger:read', 'ledger:write'],
        groups: ['bookkeepers'],
        mail: 'carol@example.com',
      });
    });

    it.each(['jwt', 'opaque'] as const)('introspection (%s): roles, department and mail beside RFC 7662\'s members', async (realm) => {
      const { access_token: token, refresh_token: refreshToken } = await tokensOf(realm, realms[realm].carol, 'openid authz org');
      const expected = { roles: ['auditor', 'ledger:read', 'ledger:write'], department: 'Finance', mail: 'carol@example.com' };
      const answer = await introspected(realm, realms[realm].web, token);
      expect(answer).toMatchObject({ active: true, sub: realms[realm].carol.sub, username: 'carol', token_type: 'Bearer', ...expected });
      expect(answer).not.toHaveProperty('groups');
      expect(await introspected(realm, realms[realm].web, refreshToken!)).toMatchObject({ active: true, token_type: 'refresh_token', ...expected });
    });

    it('a token whose scope holds no mapping scope carries none', async () => {
      const { id_token: idToken, access_token: token } = await tokensOf('jwt', realms.jwt.carol, 'openid plain');
      for (const claims of [decodeJwt(idToken!), decodeJwt(token), await introspected('jwt', realms.jwt.web, token)]) {
        for (const name of ['roles', 'groups', 'login', 'department', 'mail']) expect(claims).not.toHaveProperty(name);
      }
      expect(Object.keys(decodeJwt(idToken!)).sort()).toEqual([...OWN_ID_TOKEN_CLAIMS].sort());
    });

    it('a claim whose value the person lacks is left out; a person without roles has an empty list', async () => {
      const { id_token: idToken, access_token: token } = await tokensOf('jwt', realms.jwt.dave, 'openid authz org');
      expect(decodeJwt(idToken!)).toMatchObject({ roles: [], groups: [], login: 'dave' });
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({ roles: [] });
      expect(claims).not.toHaveProperty('department');
      expect(await introspected('jwt', realms.jwt.web, token)).not.toHaveProperty('mail');
    });

    it('a token exchanged for the person\'s token carries their claims too; a client\'s own token carries none', async () => {
      const { access_token: subjectToken } = await tokensOf('jwt', realms.jwt.carol, 'authz org');
      const exchanged = await tokenRequest(t.app, 'jwt', realms.jwt.web, { grant_type: EXCHANGE, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE });
      expect(exchanged.statusCode, exchanged.body).toBe(200);
      expect(decodeJwt(exchanged.json().access_token)).toMatchObject({ sub: realms.jwt.carol.sub, roles: ['auditor', 'ledger:read', 'ledger:write'], department: 'Finance' });

      for (const realm of ['jwt', 'opaque'] as const) {
        const token = await accessToken(t.app, realm, realms[realm].service, 'authz org');
        const claims = realm === 'jwt' ? decodeJwt(token) : await introspected(realm, realms[realm].service, token);
        for (const name of ['roles', 'groups', 'login', 'department', 'mail']) expect(claims).not.toHaveProperty(name);
      }
    });
  });

  describe('a change shows in the next token', () => {
    it('a role given or taken, a group\'s roles, a role deleted: the next token (and a refresh\'s) shows it', async () => {
      const realm = 'jwt';
      const { carol, web } = realms[realm];
      const roles = async () => decodeJwt((await tokensOf(realm, carol, 'openid authz')).access_token).roles;
      const admin = (method: 'PUT' | 'DELETE', url: string, body?: unknown) => t.admin.request(method, `/realms/${realm}${url}`, body);

      const before = await tokensOf(realm, carol, 'openid authz');
      expect((await admin('PUT', '/roles/approver')).statusCode).toBe(201);
      expect((await admin('PUT', '/users/carol/roles/approver')).statusCode).toBe(204);
      expect(await roles()).toEqual(['approver', 'auditor', 'ledger:read', 'ledger:write']);
      const refreshed = (await refreshGrant(t.app, realm, web, before.refresh_token!)).json();
      expect(decodeJwt(refreshed.access_token).roles).toEqual(['approver', 'auditor', 'ledger:read', 'ledger:write']);
      expect(decodeJwt(refreshed.id_token).roles).toEqual(['approver', 'auditor', 'ledger:read', 'ledger:write']);

      expect((await admin('PUT', '/groups/bookkeepers', { roles: ['ledger:read'] })).statusCode).toBe(200);
      expect(await roles()).toEqual(['approver', 'auditor', 'ledger:read']);
      expect((await admin('DELETE', '/roles/approver')).statusCode).toBe(204);
      expect(await roles()).toEqual(['auditor', 'ledger:read']);
      expect((await admin('DELETE', '/users/carol/groups/bookkeepers')).statusCode).toBe(204);
      expect(await roles()).toEqual(['auditor']);

      // Put back as the other tests expect it.
      expect((await admin('PUT', '/groups/bookkeepers', { roles: ['ledger:read', 'ledger:write'] })).statusCode).toBe(200);
      expect((await admin('PUT', '/users/carol/groups/bookkeepers')).statusCode).toBe(204);
      expect(await roles()).toEqual(['auditor', 'ledger:read', 'ledger:write']);
    });

    it('an opaque token\'s introspection shows the person\'s roles as they are now', async () => {
      const { carol, web } = realms.opaque;
      const { access_token: token } = await tokensOf('opaque', carol, 'authz');
      expect((await t.admin.request('PUT', '/realms/opaque/roles/night-shift')).statusCode).toBe(201);
      expect((await t.admin.request('PUT', '/realms/opaque/users/carol/roles/night-shift')).statusCode).toBe(204);
      expect((await introspected('opaque', web, token)).roles).toEqual(['auditor', 'ledger:read', 'ledger:write', 'night-shift']);
      expect((await t.admin.request('DELETE', '/realms/opaque/roles/night-shift')).statusCode).toBe(204);
      expect((await introspected('opaque', web, token)).roles).toEqual(['auditor', 'ledger:read', 'ledger:write']);
    });

    it('a scope\'s mappings changed: the next token carries the new ones; a PUT without claims keeps them, [] clears them', async () => {
      const put = (body: unknown) => t.admin.request('PUT', '/realms/jwt/scopes/plain', body);
      const next = async () => decodeJwt((await tokensOf('jwt', realms.jwt.carol, 'plain')).access_token);
      const mapped = await put({ description: 'Now with claims', claims: [{ name: 'team', source: 'groups', tokens: ['access_token'] }] });
      expect(mapped.statusCode).toBe(200);
      expect(mapped.json()).toEqual({ name: 'plain', description: 'Now with claims', claims: [{ name: 'team', source: 'groups', tokens: ['access_token'] }] });
      expect((await next()).team).toEqual(['bookkeepers']);

      const kept = await put({ description: 'Still with claims' });
      expect(kept.json()).toMatchObject({ claims: [{ name: 'team', source: 'groups', tokens: ['access_token'] }] });
      expect((await next()).team).toEqual(['bookkeepers']);
      const listed = (await t.admin.request('GET', '/realms/jwt/scopes')).json() as Json[];
      expect(listed.find((scope) => scope.name === 'plain')).toEqual(kept.json());

      const cleared = await put({ description: 'No claims', claims: [] });
      expect(cleared.json()).toEqual({ name: 'plain', description: 'No claims' });
      expect(await next()).not.toHaveProperty('team');
    });
  });

  it('keeps realms apart: a role of one realm never appears in another\'s tokens', async () => {
    await t.admin.createRealm('beta', { stateless_tokens: true });
    await t.admin.request('PUT', '/realms/beta/scopes/authz', { description: 'authz', claims: SCOPES.authz });
    await t.admin.request('PUT', '/realms/beta/roles/beta-only');
    const carol = await createUser(t.admin, 'beta', 'carol');
    expect((await t.admin.request('PUT', '/realms/beta/users/carol/roles/beta-only')).statusCode).toBe(204);
    // Realm jwt's roles of the same names are unknown here.
    expectAdminError(await t.admin.request('PUT', '/realms/beta/users/carol/roles/auditor'), 404, 'not_found');
    const created = await t.admin.createClient('beta', { grant_types: ['password'], scope: 'openid authz' });
    const web = { clientId: created.client_id, secret: created.client_secret as string };
    const tokens = await passwordTokens(t.app, 'beta', web, carol, 'openid authz');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ roles: ['beta-only'] });
    expect(decodeJwt(tokens.id_token!)).toMatchObject({ roles: ['beta-only'], groups: [] });
    expect(decodeJwt((await tokensOf('jwt', realms.jwt.carol, 'authz')).access_token).roles).not.toContain('beta-only');
  });

  describe('the admin API refuses what cannot be mapped: 400 naming claims, and nothing is written', () => {
    const RESERVED = [
      'sub', 'iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'cnf', 'scope', 'client_id', 'act', 'may_act', 'auth_time', 'nonce', 'acr', 'amr',
      'azp', 'at_hash', 'sid', 'token_type', 'active', 'username', 'realm', 'grant_id', 'sub_is_client',
    ];
    const claim = (fields: Json) => ({ name: 'x', source: 'roles', tokens: ['id_token'], ...fields });
    const stored = async (name: string) => (await t.store.db.query<{ claims: unknown }>("SELECT claims FROM scopes WHERE realm = 'jwt' AND name = $1", [name])).rows;

    it.each(RESERVED)('the server\'s own claim %s', async (name) => {
      for (const tokens of [['id_token'], ['access_token'], ['introspection'], ['userinfo']]) {
        const response = await t.admin.request('PUT', '/realms/jwt/scopes/authz', { description: 'changed', claims: [claim({ name, tokens })] });
        expectAdminError(response, 400, 'invalid_request');
        expect(response.json().error_description).toBe('claims.0.name: is set by the server and cannot be mapped');
      }
      expect(await stored('authz')).toEqual([{ claims: SCOPES.authz }]);
      expect((await t.admin.request('GET', '/realms/jwt/scopes/authz')).json()).toEqual({ name: 'authz', description: 'authz', claims: SCOPES.authz });
    });

    it.each([
      ['an unknown source', [claim({ source: 'password_hash' })], 'claims.0.source'],
      ['an attribute without a key', [claim({ source: 'attribute:' })], 'claims.0.source'],
      ['no tokens', [claim({ tokens: [] })], 'claims.0.tokens'],
      ['an unknown token', [claim({ tokens: ['refresh_token'] })], 'claims.0.tokens'],
      ['a token twice', [claim({ tokens: ['id_token', 'id_token'] })], 'claims.0.tokens'],
      ['a name twice', [claim({}), claim({ source: 'groups' })], 'claims'],
      ['a name with a space', [claim({ name: 'my roles' })], 'claims.0.name'],
      ['an empty name', [claim({ name: '' })], 'claims.0.name'],
      ['a missing field', [{ name: 'x', source: 'roles' }], 'claims.0.tokens'],
      ['another field', [claim({ value: 'x' })], 'claims.0'],
      ['not a list', { name: 'x' }, 'claims'],
      ['more than 50', Array.from({ length: 51 }, (_, i) => claim({ name: `c${i}` })), 'claims'],
    ])('%s', async (_case, claims, field) => {
      for (const name of ['authz', 'brand-new']) {
        const response = await t.admin.request('PUT', `/realms/jwt/scopes/${name}`, { description: 'changed', claims });
        expectAdminError(response, 400, 'invalid_request');
        expect(response.json().error_description.startsWith(`${field}`), response.json().error_description).toBe(true);
      }
      expect(await stored('authz')).toEqual([{ claims: SCOPES.authz }]);
      expect(await stored('brand-new')).toEqual([]);
      expect((await t.admin.request('GET', '/realms/jwt/scopes/authz')).json()).toEqual({ name: 'authz', description: 'authz', claims: SCOPES.authz });
    });
  });

  describe('the hot paths cost nothing more', () => {
    /**
     * The statements the store receives while `send` runs, once the invalidations of the changes
     * before have arrived (a late one would drop a cache mid-measure) and `send` has warmed the caches.
     */
    async function statementsOf(send: () => Promise<unknown>): Promise<string[]> {
      await invalidations.settled(t.store.db);
      await send();
      const db = t.store.db as { query: (...args: unknown[]) => unknown };
      const original = db.query;
      const seen: string[] = [];
      db.query = function (this: unknown, ...args: unknown[]) {
        seen.push(String(args[0]));
        return original.apply(this, args);
      };
      try {
        await send();
      } finally {
        db.query = original;
      }
      return seen;
    }
    const memberships = (statements: string[]) => statements.filter((sql) => /user_roles|user_groups/.test(sql));
    const scopeReads = (statements: string[]) => statements.filter((sql) => /FROM scopes/.test(sql));

    it('a person\'s token without a mapping scope reads no roles or scopes; one with roles mapped, one statement', async () => {
      await tokensOf('jwt', realms.jwt.carol, 'openid plain'); // the realm's scopes are cached
      const plain = await statementsOf(() => tokensOf('jwt', realms.jwt.carol, 'openid plain'));
      expect(memberships(plain)).toEqual([]);
      expect(scopeReads(plain)).toEqual([]);
      const mapped = await statementsOf(() => tokensOf('jwt', realms.jwt.carol, 'openid authz org'));
      expect(memberships(mapped)).toHaveLength(1);
      expect(scopeReads(mapped)).toEqual([]);
      const opaque = await statementsOf(() => tokensOf('opaque', realms.opaque.carol, 'plain'));
      expect(memberships(opaque)).toEqual([]);
    });

    it('a client credentials token reads no person, even with mapping scopes', async () => {
      const statements = await statementsOf(() =>
        postForm(t.app, '/oauth2/jwt/access_token', { grant_type: 'client_credentials', scope: 'authz org' }, {
          authorization: basic(realms.jwt.service.clientId, realms.jwt.service.secret),
        }),
      );
      expect(statements.filter((sql) => /user_roles|user_groups|FROM users|FROM scopes/.test(sql))).toEqual([]);
    });
  });
});

describe('claims from scopes on two instances', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let invalidations: Invalidations;

  beforeAll(async () => {
    invalidations = Invalidations.watch();
    instances = await startTwoInstances();
  });
  afterAll(async () => {
    invalidations?.stop();
    await instances?.close();
  });

  it('a role given on one instance shows in the next token of the other; a scope\'s new mapping too', async () => {
    const { a, b } = instances;
    const adminA = new AdminClient(a);
    const { carol, web } = await setUpRealm(adminA, 'shared', { stateless_tokens: true });
    const token = async (app: FastifyInstance, scope: string) => decodeJwt((await passwordTokens(app, 'shared', web, carol, scope)).access_token);
    expect((await token(b, 'authz')).roles).toEqual(['auditor', 'ledger:read', 'ledger:write']);

    expect((await adminA.request('PUT', '/realms/shared/roles/approver')).statusCode).toBe(201);
    expect((await adminA.request('PUT', '/realms/shared/users/carol/roles/approver')).statusCode).toBe(204);
    expect((await token(b, 'authz')).roles).toEqual(['approver', 'auditor', 'ledger:read', 'ledger:write']);

    // B's cached scopes are dropped by the change's notification, which arrives as the change commits.
    expect(await token(b, 'plain')).not.toHaveProperty('team');
    await adminA.request('PUT', '/realms/shared/scopes/plain', { description: 'x', claims: [{ name: 'team', source: 'groups', tokens: ['access_token'] }] });
    await invalidations.settled(instances.db, 2);
    const deadline = Date.now() + 2_000;
    let claims = await token(b, 'plain');
    while (claims.team === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      claims = await token(b, 'plain');
    }
    expect(claims.team).toEqual(['bookkeepers']);
  });
});
