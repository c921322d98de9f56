import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBenchmark } from '../main.js';
import { log } from '../processes.js';
import { type Part, type ScaleConfig, readConfig, selectedParts } from './config.js';
import { connect } from './database.js';
import { cleanupPart } from './parts/cleanup.js';
import { realmsPart } from './parts/realms.js';
import { soakPart } from './parts/soak.js';
import { tokensPart } from './parts/tokens.js';
import { type PartResult, formatTable } from './report.js';
import { buildOnce } from './server.js';

/**
 * `npm run bench:scale [-- realms tokens cleanup soak]` (README.md): the scale targets of
 * issue 9, each part on its own throwaway PostgreSQL database, dropped when it ends.
 */
const RUNNERS: Record<Part, (config: ScaleConfig) => Promise<PartResult>> = {
  realms: realmsPart,
  tokens: tokensPart,
  cleanup: cleanupPart,
  soak: soakPart,
};

const DEFAULT_OUTPUT = fileURLToPath(new URL('./results/latest.json', import.meta.url));

async function postgresVersion(url: string): Promise<string> {
  const client = await connect(url);
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const parts = selectedParts(process.argv.slice(2));
  const config = readConfig(DEFAULT_OUTPUT);
  const startedAt = new Date();
  const postgres = await postgresVersion(config.serverUrl);
  log(`parts: ${parts.join(', ')}; PostgreSQL ${postgres}`);
  await buildOnce();

  const results: PartResult[] = [];
  const { serverUrl: _url, output, ...sizes } = config;
  /** Written after each part, so that a later part's failure or a ctrl-c keeps what was measured. */
  const write = (): boolean => {
    const ok = results.length === parts.length && results.every((result) => result.checks.every((check) => check.pass));
    const json = {
      started_at: startedAt.toISOString(),
      minutes: Number(((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)),
      node: process.version,
      postgres,
      machine: { cores: availableParallelism(), memory_gb: Math.round(totalmem() / 2 ** 30) },
      config: sizes,
      parts_selected: parts,
      ok,
      parts: Object.fromEntries(
        results.map((result) => [result.part, { seconds: Math.round(result.seconds), checks: result.checks, figures: result.figures }]),
      ),
    };
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, `${JSON.stringify(json, null, 2)}\n`);
    return ok;
  };
  // On ctrl-c, runBenchmark stops the servers and drops the databases: no further part may start.
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (interrupted = true));
  for (const part of parts) {
    if (interrupted) return new Promise<void>(() => {}); // the exit is runBenchmark's
    log(`part ${part}`);
    const partStarted = performance.now();
    try {
      results.push(await RUNNERS[part](config));
    } catch (error) {
      if (interrupted) return new Promise<void>(() => {});
      // A part that fails (the database, a server) is reported as such; the next parts still run.
      const message = (error as Error).message;
      log(`part ${part} failed: ${(error as Error).stack ?? message}`);
      results.push({
        part,
        seconds: (performance.now() - partStarted) / 1000,
        checks: [{ name: 'ran to the end', measured: message.slice(0, 120), target: 'no failure', pass: false }],
        figures: { error: message },
        notes: [],
      });
    }
    write();
  }

  const ok = write();
  process.stdout.write(formatTable(results));
  process.stdout.write(`\n${ok ? 'every target met' : 'TARGETS MISSED'}; written to ${output}\n`);
}

runBenchmark(main);
