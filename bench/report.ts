import { type Budget, type SignatureCosts, budgetOf, formatBudget } from './budget.js';
import type { Scenario, ServerResult, Settings } from './scenarios.js';
import { SERVERS, type ServerName } from './targets/target.js';

/**
 * A scenario's cell for one server: measured (perhaps standing for another scenario's), or left
 * out. With several rounds (BENCH_ROUNDS), `result` is the round of the median rate.
 */
export type Cell =
  | { readonly result: ServerResult; readonly rounds?: readonly ServerResult[]; readonly sameAs?: string }
  | { readonly unsupported: string };

export interface RunInfo {
  readonly settings: Settings;
  readonly store: 'postgres' | 'pglite';
  readonly node: string;
  readonly cpus: number;
  readonly commit: string | undefined;
  readonly date: string;
  /** The argon2id parameters both realmgate and the peer hash passwords with. */
  readonly argon2: Record<string, number>;
  /** One signature's CPU per algorithm, measured before the servers start (bench/budget.ts). */
  readonly signatures: SignatureCosts;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));
const MIB = 1024 * 1024;

/** The JSON of one server's measurement, with the rate of each round when there were several. */
function serverJson(result: ServerResult, rounds: readonly ServerResult[] = [result]) {
  const { cpu } = result;
  const per = (seconds: number | undefined) => (seconds === undefined ? null : round(seconds / cpu.elapsedS, 2));
  return {
    unit: result.unit,
    rate: round(result.rate, result.unit === 'flows/s' ? 2 : 1),
    p50_ms: result.p50Ms,
    p99_ms: result.p99Ms,
    count: result.count,
    errors: result.errors,
    error_samples: result.errorSamples,
    // CPU seconds of the server process over the measured run, and the cores that is.
    cpu_s: cpu.serverCpuS === undefined ? null : round(cpu.serverCpuS, 2),
    cores: per(cpu.serverCpuS),
    // Requests answered (or flows completed) per CPU second of the server process: per core.
    per_core: cpu.serverCpuS ? round(result.count / cpu.serverCpuS, 1) : null,
    // realmgate on PostgreSQL: its database backends' CPU, and the rate per CPU second of both.
    db_cpu_s: cpu.databaseCpuS === undefined ? null : round(cpu.databaseCpuS, 2),
    db_cores: per(cpu.databaseCpuS),
    per_core_with_db: cpu.serverCpuS && cpu.databaseCpuS !== undefined ? round(result.count / (cpu.serverCpuS + cpu.databaseCpuS), 1) : null,
    bench_cores: per(cpu.benchCpuS),
    machine_cores: per(cpu.machineCpuS),
    peak_rss_mib: cpu.peakRssBytes === undefined ? null : round(cpu.peakRssBytes / MIB, 1),
    ...(result.meanStepMs ? { mean_step_ms: result.meanStepMs } : {}),
    ...(rounds.length > 1 ? { round_rates: rounds.map((each) => round(each.rate, each.unit === 'flows/s' ? 2 : 1)) } : {}),
  };
}
type ServerJson = ReturnType<typeof serverJson>;

const ratio = (ours: number | null | undefined, theirs: number | null | undefined): number | null =>
  ours === null || ours === undefined || !theirs ? null : round(ours / theirs, 3);

/** realmgate's values over the other's: above 1 is more throughput (`rate`, `per_core`), or more latency and memory. */
function ratios(ours: ServerJson, theirs: ServerJson) {
  return {
    rate: ratio(ours.rate, theirs.rate),
    per_core: ratio(ours.per_core, theirs.per_core),
    p50_ms: ratio(ours.p50_ms, theirs.p50_ms),
    p99_ms: ratio(ours.p99_ms, theirs.p99_ms),
    peak_rss: ratio(ours.peak_rss_mib, theirs.peak_rss_mib),
  };
}

interface Target {
  readonly name: string;
  readonly scenario: string;
  readonly measure: 'rate_ratio' | 'sign_ins_per_core';
  readonly min: number;
}

/** Issue 9, item 2: from one run, realmgate durable (on PostgreSQL). */
const TARGETS: readonly Target[] = [
  { name: 'client credentials, opaque: realmgate/oidc-provider >= 2', scenario: 'client_credentials', measure: 'rate_ratio', min: 2 },
  { name: 'introspection: realmgate/oidc-provider >= 2', scenario: 'introspection', measure: 'rate_ratio', min: 2 },
  { name: 'client credentials, stateless: realmgate/oidc-provider >= 4', scenario: 'client_credentials_jwt', measure: 'rate_ratio', min: 4 },
  { name: 'refresh: realmgate/oidc-provider >= 2', scenario: 'refresh', measure: 'rate_ratio', min: 2 },
  { name: 'browser flow: sign-ins/s per core of server CPU >= 25', scenario: 'flow', measure: 'sign_ins_per_core', min: 25 },
];

