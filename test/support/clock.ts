import type { Db } from '../../src/store/db.js';

/**
 * A clock the test moves forward, for the application and its database alike, so that a test of
 * an expiry or a lifetime need not sleep through it. The application reads the time in two
 * places: Node's `Date` (JWT `iat`/`exp`, `auth_time`, cookies, TOTP) and the database's `now()`
 * (a stored token's, code's or request's expiry, a poll interval, a column's default). Both are
 * moved by one offset:
 *
 * - Node: `Date` is replaced, while a clock's database is open, by a proxy of itself whose
 *   `Date.now()` and `new Date()` add the offset. The time keeps running (vitest's fake `Date`
 *   stands still, or runs behind under load when told to advance, which would part it from the
 *   database's); timers are untouched.
 * - PGlite: nothing more. PostgreSQL compiled to WebAssembly reads the time through
 *   Emscripten's clock_gettime, that is `Date.now()`: every clock of PGlite moves with Node's
 *   (`CURRENT_TIMESTAMP` too), and its database is handed out again as any other.
 * - PostgreSQL: functions named `now`, `transaction_timestamp`, `statement_timestamp` and
 *   `clock_timestamp`, each pg_catalog's plus the offset, in the test file's schema, which comes
 *   before pg_catalog in the connections' search path. They are made before the migrations, so
 *   that the columns' `DEFAULT now()` are bound to them too. Moving the clock replaces them
 *   (PostgreSQL discards the plans that inlined them). `CURRENT_TIMESTAMP`, `LOCALTIMESTAMP`,
 *   `current_date` and `'now'::timestamptz` are not functions found by name and keep the real
 *   time there: src/ uses none of them.
 *
 * test/store/test-clock.test.ts checks that both stores follow the clock.
 */
export interface TestClock {
  /** Moves the time of Node and of every clock's database forward by `ms`. */
  advance(ms: number): Promise<void>;
  /** Moves it forward to `epochSeconds` (a JWT's `exp`, say) and `ms` more. */
  advanceTo(epochSeconds: number, ms?: number): Promise<void>;
}

const TIME_FUNCTIONS = [
  { name: 'now', volatility: 'STABLE' },
  { name: 'transaction_timestamp', volatility: 'STABLE' },
  { name: 'statement_timestamp', volatility: 'STABLE' },
  { name: 'clock_timestamp', volatility: 'VOLATILE' },
] as const;

const RealDate = Date;
let offsetMs = 0;
const shiftedNow = (): number => RealDate.now() + offsetMs;

/** `Date`, but for `Date.now()`, `new Date()` and `Date()`, which read the moved clock. */
const ShiftedDate = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [shiftedNow()] : args, newTarget) as object,
  apply: () => new RealDate(shiftedNow()).toString(),
  get: (target, key, receiver) => (key === 'now' ? shiftedNow : Reflect.get(target, key, receiver)),
});

interface ClockDb {
  db: Db;
  schema: string;
}

/** The open clocks' databases whose time functions follow the offset (none on PGlite). */
const clocks = new Set<ClockDb | Record<string, never>>();

/** The functions of `schema`, reading pg_catalog's time plus the current offset. */
function timeFunctions(schema: string): string {
  const interval = `interval '${offsetMs} milliseconds'`;
  return TIME_FUNCTIONS.map(
    ({ name, volatility }) =>
      `CREATE OR REPLACE FUNCTION ${schema}.${name}() RETURNS timestamptz LANGUAGE sql ${volatility} PARALLEL SAFE AS $$ SELECT pg_catalog.${name}() + ${interval} $$;`,
  ).join('\n');
}

/**
 * Before the migrations (PostgreSQL): the schema's own time functions, which the migrations'
 * defaults then bind to. `searchPath` is what the schema's connections must use.
 */
export function clockFunctionsBeforeMigrations(schema: string): { script: string; searchPath: string } {
  return { script: timeFunctions(schema), searchPath: `${schema},pg_catalog` };
}

/**
 * Starts moving Node's time (offset 0 until a test moves it), and the time functions of
 * `schema` in `db` with it (PostgreSQL; PGlite reads Node's clock); the returned function stops.
 */
export function joinClock(functions?: ClockDb): () => void {
  const entry = functions ?? {};
  clocks.add(entry);
  globalThis.Date = ShiftedDate;
  return () => {
    clocks.delete(entry);
    if (clocks.size > 0) return;
    offsetMs = 0;
    globalThis.Date = RealDate;
  };
}

export const testClock: TestClock = {
  async advance(ms) {
    if (clocks.size === 0) throw new Error('no application was started with clock: true');
    if (!(ms > 0)) throw new Error(`the clock moves forward only (${ms} ms)`);
    offsetMs += Math.ceil(ms);
    for (const clock of clocks) if ('db' in clock) await clock.db.exec(timeFunctions(clock.schema));
  },
  async advanceTo(epochSeconds, ms = 0) {
    const ahead = epochSeconds * 1000 + ms - shiftedNow();
    if (ahead > 0) await this.advance(ahead);
  },
};
