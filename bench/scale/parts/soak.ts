import { log } from '../../processes.js';
import type { ScaleConfig } from '../config.js';
import { connect, partDatabase } from '../database.js';
import type { HttpRequest } from '../http.js';
import { randomPicks, startLoad } from '../load.js';
import { processCpuSeconds } from '../procfs.js';
import { checkActive, introspectRequest, isActive, obtainAccessToken, provisionRealm, tokenRequest } from '../provision.js';
import { type PartResult, describe, mb, row } from '../report.js';
import { type Memory, newMasterKey, startServer } from '../server.js';
import type { ClientCredentials } from '../token-rows.js';

/** Short lifetimes, so that the server's cleanup deletes, every minute, the rows the soak writes. */
const CHURN = { access_token_lifetime: 60, audit_event_lifetime: 60 };
const TOKENS_TO_INTROSPECT = 200;
const REQUESTS_PER_CONNECTION = 200;
const FLAT_WITHIN = 0.1;

interface Sample {
  readonly second: number;
  readonly rssMb: number;
  /** V8 heap in use (live objects and garbage not yet collected), as /metrics reports it. */
  readonly heapUsedMb: number;
  /** The V8 heap's size, what it holds in memory whether used or not. */
  readonly heapTotalMb: number;
  /** Memory held outside the V8 heap by JavaScript objects (Buffers). */
  readonly externalMb: number;
  /** Cores the server kept busy since the previous sample. */
  readonly cores: number;
}

const mean = (values: readonly number[]): number => (values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length);
const meanOf = (samples: readonly Sample[], field: 'rssMb' | 'heapTotalMb'): number => Math.round(mean(samples.map((s) => s[field])));
const meanRss = (samples: readonly Sample[]): number => meanOf(samples, 'rssMb');

/**
 * A soak: mixed load for SCALE_SOAK_SECONDS (opaque client credentials tokens that expire in a
 * minute, stateless JWT access tokens, introspection of both), the server's RSS sampled every
 * few seconds. Flat: the mean RSS of the last window (a minute, or a third of a shorter soak)
 * within 10% of the second window's (the first is warm-up).
 */