export function toJson(info: RunInfo, scenarios: readonly Scenario[], cells: Record<string, Partial<Record<ServerName, Cell>>>) {
  const flagged: string[] = [];
  const doc = Object.fromEntries(
    scenarios.map((scenario) => {
      const servers: Record<string, ServerJson & { same_as?: string } | { unsupported: string }> = {};
      const measured: Partial<Record<ServerName, ServerJson>> = {};
      for (const server of SERVERS) {
        const cell = cells[scenario.name]?.[server];
        if (!cell) continue;
        if ('unsupported' in cell) {
          servers[server] = { unsupported: cell.unsupported };
          continue;
        }
        const json = serverJson(cell.result, cell.rounds);
        measured[server] = json;
        servers[server] = cell.sameAs ? { ...json, same_as: cell.sameAs } : json;
        for (const each of cell.sameAs ? [] : (cell.rounds ?? [cell.result])) {
          if (each.errors > 0 || each.count === 0) {
            flagged.push(`${scenario.name}/${server}: ${each.errors} errors, ${each.count} answered (${each.errorSamples.join(' | ')})`);
          }
        }
      }
      const ours = measured.realmgate;
      const scenarioRatios = Object.fromEntries(
        (['oidc-provider', 'ceiling'] as const).flatMap((other) => {
          const theirs = measured[other];
          return ours && theirs ? [[`realmgate/${other}`, ratios(ours, theirs)]] : [];
        }),
      );
      return [scenario.name, { title: scenario.title, servers, ratios: scenarioRatios }];
    }),
  );

  const isFlagged = (scenario: string) => flagged.some((line) => line.startsWith(`${scenario}/`));
  const targets = TARGETS.filter((target) => target.scenario in doc).map((target) => {
    const entry = doc[target.scenario]!;
    let measuredValue: number | null = null;
    if (target.measure === 'rate_ratio') measuredValue = entry.ratios['realmgate/oidc-provider']?.rate ?? null;
    else {
      const realmgate = entry.servers.realmgate;
      measuredValue = realmgate && 'per_core' in realmgate ? realmgate.per_core : null;
    }
    const comparable = measuredValue !== null && !isFlagged(target.scenario) && info.store === 'postgres';
    const met = comparable ? measuredValue! >= target.min : null;
    const budget: Budget | null =
      target.measure === 'rate_ratio' ? budgetOf(target.scenario, target.min, entry.servers, info.signatures, info.cpus) : null;
    return { target: target.name, scenario: target.scenario, min: target.min, measured: measuredValue, met, budget };
  });

  return {
    store: info.store,
    node: info.node,
    cpus: info.cpus,
    commit: info.commit ?? null,
    date: info.date,
    duration_s: info.settings.load.durationSeconds,
    warmup_s: info.settings.load.warmupSeconds,
    connections: info.settings.load.connections,
    flow_concurrency: info.settings.flowConcurrency,
    argon2id: info.argon2,
    signature_us: info.signatures,
    server_cpus: process.env.BENCH_SERVER_CPUS || null,
    scenarios: doc,
    targets,
    ok: flagged.length === 0,
    flagged,
  };
}

export type RunJson = ReturnType<typeof toJson>;

