import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { StatementBatcher } from '../../src/store/statement-batcher.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { clientCredentials, introspect } from '../support/oauth.js';

describe('statement batcher', () => {
  /** A write that takes a while, like a commit, and records each batch it was given. */
  const recordingWrite = (batches: number[][], fail?: (rows: readonly number[]) => Error | undefined) => async (rows: readonly number[]) => {
    batches.push([...rows]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const error = fail?.(rows);
    if (error) throw error;
  };

  /** The next turn of the event loop, by when the rows added in this one have been sent. */
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('sends the rows added in one turn of the event loop together, and coalesces the rows that arrive while they are written', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches), { maxBatch: 100, maxInFlight: 1 });
    const first = Array.from({ length: 3 }, (_, i) => writer.add(i));
    await nextTurn();
    expect(batches).toEqual([[0, 1, 2]]);
    const meanwhile = Array.from({ length: 7 }, (_, i) => writer.add(i + 3));
    await Promise.all([...first, ...meanwhile]);
    expect(batches).toEqual([[0, 1, 2], [3, 4, 5, 6, 7, 8, 9]]);
  });

  it('sends a lone row in the turn it was added, without waiting for a timer', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches), { maxBatch: 100, maxInFlight: 1 });
    const written = writer.add(0);
    await nextTurn();
    expect(batches).toEqual([[0]]);
    await written;
  });

  it('settles each caller only once its batch is written', async () => {
    const batches: number[][] = [];
    const written: number[] = [];
    const writer = new StatementBatcher(async (rows: readonly number[]) => {
      await recordingWrite(batches)(rows);
      written.push(...rows);
    }, { maxBatch: 100, maxInFlight: 1 });
    await Promise.all(Array.from({ length: 5 }, (_, i) => writer.add(i).then(() => expect(written).toContain(i))));
  });

  it('sends the next batch before the callers of the one written go on', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches), { maxBatch: 100, maxInFlight: 1 });
    const first = writer.add(0);
    await nextTurn();
    const second = writer.add(1);
    await first.then(() => expect(batches).toEqual([[0], [1]]));
    await second;
  });

  it('with pauseMs, waits that long after a statement before the next, so that the rows that arrive meanwhile go together', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches), { maxBatch: 100, maxInFlight: 1, pauseMs: 40 });
    const first = writer.add(0);
    await first;
    const answered = Date.now();
    const later = [writer.add(1)];
    await new Promise((resolve) => setTimeout(resolve, 15));
    later.push(writer.add(2));
    await Promise.all(later);
    expect(batches).toEqual([[0], [1, 2]]);
    expect(Date.now() - answered).toBeGreaterThanOrEqual(35);
  });

  it('holds its place in flight while it retries a failed batch row by row', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(
      recordingWrite(batches, (rows) => (rows.length > 1 && rows.includes(1) ? new Error('bad row') : undefined)),
      { maxBatch: 100, maxInFlight: 1 },
    );
    const first = writer.add(0);
    await nextTurn();
    const failing = [writer.add(1), writer.add(2)];
    await first;
    await nextTurn();
    expect(batches).toEqual([[0], [1, 2]]);
    const after = writer.add(3);
    await Promise.allSettled([...failing, after]);
    expect(batches).toEqual([[0], [1, 2], [1], [2], [3]]);
  });

  it('keeps batches within maxBatch', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches), { maxBatch: 3, maxInFlight: 1 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => writer.add(i)));
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(3);
    expect(batches.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('writes the rows a caller adds together in one statement, never split between batches', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches), { maxBatch: 4, maxInFlight: 1 });
    const first = writer.add(0);
    await nextTurn();
    await Promise.all([first, writer.addAll([1, 2]), writer.addAll([3, 4, 5]), writer.addAll([6, 7]), writer.add(8)]);
    expect(batches).toEqual([[0], [1, 2], [3, 4, 5], [6, 7, 8]]);
  });

  it('fails every row of a group together: a batch failing in an outage writes none of it', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(
      recordingWrite(batches, (rows) => (rows.includes(2) ? new StoreUnavailableError('down') : undefined)),
      { maxBatch: 100, maxInFlight: 1 },
    );
    const first = writer.add(0);
    await nextTurn();
    const results = await Promise.allSettled([first, writer.addAll([1, 2]), writer.addAll([3, 4])]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(batches).toEqual([[0], [1, 2, 3, 4]]);
  });

  it('fails rows that wait in the queue past maxWaitMs as an outage, while the batches ahead are stuck', async () => {
    let release: () => void = () => {};
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const writer = new StatementBatcher(() => stuck, { maxBatch: 100, maxInFlight: 1, maxWaitMs: 50 });
    const first = writer.add(0);
    await nextTurn();
    const started = Date.now();
    const queued = await Promise.allSettled([writer.add(1), writer.addAll([2, 3])]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(queued.every((result) => result.status === 'rejected' && result.reason instanceof StoreUnavailableError)).toBe(true);
    release();
    await expect(first).resolves.toBeUndefined();
  });

  it('fails only the caller of a bad row: the others are written one by one', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(
      recordingWrite(batches, (rows) => (rows.includes(5) ? new Error('bad row') : undefined)),
      { maxBatch: 100, maxInFlight: 1 },
    );
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => writer.add(i)));
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled',
    ]);
  });

  it('fails the whole batch at once during an outage, without retrying row by row', async () => {
    const batches: number[][] = [];
    const writer = new StatementBatcher(recordingWrite(batches, () => new StoreUnavailableError('down')), { maxBatch: 100, maxInFlight: 1 });
    const first = writer.add(0);
    await nextTurn();
    const results = await Promise.allSettled([first, ...Array.from({ length: 3 }, (_, i) => writer.add(i + 1))]);
    expect(results.every((result) => result.status === 'rejected' && result.reason instanceof StoreUnavailableError)).toBe(true);
    expect(batches).toEqual([[0], [1, 2, 3]]);
  });
});

describe('tokens issued concurrently', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('busy');
  });
  afterAll(() => t.close());

  it('are each committed before they are returned, and each distinct', async () => {
    const svc = await t.admin.serviceClient('busy');
    const responses = await Promise.all(Array.from({ length: 40 }, () => clientCredentials(t.app, 'busy', svc)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(40).fill(200));
    const tokens = responses.map((response) => response.json().access_token as string);
    expect(new Set(tokens).size).toBe(40);
    const stored = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tokens WHERE realm = 'busy'");
    expect(stored.rows[0]!.n).toBe(40);
    for (const token of tokens.slice(0, 5)) expect((await introspect(t.app, 'busy', svc, token)).json().active).toBe(true);
  });

  it('are each found by its own lookup when many are introspected at once, known and unknown mixed', async () => {
    const svc = await t.admin.serviceClient('busy', 'read write');
    const issued = await Promise.all(
      Array.from({ length: 30 }, (_, i) => clientCredentials(t.app, 'busy', svc, { scope: i % 2 ? 'read' : 'write' })),
    );
    const tokens = issued.map((response) => response.json() as { access_token: string; scope: string });
    const unknown = Array.from({ length: 10 }, (_, i) => `unknown-token-${i}`);
    const answers = await Promise.all([...tokens.map((token) => token.access_token), ...unknown].map((token) => introspect(t.app, 'busy', svc, token)));
    expect(answers.slice(0, 30).map((answer) => answer.json().scope)).toEqual(tokens.map((token) => token.scope));
    expect(answers.slice(0, 30).every((answer) => answer.json().active === true)).toBe(true);
    expect(answers.slice(30).map((answer) => answer.json())).toEqual(Array(10).fill({ active: false }));
  });
});
