import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { log } from '../../processes.js';
import type { ScaleConfig } from '../config.js';
import { connect, databaseActivity, partDatabase, tokensTableMb } from '../database.js';
import { type LoadOptions, alternate, mean, runLoad, setupCost, withDatabaseCpu } from '../load.js';
import { checkActive, introspectRequest, isActive, provisionRealm } from '../provision.js';
import { backendsOf, favourWithBackends } from '../priority.js';
import { type PartResult, describe, perSecond, ratio, row } from '../report.js';
import { type ScaleServer, newMasterKey, startServer } from '../server.js';
import { type OwnCluster, startOwnCluster } from '../own-cluster.js';
import { type ClientCredentials, insertTokenRows, isClientCredentialsToken, ownerOf, tokenValue } from '../token-rows.js';

const REALMS = 4;
const CLIENTS_PER_REALM = 5;
/** Known tokens each connection introspects in a loop, drawn at random from the table. */
const TOKENS_PER_CONNECTION = 500;
const TARGET_RATIO = 0.9;

/** `count` numbers of client credentials tokens among 1..`of`, at random. */
function knownTokens(of: number, count: number): number[] {
  const picked: number[] = [];
  while (picked.length < count) {
    const i = 1 + Math.floor(Math.random() * of);
    if (isClientCredentialsToken(i)) picked.push(i);
  }
  return picked;
}

/** A server on its own database with `rows` token rows of 4 realms × 5 clients, vacuumed and analyzed. */
async function tokenSetup(config: ScaleConfig, name: string, rows: number, profile: boolean, prewarm: boolean) {
  const database = await partDatabase(config.serverUrl);
  const server = await startServer(name, database.url, newMasterKey(), profile);
  const owners: ClientCredentials[] = [];
  for (let r = 0; r < REALMS; r++) owners.push(...(await provisionRealm(server, `tokens-${r}`, {}, CLIENTS_PER_REALM)));
  const seed = randomBytes(12).toString('base64url');
  const bulk = await connect(database.url);
  try {
    await favourWithBackends(bulk, [database.name], [server.pid]);
    log(`tokens: inserting ${rows.toLocaleString('en')} rows`);
    const { seconds: insertSeconds, indexSeconds } = await insertTokenRows(bulk, { from: 1, to: rows, seed, owners, expiresFrom: '1 hour' });
    // What autovacuum does to a table that grew over days (hint bits, visibility map, statistics),
    // done now rather than by autovacuum during the measured runs.
    const vacuumStarted = performance.now();
    await bulk.query('VACUUM (ANALYZE) tokens');
    const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
    // On a cluster sized for the table, its pages as a server that has run a while holds them in
    // its buffers (the index builds and the load wrote them past the buffers).
    const prewarmStarted = performance.now();
    const prewarmedPages = prewarm ? await prewarmTokens(bulk) : 0;
    const prewarmSeconds = (performance.now() - prewarmStarted) / 1000;
    const count = (await bulk.query<{ rows: number }>('SELECT count(*)::int AS rows FROM tokens')).rows[0]!.rows;
    const tableMb = await tokensTableMb(bulk);
    const request = (i: number) => introspectRequest(server.baseUrl, ownerOf(i, owners), tokenValue(seed, i));
    for (const i of knownTokens(rows, 5)) await checkActive(request(i));
    const load: Omit<LoadOptions, 'seconds' | 'amount'> = {
      baseUrl: server.baseUrl,
      connections: config.connections,
      serverPid: server.pid,
      check: isActive,
      requestsFor: () => knownTokens(rows, TOKENS_PER_CONNECTION).map(request),
    };
    return { database, server, load, rows: count, tableMb, insertSeconds, indexSeconds, vacuumSeconds, prewarmedPages, prewarmSeconds };
  } finally {
    await bulk.end();
  }
}

/**
 * 10 million stored tokens: introspection of known tokens drawn at random from the whole
 * table, against a small table (a server and database of their own, the same rows' first
 * ten thousand), measured in alternation. Rows of a few realms and clients, written with one
 * INSERT … SELECT generate_series per half million.
 */