const times = (value: number | null | undefined): string => (value === null || value === undefined ? 'n/a' : `x${value.toFixed(2)}`);
const orNa = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function formatTables(run: RunJson): string {
  const lines: string[] = [
    `store ${run.store}, node ${run.node}, ${run.cpus} cores; ${run.connections} connections (flows: ${run.flow_concurrency} browsers), ${run.duration_s} s after a ${run.warmup_s} s warm-up`,
    'cores: of the server process; db cores: of its PostgreSQL backends; machine: cores busy on the whole machine (anything else included)',
    '',
  ];
  const cell = (value: string | number, width: number): string => String(value).padStart(width);
  for (const [name, scenario] of Object.entries(run.scenarios)) {
    const flow = Object.values(scenario.servers).some((server) => 'unit' in server && server.unit === 'flows/s');
    lines.push(`${name}: ${scenario.title}`);
    lines.push(
      `${'server'.padEnd(15)}${cell(flow ? 'flows/s' : 'req/s', 10)}${cell('p50 ms', 9)}${cell('p99 ms', 9)}${cell('errors', 8)}${cell('cores', 7)}${cell(flow ? 'flows/core-s' : 'req/core-s', 13)}${cell('db cores', 10)}${cell('RSS MiB', 9)}${cell('machine', 9)}`,
    );
    for (const [server, result] of Object.entries(scenario.servers)) {
      if ('unsupported' in result) {
        lines.push(`${server.padEnd(15)}  not measured: ${result.unsupported}`);
        continue;
      }
      lines.push(
        `${server.padEnd(15)}${cell(orNa(result.rate, flow ? 1 : 0), 10)}${cell(result.p50_ms, 9)}${cell(result.p99_ms, 9)}${cell(result.errors, 8)}${cell(orNa(result.cores, 2), 7)}${cell(orNa(result.per_core, flow ? 1 : 0), 13)}${cell(orNa(result.db_cores, 2), 10)}${cell(orNa(result.peak_rss_mib), 9)}${cell(orNa(result.machine_cores, 2), 9)}${result.same_as ? `  (measured in ${result.same_as})` : ''}`,
      );
      if ('round_rates' in result && result.round_rates && !result.same_as) {
        lines.push(`${''.padEnd(15)}rounds, in order: ${result.round_rates.map((rate) => orNa(rate, flow ? 1 : 0)).join(' / ')} (the median round is shown)`);
      }
    }
    for (const [pair, r] of Object.entries(scenario.ratios)) {
      lines.push(`  ${pair.padEnd(24)} rate ${times(r.rate)}   per core ${times(r.per_core)}   p50 ${times(r.p50_ms)}   p99 ${times(r.p99_ms)}   RSS ${times(r.peak_rss)}`);
    }
    const realmgate = scenario.servers.realmgate;
    if (realmgate && 'mean_step_ms' in realmgate) {
      for (const [server, result] of Object.entries(scenario.servers)) {
        if ('mean_step_ms' in result && result.mean_step_ms) {
          const steps = Object.entries(result.mean_step_ms).map(([step, ms]) => `${step} ${ms}`);
          lines.push(`  ms per flow, ${server}: ${steps.join(', ')}`);
        }
      }
    }
    lines.push('');
  }
  if (run.targets.length > 0) {
    lines.push(`targets (issue 9; realmgate on ${run.store}${run.store === 'postgres' ? '' : ': the targets are for PostgreSQL, not judged'}):`);
    for (const target of run.targets) {
      const verdict = target.met === null ? 'not judged' : target.met ? 'MET' : 'NOT MET';
      const value = target.measured === null ? 'n/a' : target.scenario === 'flow' ? target.measured.toFixed(1) : `x${target.measured.toFixed(2)}`;
      lines.push(`  ${target.target.padEnd(58)} ${value.padStart(7)}  ${verdict}`);
      if (target.budget) lines.push(`    ${formatBudget(target.budget)}`);
    }
    lines.push('');
  }
  for (const problem of run.flagged) lines.push(`FLAGGED ${problem}`);
  return `${lines.join('\n')}\n`;
}

/** The README's table: one row per scenario and server. */
export function formatMarkdown(run: RunJson): string {
  const rows = [
    '| scenario | server | rate | p50 ms | p99 ms | server cores | per core | RSS MiB | realmgate ÷ this |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, scenario] of Object.entries(run.scenarios)) {
    let first = true;
    for (const [server, result] of Object.entries(scenario.servers)) {
      const label = first ? name.replaceAll('_', ' ') : '';
      first = false;
      if ('unsupported' in result) {
        rows.push(`| ${label} | ${server} | n/a | | | | | | |`);
        continue;
      }
      const r = scenario.ratios[`realmgate/${server}` as keyof typeof scenario.ratios];
      const db = result.db_cores === null ? '' : ` + ${orNa(result.db_cores, 2)} db`;
      rows.push(
        `| ${label} | ${server} | ${orNa(result.rate, result.unit === 'flows/s' ? 1 : 0)} ${result.unit} | ${result.p50_ms} | ${result.p99_ms} | ${orNa(result.cores, 2)}${db} | ${orNa(result.per_core, 1)} | ${orNa(result.peak_rss_mib)} | ${r ? times(r.rate) : ''} |`,
      );
    }
  }
  return `${rows.join('\n')}\n`;
}
