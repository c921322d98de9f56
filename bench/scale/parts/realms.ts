import { log } from '../../processes.js';
import { createBulkRealms } from '../bulk-realms.js';
import type { ScaleConfig } from '../config.js';
import { connect, databaseActivity, partDatabase } from '../database.js';
import { type LoadOptions, type Measurement, alternate, mean, randomPicks, runLoad, setupCost, withDatabaseCpu } from '../load.js';
import { UNLIMITED, obtainAccessToken, provisionRealm, tokenRequest } from '../provision.js';
import { backendsOf, favourWithBackends } from '../priority.js';
import { type PartResult, describe, mb, perSecond, ratio, row } from '../report.js';
import { type ScaleServer, newMasterKey, startServer } from '../server.js';
import type { ClientCredentials } from '../token-rows.js';

/** Requests prepared for each connection, drawn at random from the clients under load. */
const REQUESTS_PER_CONNECTION = 2000;
const TARGET_RATIO = 0.9;

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
 * with requests spread at random over every client of every realm, against a one-realm
 * setup (a server and database of its own holding one realm of 10 clients) measured in
 * alternation with it; and the peak RSS of the many-realm server.
 */
export async function realmsPart(config: ScaleConfig): Promise<PartResult> {
  const started = performance.now();
  const oneDatabase = await partDatabase(config.serverUrl);
  const manyDatabase = await partDatabase(config.serverUrl);
  const manyKey = newMasterKey();
  const servers: ScaleServer[] = [];
  const watcher = await connect(config.serverUrl);
  try {
    const oneServer = await startServer('realmgate-one-realm', oneDatabase.url, newMasterKey(), config.cpuProfile);
    servers.push(oneServer);
    const manyServer = await startServer('realmgate-many-realms', manyDatabase.url, manyKey, config.cpuProfile);
    servers.push(manyServer);
    const favourBoth = () => favourWithBackends(watcher, [oneDatabase.name, manyDatabase.name], [oneServer.pid, manyServer.pid]);
    const spreadOver = (server: ScaleServer, clients: readonly ClientCredentials[]): Omit<LoadOptions, 'seconds' | 'amount'> => ({
      baseUrl: server.baseUrl,
      connections: config.connections,
      serverPid: server.pid,
      requestsFor: () => randomPicks(clients, REQUESTS_PER_CONNECTION).map((client) => tokenRequest(server.baseUrl, client)),
    });

    log(`realms: the one-realm setup, ${config.clientsPerRealm} clients`);
    const one = await provisionRealm(oneServer, 'one', {}, config.clientsPerRealm);
    await obtainAccessToken(tokenRequest(oneServer.baseUrl, one[0]!));
    if (config.warmupSeconds > 0) await runLoad({ ...spreadOver(oneServer, one), seconds: config.warmupSeconds });

    log(`realms: creating ${config.realms} realms of ${config.clientsPerRealm} clients`);
    const bulk = await createBulkRealms(manyDatabase.url, manyKey, {
      count: config.realms,
      clientsPerRealm: config.clientsPerRealm,
      settings: UNLIMITED,
    });
    log(`realms: created in ${bulk.seconds.toFixed(1)} s`);
    for (const client of randomPicks(bulk.clients, 5)) await obtainAccessToken(tokenRequest(manyServer.baseUrl, client));
    const memoryBeforeLoad = manyServer.memory();

    // Each client once, so that the measured runs find the caches as in a server that has run a while.
    log(`realms: warm pass, one request of each of the ${bulk.clients.length} clients`);
    await favourBoth();
    const order = shuffled(bulk.clients);
    const connections = Math.min(config.connections, order.length);
    const warmPass = await runLoad({
      baseUrl: manyServer.baseUrl,
      connections,
      amount: order.length,
      serverPid: manyServer.pid,
      requestsFor: (n) => order.filter((_, i) => i % connections === n).map((client) => tokenRequest(manyServer.baseUrl, client)),
    });
    const memoryAfterWarmPass = manyServer.memory();
    const heapAfterWarmPass = await manyServer.heap();

    const rounds = await alternate(config.rounds, {
      one: () => {
        log(`realms: 1 realm, ${config.durationSeconds} s`);
        return withDatabaseCpu(() => runLoad({ ...spreadOver(oneServer, one), seconds: config.durationSeconds }), () => backendsOf(watcher, [oneDatabase.name]), () => databaseActivity(watcher, oneDatabase.name));
      },
      many: () => {
        log(`realms: ${config.realms} realms, ${config.durationSeconds} s`);
        return withDatabaseCpu(() => runLoad({ ...spreadOver(manyServer, bulk.clients), seconds: config.durationSeconds }), () => backendsOf(watcher, [manyDatabase.name]), () => databaseActivity(watcher, manyDatabase.name));
      },
    }, favourBoth);
    const memory = manyServer.memory();
    const heap = { many: await manyServer.heap(), one: await oneServer.heap() };
    const counter = await connect(manyDatabase.url);
    const counts = await counter
      .query<{ realms: number; clients: number }>('SELECT (SELECT count(*) FROM realms)::int AS realms, (SELECT count(*) FROM clients)::int AS clients')
      .finally(() => counter.end());

    const manyPerSecond = mean(rounds.map((r) => r.many.requestsPerSecond));
    const onePerSecond = mean(rounds.map((r) => r.one.requestsPerSecond));
    const throughput = ratio(manyPerSecond, onePerSecond);
    const cost = { one: setupCost(rounds.map((r) => r.one)), many: setupCost(rounds.map((r) => r.many)) };
    const errors = [warmPass, ...rounds.flatMap((r) => [r.one, r.many])].reduce((sum, m: Measurement) => sum + m.errors, 0);
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
          name: `peak RSS, server of ${config.realms} realms`,
          measured: mb(memory.peakRssMb),
          target: `≤ ${mb(config.rssBudgetMb)}`,
          pass: memory.peakRssMb <= config.rssBudgetMb,
        },
      ],
      figures: {
        realms_in_database: counts.rows[0]!.realms,
        clients_in_database: counts.rows[0]!.clients,
        setup: { via: 'the store module of dist/ (insertRealm; clients with INSERT … unnest)', seconds: Number(bulk.seconds.toFixed(1)) },
        warm_pass: row(warmPass),
        rounds: rounds.map((r) => ({ one_realm: row(r.one), many_realms: row(r.many) })),
        requests_per_s: { many_realms_mean: Math.round(manyPerSecond), one_realm_mean: Math.round(onePerSecond) },
        throughput_ratio: throughput,
        server_cpu_ms_per_request: { many_realms_mean: cost.many.cpuMsPerRequest, one_realm_mean: cost.one.cpuMsPerRequest },
        database_cpu_ms_per_request: { many_realms_mean: cost.many.databaseCpuMsPerRequest, one_realm_mean: cost.one.databaseCpuMsPerRequest },
        errors,
        timeouts: warmPass.timeouts + cost.one.timeouts + cost.many.timeouts,
        rss_mb: {
          one_realm_server_peak: oneServer.memory().peakRssMb,
          many_realms_before_load: memoryBeforeLoad.rssMb,
          many_realms_after_warm_pass: memoryAfterWarmPass.rssMb,
          many_realms_at_end: memory.rssMb,
          many_realms_peak: memory.peakRssMb,
          budget: config.rssBudgetMb,
        },
        v8_heap_mb: { many_realms_after_warm_pass: heapAfterWarmPass, many_realms_at_end: heap.many, one_realm_at_end: heap.one },
      },
      notes: [
        `setup: ${counts.rows[0]!.realms} realms and ${counts.rows[0]!.clients} clients in the database, ${config.realms} realms written in ${bulk.seconds.toFixed(1)} s`,
        `warm pass:                ${describe(warmPass)}`,
        ...rounds.flatMap((r, i) => [
          `round ${i + 1}, 1 realm:        ${describe(r.one)}`,
          `round ${i + 1}, ${`${config.realms} realms:`.padEnd(15)} ${describe(r.many)}`,
        ]),
        `means: ${perSecond(manyPerSecond)} over ${config.realms} realms, ${perSecond(onePerSecond)} on 1 realm; server CPU ${cost.many.cpuMsPerRequest} against ${cost.one.cpuMsPerRequest} ms a request, PostgreSQL's ${cost.many.databaseCpuMsPerRequest} against ${cost.one.databaseCpuMsPerRequest}; timeouts ${cost.many.timeouts} and ${cost.one.timeouts}`,
        `RSS of the ${config.realms}-realm server: ${mb(memoryBeforeLoad.rssMb)} before load, ${mb(memoryAfterWarmPass.rssMb)} after the warm pass, ${mb(memory.rssMb)} at the end, peak ${mb(memory.peakRssMb)} (1-realm server: peak ${mb(oneServer.memory().peakRssMb)})`,
        `V8 heap used / total, external: ${config.realms}-realm server ${heap.many.usedMb} / ${heap.many.totalMb} MB, ${heap.many.externalMb} MB at the end (${heapAfterWarmPass.usedMb} / ${heapAfterWarmPass.totalMb} MB after the warm pass); 1-realm server ${heap.one.usedMb} / ${heap.one.totalMb} MB, ${heap.one.externalMb} MB`,
      ],
    };
  } finally {
    await watcher.end();
    for (const server of servers) await server.stop();
    await oneDatabase.drop();
    await manyDatabase.drop();
  }
}
