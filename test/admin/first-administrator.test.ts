import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { type FirstAdministrator, loadConfig } from '../../src/config.js';
import { createPgDb } from '../../src/store/pg.js';
import { ADMIN_TOKEN, AdminClient, BASE_URL } from '../support/app.js';
import { type ServiceClient } from '../support/oauth.js';
import { type TestDb, createTestDb } from '../support/store.js';
import { passwordGrant } from '../support/users.js';

/**
 * ADMIN_USER and ADMIN_PASSWORD (issue 36, item 6): the first start makes a person of `root`
 * holding `realmgate-admin`, whose own token then administers everything; read once, so later
 * starts change nothing; never over an administrator already there or a person of that name.
 */

const ADA: FirstAdministrator = { username: 'ada', password: 'a long passphrase of ada' };
const masterKey = randomBytes(32);

describe('the first administrator, from ADMIN_USER and ADMIN_PASSWORD', { timeout: 90_000 }, () => {
  let testDb: TestDb | undefined;
  const apps: FastifyInstance[] = [];

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await testDb?.db.close();
    await testDb?.dispose();
    testDb = undefined;
  });

  /** A start of the server on the test database, with the pair (or none). */
  async function start(firstAdministrator?: FirstAdministrator) {
    testDb ??= await createTestDb();
    const prepared = await prepare(testDb.db, { masterKey, adminToken: ADMIN_TOKEN, firstAdministrator });
    // The starts share one database, closed after the test.
    const store = { ...prepared.store, close: async () => {} };
    const app = await buildApp({ config: { baseUrl: BASE_URL, trustProxy: false }, store, encryption: prepared.encryption, adminTokenHash: prepared.adminToken.hash, cleanup: false });
    apps.push(app);
    return { app, admin: new AdminClient(app), outcome: prepared.firstAdministrator };
  }

  /** The admin API's answer to `person` signing in with the password grant, for the admin resource. */
  async function adminCallAs(app: FastifyInstance, admin: AdminClient, person: FirstAdministrator, method: 'GET' | 'POST', url: string, body?: object) {
    const created = await admin.createClient('root', { grant_types: ['password'] });
    const client: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
    const token = await passwordGrant(app, 'root', client, person, { resource: `${BASE_URL}/admin` });
    if (token.statusCode !== 200) return token;
    const accessToken = (token.json() as { access_token: string }).access_token;
    return app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${accessToken}` }, ...(body ? { payload: body } : {}) });
  }

  it('makes a person of root who holds realmgate-admin and administers everything with their own token', async () => {
    const { app, admin, outcome } = await start(ADA);
    expect(outcome).toEqual({ made: true, username: 'ada', sub: expect.any(String) });
    const person = (await admin.request('GET', '/realms/root/users/ada')).json() as { roles: string[]; effective_roles: string[]; enabled: boolean };
    expect(person).toMatchObject({ roles: ['realmgate-admin'], enabled: true });
    const created = await adminCallAs(app, admin, ADA, 'POST', '/realms', { name: 'made-by-ada' });
    expect(created.statusCode, created.body).toBe(201);
    // Her making is an audit event of root (without the password).
    const events = (await admin.request('GET', '/realms/root/events?type=user.created')).json() as { events: Array<{ user_id: string; details: Record<string, unknown> }> };
    expect(events.events).toHaveLength(1);
    expect(events.events[0]).toMatchObject({ user_id: (outcome as { sub: string }).sub, details: { username: 'ada', roles: ['realmgate-admin'], source: 'ADMIN_USER' } });
    expect(events.events[0]).not.toHaveProperty('actor');
    expect(JSON.stringify(events)).not.toContain(ADA.password);
  });

  it('reads the pair once: a later start with another password, or after the person is deleted, changes nothing', async () => {
    await start(ADA);
    const later = await start({ username: 'ada', password: 'another long passphrase' });
    expect(later.outcome).toEqual({ made: false, reason: 'read_before' });
    expect((await adminCallAs(later.app, later.admin, ADA, 'GET', '/realms')).statusCode).toBe(200);
    const refused = await adminCallAs(later.app, later.admin, { username: 'ada', password: 'another long passphrase' }, 'GET', '/realms');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant' });

    expect((await later.admin.request('DELETE', '/realms/root/users/ada')).statusCode).toBe(204);
    const again = await start(ADA);
    expect(again.outcome).toEqual({ made: false, reason: 'read_before' });
    expect((await again.admin.request('GET', '/realms/root/users/ada')).statusCode).toBe(404);
  });

  it('makes none when a person of root holds realmgate-admin already, through a group too', async () => {
    const first = await start();
    expect(first.outcome).toBeUndefined();
    for (const [method, url, body] of [
      ['PUT', '/realms/root/roles/realmgate-admin', {}],
      ['PUT', '/realms/root/groups/admins', { roles: ['realmgate-admin'] }],
      ['POST', '/realms/root/users', { username: 'grace', password: 'a long passphrase of grace' }],
      ['PUT', '/realms/root/users/grace/groups/admins', undefined],
    ] as const) {
      expect((await first.admin.request(method, url, body)).statusCode).toBeLessThan(300);
    }
    const later = await start(ADA);
    expect(later.outcome).toEqual({ made: false, reason: 'administrator_exists' });
    expect((await later.admin.request('GET', '/realms/root/users/ada')).statusCode).toBe(404);
  });

  it('does not make an existing person of that name an administrator, nor change their password', async () => {
    const first = await start();
    expect((await first.admin.request('POST', '/realms/root/users', { username: 'Ada', password: 'the real passphrase of ada' })).statusCode).toBe(201);
    const later = await start(ADA);
    expect(later.outcome).toEqual({ made: false, reason: 'username_taken' });
    const person = (await later.admin.request('GET', '/realms/root/users/Ada')).json() as { effective_roles: string[] };
    expect(person.effective_roles).toEqual([]);
    expect((await adminCallAs(later.app, later.admin, ADA, 'GET', '/realms')).statusCode).toBe(400);
  });

  it('refuses a password the root realm\'s policy refuses, naming the rule and not the password; nothing is made or remembered', async () => {
    testDb = await createTestDb();
    for (const password of ['pw1', 'qwertyuiop']) {
      const failed = await prepare(testDb.db, { masterKey, adminToken: ADMIN_TOKEN, firstAdministrator: { username: 'ada', password } }).catch((error: Error) => error);
      expect(String(failed)).toMatch(/^ConfigError: invalid configuration: ADMIN_PASSWORD: (must be at least \d+ characters|is one of the most common passwords)/);
      expect(String(failed)).not.toContain(password);
    }
    const fixed = await start(ADA);
    expect(fixed.outcome).toMatchObject({ made: true });
  });

  it('of instances starting together with the pair, one makes the administrator', async () => {
    testDb = await createTestDb();
    const base = await prepare(testDb.db, { masterKey, adminToken: ADMIN_TOKEN });
    const second = testDb.databaseUrl ? createPgDb(testDb.databaseUrl, { searchPath: testDb.searchPath, poolSize: 2 }) : undefined;
    try {
      const outcomes = await Promise.all([
        prepare(testDb.db, { masterKey, adminToken: ADMIN_TOKEN, firstAdministrator: ADA }),
        prepare(second ?? testDb.db, { masterKey, adminToken: ADMIN_TOKEN, firstAdministrator: ADA }),
      ]);
      expect(outcomes.map((prepared) => prepared.firstAdministrator?.made).sort()).toEqual([false, true]);
      const rows = await base.store.db.query<{ count: string }>("SELECT count(*)::text AS count FROM user_roles WHERE realm = 'root' AND role = 'realmgate-admin'");
      expect(rows.rows[0]!.count).toBe('1');
    } finally {
      await second?.close();
    }
  });

  it('ADMIN_USER and ADMIN_PASSWORD go together, and the username must be one', () => {
    expect(() => loadConfig({ ADMIN_USER: 'ada' })).toThrow('invalid configuration: ADMIN_PASSWORD: ADMIN_USER and ADMIN_PASSWORD go together');
    expect(() => loadConfig({ ADMIN_PASSWORD: 'a long passphrase of ada' })).toThrow('invalid configuration: ADMIN_USER: ADMIN_USER and ADMIN_PASSWORD go together');
    expect(() => loadConfig({ ADMIN_USER: 'ada lovelace', ADMIN_PASSWORD: 'a long passphrase of ada' })).toThrow(/^invalid configuration: ADMIN_USER: must be/);
    expect(loadConfig({ ADMIN_USER: 'ada', ADMIN_PASSWORD: ADA.password }).firstAdministrator).toEqual(ADA);
  });
});
