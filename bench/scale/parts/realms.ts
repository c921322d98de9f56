import { log } from '../../processes.js';
import { createBulkRealms } from '../bulk-realms.js';
import type { ScaleConfig } from '../config.js';
import { connect, partDatabase } from '../database.js';
import { type LoadOptions, type Measurement, measure, randomPicks, runLoad } from '../load.js';
import { UNLIMITED, obtainAccessToken, provisionRealm, tokenRequest } from '../provision.js';
import { type PartResult, describe, mb, perSecond, ratio, row } from '../report.js';
import { newMasterKey, startServer } from '../server.js';
import type { ClientCredentials } from '../token-rows.js';

/** Requests prepared for each connection, drawn at random from the clients under load. */
const REQUESTS_PER_CONNECTION = 2000;
const TARGET_RATIO = 0.9;

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * 10,000 realms with 10 clients each: the token endpoint (client credentials, opaque tokens)
 * with requests spread at random over every client of every realm, against one realm of 10
 * clients on the same server (measured first, before the other realms exist, then again
 * between the many-realm runs); and the server's peak RSS.
 */
export async function realmsPart(config: ScaleConfig): Promise<PartResult> {
  const started = performance.now();
  const database = await partDatabase(config.serverUrl);
  const masterKey = newMasterKey();
  const server = await startServer('realmgate-realms', database.url, masterKey, config.cpuProfile);
  const watcher = await connect(database.url);
  try {
    const spreadOver = (clients: readonly ClientCredentials[]): Omit<LoadOptions, 'seconds' | 'amount'> => ({
      baseUrl: server.baseUrl,
      connections: config.connections,
      serverPid: server.pid,
      requestsFor: () => randomPicks(clients, REQUESTS_PER_CONNECTION).map((client) => tokenRequest(server.baseUrl, client)),
    });

    log(`realms: one realm of ${config.clientsPerRealm} clients, ${config.durationSeconds} s`);
    const one = await provisionRealm(server, 'one', {}, config.clientsPerRealm);
    await obtainAccessToken(tokenRequest(server.baseUrl, one[0]!));
    const baseline = await measure(spreadOver(one), config.warmupSeconds, config.durationSeconds);
    const memoryAfterBaseline = server.memory();

    log(`realms: creating ${config.realms} realms of ${config.clientsPerRealm} clients`);
    const bulk = await createBulkRealms(database.url, masterKey, {
      count: config.realms,
      clientsPerRealm: config.clientsPerRealm,
      settings: UNLIMITED,
    });
    log(`realms: created in ${bulk.seconds.toFixed(1)} s`);
    for (const client of randomPicks(bulk.clients, 5)) await obtainAccessToken(tokenRequest(server.baseUrl, client));

    // Each client once, so that the measured run finds the caches as in a server that has run a while.
    log(`realms: warm pass, one request of each of the ${bulk.clients.length} clients`);
    const order = shuffled(bulk.clients);
    const connections = Math.min(config.connections, order.length);
    const warmPass = await runLoad({
      baseUrl: server.baseUrl,
      connections,
      amount: order.length,
      serverPid: server.pid,
      requestsFor: (n) => order.filter((_, i) => i % connections === n).map((client) => tokenRequest(server.baseUrl, client)),
    });
    const memoryAfterWarmPass = server.memory();

    // Alternating, so that the machine's drift (other work on it, the tables growing) falls on both sides.
    const many: Measurement[] = [];
    const ones: Measurement[] = [baseline];
    for (let round = 1; round <= config.rounds; round++) {
      log(`realms: round ${round} of ${config.rounds}: ${config.realms} realms, then the one realm, ${config.durationSeconds} s each`);
      many.push(await measure(spreadOver(bulk.clients), 0, config.durationSeconds));
      ones.push(await measure(spreadOver(one), 0, config.durationSeconds));
    }
    const memory = server.memory();
    const counts = await watcher.query<{ realms: number; clients: number }>(
      'SELECT (SELECT count(*) FROM realms)::int AS realms, (SELECT count(*) FROM clients)::int AS clients',
    );

    const manyPerSecond = mean(many.map((m) => m.requestsPerSecond));
    const onePerSecond = mean(ones.map((m) => m.requestsPerSecond));
    const throughput = ratio(manyPerSecond, onePerSecond);
    const errors = [...ones, warmPass, ...many].reduce((sum, m) => sum + m.errors, 0);
    return {
      part: 'realms',
      seconds: (performance.now() - started) / 1000,
      checks: [
        {
          name: `token endpoint, ${config.realms} realms × ${config.clientsPerRealm} clients vs 1 realm`,
          measured: `${perSecond(manyPerSecond)} vs ${perSecond(onePerSecond)} (×${throughput.toFixed(2)})`,
          target: `≥ ×${TARGET_RATIO.toFixed(2)}, no errors`,
          pass: throughput >= TARGET_RATIO && errors === 0,
        },
        {
          name: 'peak RSS of the server',
          measured: mb(memory.peakRssMb),
          target: `≤ ${mb(config.rssBudgetMb)}`,
          pass: memory.peakRssMb <= config.rssBudgetMb,
        },
      ],
      figures: {
        realms_in_database: counts.rows[0]!.realms,
        clients_in_database: counts.rows[0]!.clients,
        setup: { via: 'the store module of dist/ (insertRealm; clients with INSERT … unnest)', seconds: Number(bulk.seconds.toFixed(1)) },
        one_realm_before_bulk: row(baseline),
        warm_pass: row(warmPass),
        rounds: many.map((m, i) => ({ many_realms: row(m), one_realm: row(ones[i + 1]!) })),
        requests_per_s: { many_realms_mean: Math.round(manyPerSecond), one_realm_mean: Math.round(onePerSecond) },
        throughput_ratio: throughput,
        errors,
        rss_mb: {
          after_one_realm: memoryAfterBaseline.rssMb,
          after_warm_pass: memoryAfterWarmPass.rssMb,
          at_end: memory.rssMb,
          peak: memory.peakRssMb,
          budget: config.rssBudgetMb,
        },
      },
      notes: [
        `setup: ${counts.rows[0]!.realms} realms and ${counts.rows[0]!.clients} clients in the database, ${config.realms} realms written in ${bulk.seconds.toFixed(1)} s`,
        `1 realm (before the bulk):  ${describe(baseline)}`,
        `warm pass:                  ${describe(warmPass)}`,
        ...many.flatMap((m, i) => [
          `round ${i + 1}, ${`${config.realms} realms:`.padEnd(15)} ${describe(m)}`,
          `round ${i + 1}, 1 realm:        ${describe(ones[i + 1]!)}`,
        ]),
        `means: ${perSecond(manyPerSecond)} over ${config.realms} realms, ${perSecond(onePerSecond)} on 1 realm`,
        `RSS: ${mb(memoryAfterBaseline.rssMb)} after 1 realm, ${mb(memoryAfterWarmPass.rssMb)} after the warm pass, ${mb(memory.rssMb)} at the end, peak ${mb(memory.peakRssMb)}`,
      ],
    };
  } finally {
    await watcher.end();
    await server.stop();
    await database.drop();
  }
}
