import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';

/** The real time, which the moved `Date` does not read. */
const realNow = (): number => performance.timeOrigin + performance.now();

/**
 * The clock of test/support/clock.ts, which the tests of expiries and lifetimes move instead of
 * sleeping: Node's time and the database's move together, on both stores, so that a rule read in
 * either sees the same time.
 */
describe('the test clock', () => {
  let t: TestApp & { clock: TestClock };

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
  });
  afterAll(() => t.close());

  const databaseTimes = async () =>
    (
      await t.store.db.query<{ now: Date; transaction: Date; statement: Date; clock: Date }>(
        'SELECT now(), transaction_timestamp() AS transaction, statement_timestamp() AS statement, clock_timestamp() AS clock',
      )
    ).rows[0]!;

  it("moves Node's time and the database's together, and column defaults with them", async () => {
    const before = realNow();
    await t.clock.advance(3_600_000);
    const node = Date.now();
    expect(new Date().getTime() - node).toBeLessThan(1000);
    expect(node - before).toBeGreaterThan(3_599_000);
    expect(node - realNow()).toBeGreaterThan(3_590_000);
    for (const time of Object.values(await databaseTimes())) expect(Math.abs(time.getTime() - Date.now())).toBeLessThan(5_000);

    const realm = `clock-${Date.now()}`;
    await t.admin.createRealm(realm);
    const { rows } = await t.store.db.query<{ created_at: Date }>('SELECT created_at FROM realms WHERE name = $1', [realm]);
    expect(Math.abs(rows[0]!.created_at.getTime() - Date.now())).toBeLessThan(5_000);
  });

  it('moves forward only, and to a given time', async () => {
    await expect(t.clock.advance(0)).rejects.toThrow('forward only');
    const target = Math.floor(Date.now() / 1000) + 600;
    await t.clock.advanceTo(target, 50);
    expect(Date.now()).toBeGreaterThanOrEqual(target * 1000 + 50);
    expect(Math.abs((await databaseTimes()).now.getTime() - Date.now())).toBeLessThan(5_000);
  });

  it("keeps the time moved while another clock's application is open, whichever closes first", async () => {
    const other = await startTestApp({ clock: true });
    await other.clock.advance(1000);
    await other.close();
    // This file's application still has its clock: the time stays moved.
    expect(Date.now() - realNow()).toBeGreaterThan(3_590_000);
  });
});

/**
 * What PostgreSQL reads the time with, not by a function's name: the test schema's functions
 * would not reach it, and a test of the clock would pass on PGlite and fail on PostgreSQL.
 */
it('src/ and the migrations read the database time through now() and its kin only', () => {
  const files = ['src', 'migrations'].flatMap((dir) => {
    const root = new URL(`../../${dir}/`, import.meta.url);
    return readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|sql)$/.test(file))
      .map((file) => new URL(file, root));
  });
  expect(files.length).toBeGreaterThan(100);
  const unmoved = files.filter((file) => /\b(current_timestamp|localtimestamp|current_date|current_time)\b|'now'::/i.test(readFileSync(file, 'utf8'))).map(String);
  expect(unmoved).toEqual([]);
});

describe('once every clock has closed', () => {
  it("Node and an application without a clock read the real time again", async () => {
    const t = await startTestApp();
    try {
      expect(Math.abs(Date.now() - realNow())).toBeLessThan(1000);
      const { rows } = await t.store.db.query<{ now: Date }>('SELECT now()');
      expect(Math.abs(rows[0]!.now.getTime() - realNow())).toBeLessThan(5_000);
    } finally {
      await t.close();
    }
  });
});
