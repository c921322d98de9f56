import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepare } from '../../src/bootstrap.js';
import { deleteExpired } from '../../src/store/cleanup.js';
import { type Store, createStore } from '../../src/store/index.js';
import { createPgDb } from '../../src/store/pg.js';
import { TICKET_LIMITS, type TicketStore } from '../../src/store/tickets.js';
import { sha256 } from '../../src/secrets.js';
import { ADMIN_TOKEN } from '../support/app.js';
import { type TestDb, createTestDb } from '../support/store.js';

describe('tickets', () => {
  let testDb: TestDb;
  let store: Store;
  /** A second instance's store: its own pool on PostgreSQL, the same database on PGlite. */
  let other: Store;
  let tickets: TicketStore;
  let people = 0;

  beforeAll(async () => {
    testDb = await createTestDb();
    store = (await prepare(testDb.db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN })).store;
    other = testDb.databaseUrl ? await createStore(createPgDb(testDb.databaseUrl, { searchPath: testDb.searchPath, poolSize: 5 })) : store;
    tickets = store.tickets;
  });
  afterAll(async () => {
    if (other !== store) await other.close();
    await store.close();
    await testDb.dispose();
  });

  const person = async (): Promise<string> => (await store.users.create('root', `person-${++people}`, 'not-a-hash', {}))!.id;
  const issued = async (...args: Parameters<TicketStore['issue']>): Promise<string> => {
    const result = await tickets.issue(...args);
    if (result === 'limited') throw new Error('limited');
    return result.ticket;
  };
  const rows = (sql: string, params: unknown[] = []) => store.db.query<Record<string, unknown>>(sql, params);

  it('issues a 256-bit random value that lives the lifetime asked, stored only as its SHA-256', async () => {
    const alice = await person();
    const before = Date.now();
    const result = await tickets.issue('email_verification', 'root', alice, '192.0.2.1', 900);
    if (result === 'limited') throw new Error('limited');
    expect(result.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.expiresAt.getTime()).toBeGreaterThan(before + 895_000);
    expect(result.expiresAt.getTime()).toBeLessThan(Date.now() + 905_000);
    const stored = await rows('SELECT * FROM tickets WHERE user_id = $1::uuid', [alice]);
    expect(stored.rows).toHaveLength(1);
    expect(JSON.stringify(stored.rows)).not.toContain(result.ticket);
    expect(Buffer.from(stored.rows[0]!.ticket_hash as Uint8Array).equals(sha256(result.ticket))).toBe(true);
    expect(stored.rows[0]).toMatchObject({ kind: 'email_verification', realm: 'root', address: '192.0.2.1', used_at: null });
  });

  it('redeems a ticket once, only for its kind and realm, and tells a live one without using it', async () => {
    const bob = await person();
    const ticket = await issued('password_reset', 'root', bob, '192.0.2.2', 900);
    expect(await tickets.redeem('email_verification', 'root', ticket)).toBeUndefined();
    expect(await tickets.redeem('password_reset', 'elsewhere', ticket)).toBeUndefined();
    expect(await tickets.live('password_reset', 'root', ticket)).toBe(bob);
    expect(await tickets.live('password_reset', 'root', ticket)).toBe(bob);
    expect(await tickets.redeem('password_reset', 'root', ticket)).toBe(bob);
    expect(await tickets.redeem('password_reset', 'root', ticket)).toBeUndefined();
    expect(await tickets.live('password_reset', 'root', ticket)).toBeUndefined();
    for (const unknown of ['', 'x', ticket.slice(1), 'a'.repeat(10_000)]) {
      expect(await tickets.redeem('password_reset', 'root', unknown)).toBeUndefined();
    }
  });

  it('does not redeem an expired ticket', async () => {
    const carol = await person();
    const ticket = await issued('password_reset', 'root', carol, '192.0.2.3', 900);
    await rows("UPDATE tickets SET expires_at = now() - interval '1 second' WHERE user_id = $1::uuid", [carol]);
    expect(await tickets.live('password_reset', 'root', ticket)).toBeUndefined();
    expect(await tickets.redeem('password_reset', 'root', ticket)).toBeUndefined();
  });

  it("ends the person's other tickets of the kind it redeems, and no one else's", async () => {
    const [dave, erin] = [await person(), await person()];
    const older = await issued('password_reset', 'root', dave, '192.0.2.4', 900);
    const newer = await issued('password_reset', 'root', dave, '192.0.2.4', 900);
    const verification = await issued('email_verification', 'root', dave, '192.0.2.4', 900);
    const erins = await issued('password_reset', 'root', erin, '192.0.2.4', 900);
    expect(await tickets.redeem('password_reset', 'root', newer)).toBe(dave);
    expect(await tickets.redeem('password_reset', 'root', older)).toBeUndefined();
    expect(await tickets.redeem('email_verification', 'root', verification)).toBe(dave);
    expect(await tickets.redeem('password_reset', 'root', erins)).toBe(erin);
  });

  it('issues at most 5 per person and kind in 15 minutes, used or not; a new window issues again', async () => {
    const frank = await person();
    const first = await issued('password_reset', 'root', frank, '198.51.100.1', 900);
    await tickets.redeem('password_reset', 'root', first);
    for (let i = 1; i < TICKET_LIMITS.perPerson; i++) await issued('password_reset', 'root', frank, `198.51.100.${i + 1}`, 900);
    expect(await tickets.issue('password_reset', 'root', frank, '198.51.100.99', 900)).toBe('limited');
    // The other kind counts apart.
    await issued('email_verification', 'root', frank, '198.51.100.99', 900);
    await rows("UPDATE tickets SET created_at = created_at - interval '15 minutes 1 second' WHERE user_id = $1::uuid", [frank]);
    await issued('password_reset', 'root', frank, '198.51.100.99', 900);
  });

  it('issues at most 30 per address and kind in 15 minutes, whoever they are for, an IPv6 address counted by its /64', async () => {
    // Every host of a /64 may pick any of its addresses: each request from a new one.
    for (let i = 0; i < TICKET_LIMITS.perAddress; i++) await issued('password_reset', 'root', await person(), `2001:db8:0:30::${(i + 1).toString(16)}`, 900);
    const grace = await person();
    expect(await tickets.issue('password_reset', 'root', grace, '2001:db8:0:30:ffff::1', 900)).toBe('limited');
    await issued('password_reset', 'root', grace, '2001:db8:0:31::1', 900);
    await issued('email_verification', 'root', grace, '2001:db8:0:30::1', 900);
  });

  it('issues exactly 5 of 20 concurrent requests for one person, on two instances', async () => {
    const henry = await person();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).tickets.issue('password_reset', 'root', henry, `203.0.113.${i}`, 900)),
    );
    expect(results.filter((result) => result !== 'limited')).toHaveLength(TICKET_LIMITS.perPerson);
    const count = await rows("SELECT count(*)::int AS n FROM tickets WHERE user_id = $1::uuid AND kind = 'password_reset'", [henry]);
    expect(count.rows[0]!.n).toBe(TICKET_LIMITS.perPerson);
  });

  it('issues exactly 30 of 40 concurrent requests from one address, on two instances', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, () => person()));
    const results = await Promise.all(ids.map((id, i) => (i % 2 ? other : store).tickets.issue('email_verification', 'root', id, '203.0.113.200', 900)));
    expect(results.filter((result) => result !== 'limited')).toHaveLength(TICKET_LIMITS.perAddress);
  });

  it('redeems a ticket for exactly one of 10 concurrent uses, on two instances', async () => {
    const iris = await person();
    const ticket = await issued('email_verification', 'root', iris, '203.0.113.7', 900);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).tickets.redeem('email_verification', 'root', ticket)));
    expect(results.filter((result) => result !== undefined)).toEqual([iris]);
  });

  it('are deleted with their person, and by the cleanup once expired and out of the 15 minutes they count in', async () => {
    const jack = await person();
    const [live, expiredRecent, expiredOld] = [
      await issued('password_reset', 'root', jack, '192.0.2.50', 900),
      await issued('password_reset', 'root', jack, '192.0.2.50', 900),
      await issued('password_reset', 'root', jack, '192.0.2.50', 900),
    ];
    const setTimes = (ticket: string, sql: string) => rows(`UPDATE tickets SET ${sql} WHERE ticket_hash = $1`, [sha256(ticket)]);
    await setTimes(expiredRecent, "expires_at = now() - interval '1 second'");
    await setTimes(expiredOld, "expires_at = now() - interval '1 second', created_at = now() - interval '16 minutes'");
    await deleteExpired(store.db, { batchSize: 100, pauseMs: 0 });
    const left = await rows('SELECT ticket_hash FROM tickets WHERE user_id = $1::uuid', [jack]);
    const hashes = left.rows.map((row) => Buffer.from(row.ticket_hash as Uint8Array).toString('base64'));
    expect(hashes.sort()).toEqual([live, expiredRecent].map((ticket) => sha256(ticket).toString('base64')).sort());

    await store.users.delete('root', `person-${people}`);
    expect((await rows('SELECT 1 FROM tickets WHERE user_id = $1::uuid', [jack])).rows).toHaveLength(0);
  });
});