export async function tokensPart(sharedConfig: ScaleConfig): Promise<PartResult> {
  const started = performance.now();
  const smallRows = Math.min(sharedConfig.tokensSmall, sharedConfig.tokens);
  const servers: ScaleServer[] = [];
  const drops: Array<() => Promise<void>> = [];
  let watcher: pg.Client | undefined;
  let cluster: OwnCluster | undefined;
  try {
    // SCALE_PG_SHARED_BUFFERS: both tables on a cluster of the bench's own, sized for them.
    if (sharedConfig.tokensSharedBuffers !== undefined) cluster = await startOwnCluster(sharedConfig.serverUrl, sharedConfig.tokensSharedBuffers);
    const config: ScaleConfig = cluster ? { ...sharedConfig, serverUrl: cluster.url } : sharedConfig;
    const postgresSettings = await postgresSettingsOf(config.serverUrl);
    const small = await tokenSetup(config, 'realmgate-small-table', smallRows, config.cpuProfile, cluster !== undefined);
    servers.push(small.server);
    drops.push(small.database.drop);
    const large = await tokenSetup(config, 'realmgate-large-table', config.tokens, config.cpuProfile, cluster !== undefined);
    servers.push(large.server);
    drops.push(large.database.drop);

    watcher = await connect(config.serverUrl);
    const favourBoth = () => favourWithBackends(watcher!, [small.database.name, large.database.name], [small.server.pid, large.server.pid]);
    await favourBoth();
    if (config.warmupSeconds > 0) {
      await runLoad({ ...small.load, seconds: config.warmupSeconds });
      await runLoad({ ...large.load, seconds: config.warmupSeconds });
    }
    const fmt = (n: number) => n.toLocaleString('en');
    const rounds = await alternate(config.rounds, {
      small: () => {
        log(`tokens: introspection, ${fmt(small.rows)} rows, ${config.durationSeconds} s`);
        return withDatabaseCpu(() => runLoad({ ...small.load, seconds: config.durationSeconds }), () => backendsOf(watcher!, [small.database.name]), () => databaseActivity(watcher!, small.database.name));
      },
      large: () => {
        log(`tokens: introspection, ${fmt(large.rows)} rows, ${config.durationSeconds} s`);
        return withDatabaseCpu(() => runLoad({ ...large.load, seconds: config.durationSeconds }), () => backendsOf(watcher!, [large.database.name]), () => databaseActivity(watcher!, large.database.name));
      },
    }, favourBoth);

    const largePerSecond = mean(rounds.map((r) => r.large.requestsPerSecond));
    const smallPerSecond = mean(rounds.map((r) => r.small.requestsPerSecond));
    const throughput = ratio(largePerSecond, smallPerSecond);
    const errors = rounds.reduce((sum, r) => sum + r.small.errors + r.large.errors, 0);
    const cost = { small: setupCost(rounds.map((r) => r.small)), large: setupCost(rounds.map((r) => r.large)) };
    const table = (setup: typeof small) => ({
      rows: setup.rows,
      table_and_indexes_mb: setup.tableMb,
      insert_seconds: Math.round(setup.insertSeconds),
      insert_rows_per_s: Math.round(setup.rows / setup.insertSeconds),
      of_which_index_build_seconds: Math.round(setup.indexSeconds),
      vacuum_analyze_seconds: Number(setup.vacuumSeconds.toFixed(1)),
      prewarmed_pages: setup.prewarmedPages,
      prewarm_seconds: Number(setup.prewarmSeconds.toFixed(1)),
    });
    return {
      part: 'tokens',
      seconds: (performance.now() - started) / 1000,
      checks: [
        {
          name: `introspection, ${fmt(large.rows)} tokens vs ${fmt(small.rows)}`,
          measured: `${perSecond(largePerSecond)} vs ${perSecond(smallPerSecond)} (×${throughput.toFixed(2)})`,
          target: `≥ ×${TARGET_RATIO.toFixed(2)}, no errors`,
          pass: throughput >= TARGET_RATIO && errors === 0,
        },
      ],
      figures: {
        postgres: { cluster: cluster ? 'own (SCALE_PG_SHARED_BUFFERS)' : 'the server of DATABASE_URL', settings: postgresSettings },
        owners: `${REALMS} realms × ${CLIENTS_PER_REALM} clients`,
        small_table: table(small),
        large_table: table(large),
        rounds: rounds.map((r) => ({ small_table: row(r.small), large_table: row(r.large) })),
        requests_per_s: { large_table_mean: Math.round(largePerSecond), small_table_mean: Math.round(smallPerSecond) },
        throughput_ratio: throughput,
        server_cpu_ms_per_request: { large_table_mean: cost.large.cpuMsPerRequest, small_table_mean: cost.small.cpuMsPerRequest },
        database_cpu_ms_per_request: { large_table_mean: cost.large.databaseCpuMsPerRequest, small_table_mean: cost.small.databaseCpuMsPerRequest },
        errors,
        timeouts: cost.small.timeouts + cost.large.timeouts,
      },
      notes: [
        `PostgreSQL: ${cluster ? 'a cluster of its own' : 'the server of DATABASE_URL'}, ${Object.entries(postgresSettings).map(([name, value]) => `${name}=${value}`).join(', ')}`,
        `small table: ${fmt(small.rows)} rows, ${small.tableMb} MB with indexes`,
        `large table: ${fmt(large.rows)} rows, ${large.tableMb} MB with indexes, inserted in ${Math.round(large.insertSeconds)} s with its indexes (${fmt(Math.round(large.rows / large.insertSeconds))} rows/s; the indexes ${Math.round(large.indexSeconds)} s of it), VACUUM (ANALYZE) ${large.vacuumSeconds.toFixed(1)} s${cluster ? `, ${fmt(large.prewarmedPages)} pages read into the buffers (pg_prewarm) in ${large.prewarmSeconds.toFixed(1)} s` : ''}`,
        ...rounds.flatMap((r, i) => [
          `round ${i + 1}, small table: ${describe(r.small)}`,
          `round ${i + 1}, large table: ${describe(r.large)}`,
        ]),
        `means: ${perSecond(largePerSecond)} on the large table, ${perSecond(smallPerSecond)} on the small one; server CPU ${cost.large.cpuMsPerRequest} against ${cost.small.cpuMsPerRequest} ms a request, PostgreSQL's ${cost.large.databaseCpuMsPerRequest} against ${cost.small.databaseCpuMsPerRequest}; timeouts ${cost.large.timeouts} and ${cost.small.timeouts}`,
      ],
    };
  } finally {
    await watcher?.end();
    for (const server of servers) await server.stop();
    for (const drop of drops) await drop();
    await cluster?.stop();
  }
}

/** Reads the table `tokens` and its indexes into PostgreSQL's buffers (pg_prewarm); the pages read. */
async function prewarmTokens(client: pg.Client): Promise<number> {
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
  const { rows } = await client.query<{ pages: string }>(
    `SELECT sum(pg_prewarm(c.oid))::text AS pages FROM pg_class c
      WHERE c.oid = 'tokens'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'tokens'::regclass)`,
  );
  return Number(rows[0]!.pages);
}

/** What bears on lookups in a table larger than memory: the buffers, what the planner assumes, vacuum. */
async function postgresSettingsOf(url: string): Promise<Record<string, string>> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ name: string; value: string }>(
      `SELECT name, current_setting(name) AS value FROM unnest($1::text[]) WITH ORDINALITY AS s(name, n) ORDER BY n`,
      [['server_version', 'shared_buffers', 'effective_cache_size', 'work_mem', 'autovacuum', 'fsync', 'synchronous_commit', 'max_wal_size']],
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  } finally {
    await client.end();
  }
}
