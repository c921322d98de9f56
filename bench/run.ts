import { type LoadOptions, type Measurement, measure } from './load.js';
import { benchStore, runBenchmark, wholeNumber } from './main.js';
import { checkActive, clientCredentialsRequest, introspectionRequest, obtainAccessToken } from './oauth.js';
import { log } from './processes.js';
import { type Results, type RunInfo, SCENARIOS, type Scenario, type ServerName, SERVERS, formatTables, toJson } from './report.js';
import { startCeiling } from './targets/ceiling.js';
import { startOidcProvider } from './targets/oidc-provider.js';
import { startRealmgate } from './targets/realmgate.js';
import type { Target } from './targets/target.js';



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
  const { store, databaseUrl } = await benchStore();
  const info: RunInfo = { ...load, store, node: process.version };

  const starters: Record<ServerName, () => Promise<Target>> = {
    realmgate: () => startRealmgate(databaseUrl),
    'realmgate-jwt': () => startRealmgate(databaseUrl, 'stateless'),
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

runBenchmark(main);
