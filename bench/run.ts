import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PASSWORD_HASHING } from '../src/authn/password-hashing.js';
import { measureSignatures } from './budget.js';
import { benchStore, runBenchmark, wholeNumber } from './main.js';
import { log } from './processes.js';
import { type Cell, formatMarkdown, formatTables, toJson } from './report.js';
import { SCENARIOS, type Scenario, type ServerResult, type Settings, runScenario, usernamesFor } from './scenarios.js';
import { chartSvg } from './svg.js';
import { startCeiling } from './targets/ceiling.js';
import { startOidcProvider } from './targets/oidc-provider.js';
import { startRealmgate } from './targets/realmgate.js';
import { SERVERS, type ServerName, type Target, type TargetOptions } from './targets/target.js';

/**
 * `npm run bench [scenario…]`: every scenario (or those named), each on realmgate,
 * node-oidc-provider and the ceiling, one server process at a time; see bench/README.md.
 */

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const PASSWORD = 'correct horse battery staple';

function selectedScenarios(): Scenario[] {
  const names = process.argv.slice(2);
  if (names.length === 0) return [...SCENARIOS];
  const unknown = names.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return SCENARIOS.filter((scenario) => names.includes(scenario.name));
}

function selectedServers(): readonly ServerName[] {
  const raw = process.env.BENCH_SERVERS;
  if (!raw) return SERVERS;
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SERVERS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_SERVERS: unknown server ${unknown.join(', ')}; known: ${SERVERS.join(', ')}`);
  return SERVERS.filter((server) => names.includes(server));
}

function git(...args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The commit realmgate was built from, marked when src/ had changes not yet committed. */
function gitCommit(): string | undefined {
  const commit = git('rev-parse', 'HEAD');
  return commit && git('status', '--porcelain', '--', 'src') ? `${commit} with uncommitted changes to src/` : commit;
}

/** The round of the median rate (the lower middle one of an even number). */
function medianByRate(results: readonly ServerResult[]): ServerResult {
  return [...results].sort((a, b) => a.rate - b.rate)[Math.floor((results.length - 1) / 2)]!;
}

async function main(): Promise<void> {
  const started = Date.now();
  const settings: Settings = {
    load: {
      connections: wholeNumber('BENCH_CONNECTIONS', 50, 1),
      durationSeconds: wholeNumber('BENCH_DURATION', 10, 1),
      warmupSeconds: wholeNumber('BENCH_WARMUP', 2, 0),
    },
    flowConcurrency: wholeNumber('BENCH_FLOW_CONCURRENCY', 4, 1),
  };
  const scenarios = selectedScenarios();
  const servers = selectedServers();
  // Before any server runs: the signatures' cost on an idle machine, a floor of the budget.
  const signatures = measureSignatures();
  log(`one signature: ES256 ${signatures.ES256} µs, RS256 ${signatures.RS256} µs`);
  const { store, databaseUrl } = await benchStore();

  const starters: Record<ServerName, (options: TargetOptions) => Promise<Target>> = {
    realmgate: (options) => startRealmgate(databaseUrl, options),
    'oidc-provider': startOidcProvider,
    ceiling: startCeiling,
  };

  const rounds = wholeNumber('BENCH_ROUNDS', 1, 1);
  const cells: Record<string, Partial<Record<ServerName, Cell>>> = {};
  for (const scenario of scenarios) {
    const row: Partial<Record<ServerName, Cell>> = (cells[scenario.name] = {});
    const measured: Partial<Record<ServerName, ServerResult[]>> = {};
    for (let round = 0; round < rounds; round++) {
      // Each round starts with another server, so that none is always measured first after a pause.
      for (const server of [...servers.slice(round % servers.length), ...servers.slice(0, round % servers.length)]) {
        const unsupported = scenario.unsupported?.[server];
        if (unsupported) {
          row[server] = { unsupported };
          continue;
        }
        const stand = server === 'ceiling' ? scenario.ceilingSameAs : undefined;
        const standsFor = stand ? cells[stand]?.ceiling : undefined;
        if (stand && standsFor && 'result' in standsFor) {
          row[server] = { ...standsFor, sameAs: stand };
          continue;
        }
        // Each scenario on a server of its own: its peak memory is the scenario's, and nothing is left from another.
        // Each round in a realm of its own, beside the earlier rounds' tokens.
        const realm = scenario.name.replaceAll('_', '-');
        const target = await starters[server]({
          tokens: scenario.tokens,
          realm: round === 0 ? realm : `${realm}-${round + 1}`,
          usernames: usernamesFor(scenario, settings),
          password: PASSWORD,
        });
        try {
          (measured[server] ??= []).push(await runScenario(scenario, server, target, settings));
        } finally {
          await target.stop();
        }
      }
    }
    for (const [server, results] of Object.entries(measured) as Array<[ServerName, ServerResult[]]>) {
      row[server] = { result: medianByRate(results), rounds: results };
    }
  }

  const argon2 = { ...PASSWORD_HASHING };
  const run = toJson(
    { settings, store, node: process.version, cpus: availableParallelism(), commit: gitCommit(), date: new Date().toISOString(), argon2, signatures },
    scenarios,
    cells,
  );
  process.stdout.write(formatTables(run));
  process.stdout.write(`\n${formatMarkdown(run)}\n`);

  // A run of every scenario and server is the one the README shows; a part of one goes beside it.
  const complete = scenarios.length === SCENARIOS.length && servers.length === SERVERS.length;
  const base = process.env.BENCH_OUTPUT || `${RESULTS}${complete ? 'latest' : 'partial'}`;
  mkdirSync(dirname(base), { recursive: true });
  writeFileSync(`${base}.json`, `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(`${base}.svg`, chartSvg(run));
  log(`wrote ${base}.json and ${base}.svg, ${Math.round((Date.now() - started) / 1000)} s after the start`);
  if (!run.ok) process.exitCode = 1;
}

runBenchmark(main);
