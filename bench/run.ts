import { type LoadOptions, type Measurement, measure } from './load.js';
import { checkActive, clientCredentialsRequest, introspectionRequest, obtainAccessToken } from './oauth.js';
import { createThrowawayDatabase } from './postgres.js';
import { log, stopAll } from './processes.js';
import { type Results, type RunInfo, SCENARIOS, type Scenario, type ServerName, SERVERS, formatTables, toJson } from './report.js';
import { startCeiling } from './targets/ceiling.js';
import { startOidcProvider } from './targets/oidc-provider.js';
import { startRealmgate } from './targets/realmgate.js';
import type { Target } from './targets/target.js';

function wholeNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name}: expected a whole number from ${min}, got ${raw}`);
  return value;
}

const cleanups: Array<() => Promise<void>> = [];
/** Stops every server, then drops the throwaway database; safe to call twice. */
async function cleanup(): Promise<void> {
  await stopAll();
  for (let task = cleanups.pop(); task; task = cleanups.pop()) {
    await task().catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
  }
}

// `on`, not `once`: ctrl-c reaches the whole process group, and tsx relays it once more;
// a signal with no listener left would end the process before the cleanup is done.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** One server alone on the machine: started, driven on both scenarios, stopped. */
async function benchmark(name: ServerName, start: () => Promise<Target>, load: LoadOptions): Promise<Record<Scenario, Measurement>> {
  log(`starting ${name}`);
  const target = await start();
  try {
    const tokenRequest = clientCredentialsRequest(target.token);
    await obtainAccessToken(tokenRequest);
    log(`${name}: client_credentials`);
    const clientCredentials = await measure(tokenRequest, load);

    // Obtained after the token run: oidc-provider's in-memory adapter keeps only the latest 1000 entries.
    const introspection = introspectionRequest(target.introspection, await obtainAccessToken(tokenRequest));
    await checkActive(introspection);
    log(`${name}: introspection`);
    return { client_credentials: clientCredentials, introspection: await measure(introspection, load) };
  } finally {
    await target.stop();
  }
}

async function main(): Promise<void> {
  const load: LoadOptions = {
    connections: wholeNumber('BENCH_CONNECTIONS', 50, 1),
    durationSeconds: wholeNumber('BENCH_DURATION', 10, 1),
    warmupSeconds: wholeNumber('BENCH_WARMUP', 2, 0),
  };
  const serverUrl = process.env.DATABASE_URL || undefined;
  const info: RunInfo = { ...load, store: serverUrl ? 'postgres' : 'pglite', node: process.version };

  let databaseUrl: string | undefined;
  if (serverUrl) {
    const database = await createThrowawayDatabase(serverUrl);
    cleanups.push(database.drop);
    databaseUrl = database.url;
    log(`realmgate runs on the throwaway database ${new URL(database.url).pathname.slice(1)}`);
  }

  const starters: Record<ServerName, () => Promise<Target>> = {
    realmgate: () => startRealmgate(databaseUrl),
    'oidc-provider': startOidcProvider,
    ceiling: startCeiling,
  };
  const byServer = {} as Record<ServerName, Record<Scenario, Measurement>>;
  for (const server of SERVERS) byServer[server] = await benchmark(server, starters[server], load);

  const results = Object.fromEntries(
    SCENARIOS.map((scenario) => [scenario, Object.fromEntries(SERVERS.map((server) => [server, byServer[server][scenario]]))]),
  ) as Results;
  process.stdout.write(formatTables(info, results));
  process.stdout.write(`${JSON.stringify(toJson(info, results))}\n`);
}

main().then(
  () => cleanup().then(() => process.exit(0)),
  (error: unknown) => {
    if (stopping) return; // the signal handler is cleaning up; this is only the interrupted run
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    void cleanup().finally(() => process.exit(1));
  },
);
