import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/store/migrate.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { createTestDb } from '../support/store.js';
import { createUser } from '../support/users.js';

/** An email address belongs to at most one person per realm, ignoring case (CONTRACT.md §7): the admin API answers 409. */
describe('an email address is one person\'s', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const users = (realm: string) => `/realms/${realm}/users`;

  function expectConflict(response: { statusCode: number; body: string; json(): unknown }, description: string | RegExp): void {
    expect(response.statusCode, response.body).toBe(409);
    const body = response.json() as { error: string; error_description: string };
    expect(body.error).toBe('conflict');
    if (typeof description === 'string') expect(body.error_description).toBe(description);
    else expect(body.error_description).toMatch(description);
  }

  it('refuses to create or change a person to another\'s address, whatever its case, with 409; another realm may have it', async () => {
    const realm = await freshRealm(t);
    await createUser(t.admin, realm, 'ann', { claims: { email: 'ann@example.com' } });
    const bob = await createUser(t.admin, realm, 'bob', { claims: { email: 'bob@example.com' } });

    const twin = await t.admin.request('POST', users(realm), { username: 'ann2', password: 'pw-ann2-0123456789', claims: { email: 'ANN@Example.com' } });
    expectConflict(twin, 'the email address belongs to another person of the realm');
    expect((await t.admin.request('GET', `${users(realm)}/ann2`)).statusCode).toBe(404);

    expectConflict(await t.admin.request('PATCH', `${users(realm)}/bob`, { claims: { email: 'Ann@example.com' } }), 'the email address belongs to another person of the realm');
    // With a new password the change is one transaction: nothing of it is written.
    expectConflict(await t.admin.request('PATCH', `${users(realm)}/bob`, { claims: { email: 'ann@example.com' }, password: 'a-new-password-0123' }), /another person/);
    expect((await t.admin.request('GET', `${users(realm)}/bob`)).json().claims.email).toBe('bob@example.com');
    expect((await t.admin.request('POST', '/realms/' + realm + '/users', { username: 'bob', password: bob.password })).statusCode).toBe(409);

    // A person keeps their own address in another case; another realm is another set of people.
    expect((await t.admin.request('PATCH', `${users(realm)}/bob`, { claims: { email: 'BOB@example.com' } })).statusCode).toBe(200);
    const other = await freshRealm(t);
    await createUser(t.admin, other, 'ann', { claims: { email: 'ann@example.com' } });
  });

  it('refuses a realm import that would give two people one address with 409, and changes nothing', async () => {
    const realm = await freshRealm(t);
    await createUser(t.admin, realm, 'ann', { claims: { email: 'ann@example.com' } });
    const before = (await t.admin.request('GET', `/realms/${realm}/export?users=true`)).json();

    const inDocument = { users: [{ username: 'cy', claims: { email: 'cy@example.com' } }, { username: 'di', claims: { email: 'CY@example.com' } }] };
    expectConflict(await t.admin.request('PUT', `/realms/${realm}/import`, inDocument), 'users.1.claims.email: the email address (ignoring case) is users.0\'s');
    const withRealm = { users: [{ username: 'cy', claims: { email: 'Ann@Example.com' } }] };
    expectConflict(await t.admin.request('PUT', `/realms/${realm}/import`, withRealm), 'users.0.claims.email: the email address (ignoring case) is the realm\'s person "ann"\'s');
    expect((await t.admin.request('GET', `/realms/${realm}/export?users=true`)).json()).toEqual(before);

    // Ann gives it up in the same document: then it is free.
    const handedOver = { users: [{ username: 'ann', claims: {} }, { username: 'cy', claims: { email: 'ann@example.com' } }] };
    const response = await t.admin.request('PUT', `/realms/${realm}/import`, handedOver);
    expect(response.statusCode, response.body).toBe(200);
    expect((await t.admin.request('GET', `${users(realm)}/cy`)).json().claims.email).toBe('ann@example.com');
  });
});

describe('migration 025 on a database where people share an address', () => {
  it('leaves the address with the oldest, removes it from the others with an audit event each, and makes it unique', async () => {
    const { db, dispose } = await createTestDb();
    try {
      await migrate(db, readMigrations().filter((migration) => migration.version < 25));
      await db.query("INSERT INTO realms (name) VALUES ('old'), ('other')");
      await db.query(`INSERT INTO users (realm, username, claims, created_at) VALUES
        ('old', 'first', '{"email": "Shared@example.com", "email_verified": true}', now() - interval '3 days'),
        ('old', 'second', '{"email": "shared@EXAMPLE.com", "email_verified": true, "name": "Second"}', now() - interval '2 days'),
        ('old', 'third', '{"email": "shared@example.com"}', now() - interval '1 day'),
        ('old', 'alone', '{"email": "alone@example.com"}', now()),
        ('other', 'first', '{"email": "shared@example.com"}', now())`);

      expect(await migrate(db)).toEqual(readMigrations().filter((migration) => migration.version >= 25).map((migration) => migration.name));

      const people = await db.query<{ realm: string; username: string; claims: Record<string, unknown> }>('SELECT realm, username, claims FROM users ORDER BY realm, username');
      expect(people.rows).toEqual([
        { realm: 'old', username: 'alone', claims: { email: 'alone@example.com' } },
        { realm: 'old', username: 'first', claims: { email: 'Shared@example.com', email_verified: true } },
        { realm: 'old', username: 'second', claims: { name: 'Second' } },
        { realm: 'old', username: 'third', claims: {} },
        { realm: 'other', username: 'first', claims: { email: 'shared@example.com' } },
      ]);
      const events = await db.query<{ type: string; details: Record<string, unknown> }>("SELECT type, details FROM audit_events WHERE realm = 'old' ORDER BY details->>'username'");
      expect(events.rows).toEqual([
        { type: 'user.email_removed', details: { username: 'second', email: 'shared@EXAMPLE.com', reason: 'duplicate', kept_by: 'first' } },
        { type: 'user.email_removed', details: { username: 'third', email: 'shared@example.com', reason: 'duplicate', kept_by: 'first' } },
      ]);
      await expect(db.query(`INSERT INTO users (realm, username, claims) VALUES ('old', 'fourth', '{"email": "SHARED@example.com"}')`)).rejects.toThrow();
    } finally {
      await db.close();
      await dispose();
    }
  });
});