export async function soakPart(config: ScaleConfig): Promise<PartResult> {
  const started = performance.now();
  const database = await partDatabase(config.serverUrl);
  const server = await startServer('realmgate-soak', database.url, newMasterKey(), config.cpuProfile);
  try {
    const opaque = await provisionRealm(server, 'soak', CHURN, 10);
    const jwt = await provisionRealm(server, 'soak-jwt', { ...CHURN, access_token_lifetime: 3600, stateless_tokens: true }, 5);
    const lasting = await provisionRealm(server, 'soak-introspect', { audit_event_lifetime: 60 }, 5);
    const obtain = async (clients: readonly ClientCredentials[]) =>
      Promise.all(
        randomPicks(clients, TOKENS_TO_INTROSPECT).map(async (client) => ({
          client,
          token: await obtainAccessToken(tokenRequest(server.baseUrl, client)),
        })),
      );
    const opaqueTokens = await obtain(lasting);
    const jwtTokens = await obtain(jwt);
    await checkActive(introspectRequest(server.baseUrl, opaqueTokens[0]!.client, opaqueTokens[0]!.token));
    await checkActive(introspectRequest(server.baseUrl, jwtTokens[0]!.client, jwtTokens[0]!.token));

    const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
    const introspect = (tokens: typeof opaqueTokens): HttpRequest => {
      const { client, token } = pick(tokens);
      return { ...introspectRequest(server.baseUrl, client, token), check: isActive };
    };
    /** Of ten requests: 5 opaque tokens, 2 introspections of opaque tokens, 2 JWT access tokens, 1 introspection of a JWT. */
    const mixed = (k: number): HttpRequest => {
      const slot = k % 10;
      if (slot < 5) return tokenRequest(server.baseUrl, pick(opaque));
      if (slot < 7) return introspect(opaqueTokens);
      if (slot < 9) return tokenRequest(server.baseUrl, pick(jwt));
      return introspect(jwtTokens);
    };

    log(`soak: ${config.soakSeconds} s of mixed load, RSS every ${config.soakSampleSeconds} s`);
    const samples: Sample[] = [];
    const loadStarted = performance.now();
    let lastCpu = processCpuSeconds(server.pid);
    let lastAt = loadStarted;
    const sample = async () => {
      const now = performance.now();
      const cpu = processCpuSeconds(server.pid);
      const rssMb = server.memory().rssMb;
      const heap = await server.heap().catch(() => undefined);
      samples.push({
        second: Math.round((now - loadStarted) / 1000),
        rssMb,
        heapUsedMb: heap?.usedMb ?? Number.NaN,
        heapTotalMb: heap?.totalMb ?? Number.NaN,
        externalMb: heap?.externalMb ?? Number.NaN,
        cores: Number(((cpu - lastCpu) / Math.max(0.001, (now - lastAt) / 1000)).toFixed(2)),
      });
      lastCpu = cpu;
      lastAt = now;
    };
    const run = startLoad({
      baseUrl: server.baseUrl,
      connections: config.connections,
      seconds: config.soakSeconds,
      serverPid: server.pid,
      requestsFor: () => Array.from({ length: REQUESTS_PER_CONNECTION }, (_, k) => mixed(k)),
    });
    const timer = setInterval(() => void sample(), config.soakSampleSeconds * 1000);
    const measurement = await run.done.finally(() => clearInterval(timer));
    await sample();
    const memory: Memory = server.memory();
    const watcher = await connect(database.url);
    const tables = await watcher
      .query<{ tokens: number; audit_events: number }>(
        'SELECT (SELECT count(*) FROM tokens)::int AS tokens, (SELECT count(*) FROM audit_events)::int AS audit_events',
      )
      .finally(() => watcher.end());

    const window = Math.min(60, Math.floor(config.soakSeconds / 3));
    const within = (from: number, to: number) => samples.filter((s) => s.second >= from && s.second < to);
    const second = meanRss(within(window, 2 * window));
    const last = meanRss(samples.filter((s) => s.second > config.soakSeconds - window));
    const drift = Number((last / second - 1).toFixed(3));
    const windows = Array.from({ length: Math.ceil(config.soakSeconds / window) }, (_, k) => {
      const to = Math.min(config.soakSeconds, (k + 1) * window);
      // The last window holds the sample taken as the load ends.
      const inWindow = within(k * window, to >= config.soakSeconds ? Infinity : to);
      return { from_s: k * window, to_s: to, mean_rss_mb: meanRss(inWindow), mean_heap_total_mb: meanOf(inWindow, 'heapTotalMb') };
    });
    const rss = samples.map((s) => s.rssMb);
    const heapUsed = samples.map((s) => s.heapUsedMb).filter((value) => !Number.isNaN(value));
    return {
      part: 'soak',
      seconds: (performance.now() - started) / 1000,
      checks: [
        {
          name: `RSS over a ${config.soakSeconds} s soak: last ${window} s vs second ${window} s`,
          measured: `${mb(last)} vs ${mb(second)} (${drift >= 0 ? '+' : ''}${(drift * 100).toFixed(1)}%)`,
          target: `within ±${FLAT_WITHIN * 100}%, no errors`,
          pass: Math.abs(drift) <= FLAT_WITHIN && measurement.errors === 0,
        },
      ],
      figures: {
        mix: '5/10 client credentials (opaque, 60 s lifetime), 2/10 introspection of opaque tokens, 2/10 client credentials (stateless JWT), 1/10 introspection of JWTs',
        load: row(measurement),
        window_s: window,
        rss_mb: { min: Math.min(...rss), max: Math.max(...rss), first: rss[0], last: rss[rss.length - 1], second_window_mean: second, last_window_mean: last, peak: memory.peakRssMb },
        heap_used_mb: { min: Math.min(...heapUsed), max: Math.max(...heapUsed), last: heapUsed[heapUsed.length - 1] },
        drift,
        windows,
        rows_at_end: tables.rows[0],
        samples,
      },
      notes: [
        `load: ${describe(measurement)}`,
        `RSS (${samples.length} samples, every ${config.soakSampleSeconds} s): first ${mb(rss[0]!)}, min ${mb(Math.min(...rss))}, max ${mb(Math.max(...rss))}, last ${mb(rss[rss.length - 1]!)}, peak ${mb(memory.peakRssMb)}`,
        `V8 heap used (${heapUsed.length} samples): min ${mb(Math.min(...heapUsed))}, max ${mb(Math.max(...heapUsed))}, last ${mb(heapUsed[heapUsed.length - 1]!)}`,
        `mean RSS (V8 heap size) by ${window} s window: ${windows.map((w) => `${w.from_s}-${w.to_s} s ${w.mean_rss_mb} (${w.mean_heap_total_mb}) MB`).join(', ')}`,
        `rows at the end: ${tables.rows[0]!.tokens} tokens, ${tables.rows[0]!.audit_events} audit events (60 s lifetimes, the cleanup runs every minute)`,
      ],
    };
  } finally {
    await server.stop();
    await database.drop();
  }
}
