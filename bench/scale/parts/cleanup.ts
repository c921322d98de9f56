import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { CleanupOptions } from '../../../src/store/cleanup.js';
import { log } from '../../processes.js';
import type { ScaleConfig } from '../config.js';
import { connect, partDatabase, tokensTableMb } from '../database.js';
import { type LoadOptions, randomPicks, runLoad, startLoad } from '../load.js';
import { obtainAccessToken, provisionRealm, tokenRequest } from '../provision.js';
import { type PartResult, describe, ratio, row } from '../report.js';
import { type ScaleServer, fromDist, newMasterKey, startServer } from '../server.js';
import { insertTokenRows } from '../token-rows.js';

const CLIENTS = 10;
const REQUESTS_PER_CONNECTION = 200;
const TARGET_P99_RATIO = 2;
/** The measured run before the server's first cleanup must end this long before it starts. */
const MARGIN_MS = 5000;
/** How long the deletion may take before the part gives up on it. */
const DELETION_LIMIT_MS = 30 * 60_000;

/** Whether the server is running its cleanup's statement on `tokens` (its latest statement on one of its connections). */
async function cleanupStarted(watcher: pg.Client): Promise<boolean> {
  const { rows } = await watcher.query<{ running: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                     WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ~* '^\\s*DELETE FROM tokens\\M') AS running`,
  );
  return rows[0]!.running;
}

async function expiredLeft(watcher: pg.Client): Promise<boolean> {
  const { rows } = await watcher.query<{ left: boolean }>('SELECT EXISTS (SELECT 1 FROM tokens WHERE expires_at < now()) AS left');
  return rows[0]!.left;
}

/**
 * Deleting 1 million expired token rows under load: the p99 of the token endpoint while the
 * server's own cleanup (src/store/cleanup.ts, its production settings) deletes them, against
 * its p99 on the same server just before. The rows are inserted while no server runs; the
 * server then starts, is measured, and its first cleanup run (one interval after it started)
 * deletes them while autocannon runs, until none is left.
 */
export async function cleanupPart(config: ScaleConfig): Promise<PartResult> {
  const started = performance.now();
  const { DEFAULT_CLEANUP: cleanup } = await fromDist<{ DEFAULT_CLEANUP: CleanupOptions }>('store/cleanup.js');
  const baselineMs = (config.warmupSeconds + config.durationSeconds) * 1000;
  if (baselineMs > cleanup.intervalMs - 2 * MARGIN_MS) {
    throw new Error(
      `cleanup: SCALE_WARMUP + SCALE_DURATION must stay under ${(cleanup.intervalMs - 2 * MARGIN_MS) / 1000} s: the measured run comes before the server's first cleanup, ${cleanup.intervalMs / 1000} s after it starts`,
    );
  }
  const database = await partDatabase(config.serverUrl);
  const masterKey = newMasterKey();
  let server: ScaleServer | undefined;
  const watcher = await connect(database.url);
  try {
    // A first server migrates the database and creates the realm; it stops before the rows are written.
    const setup = await startServer('realmgate-setup', database.url, masterKey, false);
    const clients = await provisionRealm(setup, 'cleanup', {}, CLIENTS).finally(() => setup.stop());

    log(`cleanup: inserting ${config.expired.toLocaleString('en')} expired token rows`);
    const { seconds: insertSeconds } = await insertTokenRows(watcher, {
      from: 1,
      to: config.expired,
      seed: randomBytes(12).toString('base64url'),
      owners: clients,
      expiresFrom: '-1 day',
    });
    await watcher.query('VACUUM (ANALYZE) tokens'); // as rows that have sat there a while
    const tableMbBefore = await tokensTableMb(watcher);

    server = await startServer('realmgate-cleanup', database.url, masterKey, config.cpuProfile);
    const serverStarted = performance.now();
    const load: Omit<LoadOptions, 'seconds' | 'amount'> = {
      baseUrl: server.baseUrl,
      connections: config.connections,
      serverPid: server.pid,
      requestsFor: () => randomPicks(clients, REQUESTS_PER_CONNECTION).map((client) => tokenRequest(server!.baseUrl, client)),
    };
    await obtainAccessToken(tokenRequest(server.baseUrl, clients[0]!));
    log(`cleanup: token endpoint before the cleanup, ${config.durationSeconds} s`);
    if (config.warmupSeconds > 0) await runLoad({ ...load, seconds: config.warmupSeconds });
    const before = await runLoad({ ...load, seconds: config.durationSeconds });
    if (performance.now() - serverStarted > cleanup.intervalMs - MARGIN_MS) throw new Error('cleanup: the measured run overlapped the server’s first cleanup; use a shorter SCALE_DURATION');
    if (!(await expiredLeft(watcher))) throw new Error('cleanup: the expired rows were deleted before the measured run ended');

    log(`cleanup: waiting for the server's cleanup (${cleanup.intervalMs / 1000} s after it started)`);
    const waitLimit = serverStarted + cleanup.intervalMs + 30_000;
    while (!(await cleanupStarted(watcher))) {
      if (performance.now() > waitLimit) throw new Error('cleanup: the server did not start deleting the expired rows');
      await sleep(100);
    }
    const deletionStarted = performance.now();
    log('cleanup: deleting; token endpoint under load until no expired row is left');
    const during = startLoad({ ...load });
    while (await expiredLeft(watcher)) {
      if (performance.now() - deletionStarted > DELETION_LIMIT_MS) {
        during.stop();
        throw new Error(`cleanup: expired rows still left after ${DELETION_LIMIT_MS / 60_000} minutes`);
      }
      await sleep(500);
    }
    const deletionSeconds = (performance.now() - deletionStarted) / 1000;
    during.stop();
    const duringRun = await during.done;
    log(`cleanup: deleted in ${deletionSeconds.toFixed(1)} s; token endpoint after the cleanup, ${config.durationSeconds} s`);
    const after = await runLoad({ ...load, seconds: config.durationSeconds });
    const tableMbAfter = await tokensTableMb(watcher);

    const p99Ratio = ratio(duringRun.p99Ms, before.p99Ms);
    const errors = before.errors + duringRun.errors + after.errors;
    const fmt = (n: number) => n.toLocaleString('en');
    return {
      part: 'cleanup',
      seconds: (performance.now() - started) / 1000,
      checks: [
        {
          name: `token endpoint p99 while ${fmt(config.expired)} expired rows are deleted`,
          measured: `${duringRun.p99Ms} ms vs ${before.p99Ms} ms before (×${p99Ratio.toFixed(2)})`,
          target: `≤ ×${TARGET_P99_RATIO}, no errors`,
          pass: p99Ratio <= TARGET_P99_RATIO && errors === 0,
        },
      ],
      figures: {
        expired_rows: config.expired,
        insert_seconds: Math.round(insertSeconds),
        cleanup_settings: { interval_ms: cleanup.intervalMs, batch_size: cleanup.batchSize, pause_ms: cleanup.pauseMs },
        deletion_seconds: Number(deletionSeconds.toFixed(1)),
        deleted_rows_per_s: Math.round(config.expired / deletionSeconds),
        tokens_table_mb: { before: tableMbBefore, after: tableMbAfter },
        before: row(before),
        during: row(duringRun),
        after: row(after),
        p99_ratio: p99Ratio,
        errors,
      },
      notes: [
        `${fmt(config.expired)} expired rows inserted in ${Math.round(insertSeconds)} s; the server's cleanup (batches of ${cleanup.batchSize}, ${cleanup.pauseMs} ms apart) deleted them in ${deletionSeconds.toFixed(1)} s (${fmt(Math.round(config.expired / deletionSeconds))} rows/s)`,
        `before:  ${describe(before)}`,
        `during:  ${describe(duringRun)}`,
        `after:   ${describe(after)}`,
        `tokens table with indexes: ${tableMbBefore} MB before, ${tableMbAfter} MB after`,
      ],
    };
  } finally {
    await watcher.end();
    await server?.stop();
    await database.drop();
  }
}
