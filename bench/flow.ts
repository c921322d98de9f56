import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CookieJar } from 'tough-cookie';
import { atExit, benchStore, runBenchmark, wholeNumber } from './main.js';
import { log } from './processes.js';
import { type RealmgateProcess, adminApi, launchRealmgate } from './targets/realmgate.js';

/**
 * Sign-ins per second through the whole authorization code flow (see README.md, "npm run
 * bench:flow"): virtual users, each a browser driven with fetch, loop /authorize → sign-in
 * page → consent page → redirect with the code → token endpoint, against one realmgate
 * process. Two variants:
 *
 * - `first_time`: a new browser each time, `prompt=login consent`: sign-in and consent every time;
 * - `returning`: the same browser, `prompt=login`: sign-in every time, consent remembered.
 */

const REALM = 'flow';
const PASSWORD = 'correct horse battery staple';
/** Never fetched: the flow reads the redirect, as a client's callback would receive it. */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const SCOPE = 'openid profile';
const REQUEST_TIMEOUT_MS = 30_000;

const VARIANTS = ['first_time', 'returning'] as const;
type Variant = (typeof VARIANTS)[number];
const STEPS = ['authorize', 'sign-in page', 'sign-in', 'consent page', 'consent', 'token'] as const;
type Step = (typeof STEPS)[number];


interface Setup {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** One person per virtual user, so that they do not contend for one consent record. */
  readonly usernames: readonly string[];
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

/** The hidden inputs of the page's form (CONTRACT.md §4), which is posted back to the page's own URL. */
function hiddenInputs(page: string): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [tag] of page.matchAll(/<input\b[^>]*>/g)) {
    if (!/\stype="hidden"/.test(tag)) continue;
    const name = /\sname="([^"]*)"/.exec(tag)?.[1];
    if (name !== undefined) inputs[unescape(name)] = unescape(/\svalue="([^"]*)"/.exec(tag)?.[1] ?? '');
  }
  return inputs;
}

function basicAuth(clientId: string, clientSecret: string): string {
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** One person's browser, and the timings of the steps of its current flow. */
class VirtualBrowser {
  jar = new CookieJar();
  readonly steps = new Map<Step, number>();

  constructor(private readonly setup: Setup) {}

  private async send(step: Step, url: URL, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.jar.getCookieStringSync(url.href);
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const started = performance.now();
    const response = await fetch(url, {
      method: init.form ? 'POST' : 'GET',
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) this.jar.setCookieSync(line, url.href);
    const body = await response.text(); // read to the end: the connection goes back to the pool
    this.steps.set(step, performance.now() - started);
    return { status: response.status, location: response.headers.get('location'), body };
  }

  /** Where a 303 leads; anything else fails the flow. */
  private static next(step: Step, answer: { status: number; location: string | null; body: string }, base: URL): URL {
    if (answer.status !== 303 || !answer.location) throw new Error(`${step}: expected a 303, got ${answer.status}: ${answer.body.slice(0, 200)}`);
    return new URL(answer.location, base);
  }

  /** The whole flow, from the authorization request to the tokens. */
  async flow(variant: Variant, username: string): Promise<void> {
    this.steps.clear();
    if (variant === 'first_time') this.jar = new CookieJar();
    const { issuer } = this.setup;
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(12).toString('base64url');
    const authorize = new URL(`${issuer}/authorize`);
    authorize.search = new URLSearchParams({
      client_id: this.setup.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: SCOPE,
      state,
      nonce: randomBytes(12).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      prompt: variant === 'first_time' ? 'login consent' : 'login',
    }).toString();

    const signIn = VirtualBrowser.next('authorize', await this.send('authorize', authorize), authorize);
    if (!signIn.pathname.endsWith('/login')) throw new Error(`authorize: expected the sign-in page, got ${signIn.href}`);
    const signInPage = await this.send('sign-in page', signIn);
    if (signInPage.status !== 200) throw new Error(`sign-in page: ${signInPage.status}`);
    let next = VirtualBrowser.next(
      'sign-in',
      await this.send('sign-in', signIn, { form: { ...hiddenInputs(signInPage.body), username, password: PASSWORD } }),
      signIn,
    );

    if (next.pathname.endsWith('/consent')) {
      if (variant === 'returning') throw new Error('sign-in: the consent page was shown again; consent was not remembered');
      const consentPage = await this.send('consent page', next);
      if (consentPage.status !== 200) throw new Error(`consent page: ${consentPage.status}`);
      next = VirtualBrowser.next('consent', await this.send('consent', next, { form: { ...hiddenInputs(consentPage.body), decision: 'allow' } }), next);
    } else if (variant === 'first_time') {
      throw new Error(`sign-in: expected the consent page (prompt=consent), got ${next.href}`);
    }

    if (`${next.origin}${next.pathname}` !== REDIRECT_URI) throw new Error(`expected the redirect URI, got ${next.href}`);
    const code = next.searchParams.get('code');
    if (!code || next.searchParams.get('state') !== state || next.searchParams.get('iss') !== issuer) {
      throw new Error(`the redirect lacks the code, the state or the issuer: ${next.search}`);
    }

    const token = await this.send('token', new URL(`${issuer}/access_token`), {
      form: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      headers: { authorization: basicAuth(this.setup.clientId, this.setup.clientSecret) },
    });
    if (token.status !== 200) throw new Error(`token: ${token.status}: ${token.body.slice(0, 200)}`);
    const tokens = JSON.parse(token.body) as Record<string, unknown>;
    if (typeof tokens.access_token !== 'string' || typeof tokens.id_token !== 'string') throw new Error(`token: no access or ID token: ${token.body}`);
  }
}

/** CPU seconds a process has used (user + system, all its threads), from /proc; undefined where there is none. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100 on Linux)
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has been busy (all cores, PostgreSQL and anything else included), from /proc/stat. */
function machineBusySeconds(): number | undefined {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return undefined;
  }
}

interface FlowMeasurement {
  readonly flows: number;
  readonly flowsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly errorSamples: string[];
  /** Mean milliseconds of each request of a completed flow. */
  readonly meanStepMs: Partial<Record<Step, number>>;
  /** Cores the realmgate process kept busy (its CPU seconds over the run's seconds). */
  readonly serverCores: number | undefined;
  /** Cores this process (the load generator) kept busy. */
  readonly loadCores: number;
  /** Cores busy on the whole machine: the two above, PostgreSQL when used, and whatever else runs. */
  readonly machineCores: number | undefined;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Every virtual user loops the flow until the deadline; flows that end after it are not counted. */
async function drive(setup: Setup, variant: Variant, seconds: number, server: RealmgateProcess): Promise<FlowMeasurement> {
  const latencies: number[] = [];
  const stepTotals = new Map<Step, number>();
  const errorSamples: string[] = [];
  let errors = 0;

  const serverCpuBefore = cpuSeconds(server.pid);
  const loadCpuBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    setup.usernames.map(async (username) => {
      const browser = new VirtualBrowser(setup);
      while (performance.now() < deadline) {
        const flowStarted = performance.now();
        try {
          await browser.flow(variant, username);
          if (performance.now() > deadline) break;
          latencies.push(performance.now() - flowStarted);
          for (const [step, ms] of browser.steps) stepTotals.set(step, (stepTotals.get(step) ?? 0) + ms);
        } catch (error) {
          if (performance.now() > deadline) break;
          errors += 1;
          const message = (error as Error).message;
          if (errorSamples.length < 5 && !errorSamples.includes(message)) errorSamples.push(message);
        }
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  const serverCpuAfter = cpuSeconds(server.pid);
  const loadCpu = process.cpuUsage(loadCpuBefore);
  const machineAfter = machineBusySeconds();

  latencies.sort((a, b) => a - b);
  const meanStepMs: Partial<Record<Step, number>> = {};
  for (const step of STEPS) {
    const total = stepTotals.get(step);
    if (total !== undefined && latencies.length > 0) meanStepMs[step] = round(total / latencies.length, 2);
  }
  return {
    flows: latencies.length,
    flowsPerSecond: latencies.length / seconds,
    p50Ms: round(percentile(latencies, 50), 1),
    p99Ms: round(percentile(latencies, 99), 1),
    errors,
    errorSamples,
    meanStepMs,
    serverCores: serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : round((serverCpuAfter - serverCpuBefore) / elapsedSeconds, 2),
    loadCores: round((loadCpu.user + loadCpu.system) / 1e6 / elapsedSeconds, 2),
    machineCores: machineBefore === undefined || machineAfter === undefined ? undefined : round((machineAfter - machineBefore) / elapsedSeconds, 2),
  };
}

/** Through the admin API: the realm, one user per virtual user, and a confidential client of the code flow. */
async function provision(server: RealmgateProcess, concurrency: number): Promise<Setup> {
  const admin = adminApi(server.baseUrl, server.adminToken);
  // Every virtual user signs in from this one address: its limits are set beyond reach, so that the checks still run.
  await admin('POST', '/realms', { name: REALM, settings: { rate_limit_token: 1_000_000, rate_limit_sign_in: 1_000_000 } });
  const usernames = Array.from({ length: concurrency }, (_, i) => `user-${i + 1}`);
  for (const username of usernames) {
    await admin('POST', `/realms/${REALM}/users`, { username, password: PASSWORD, claims: { name: `Bench ${username}` } });
  }
  const client = (await admin('POST', `/realms/${REALM}/clients`, {
    client_type: 'confidential',
    token_endpoint_auth_method: 'client_secret_basic',
    client_name: 'Bench web app',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: SCOPE,
  })) as { client_id: string; client_secret: string };
  return { issuer: `${server.baseUrl}/oauth2/${REALM}`, clientId: client.client_id, clientSecret: client.client_secret, usernames };
}


async function main(): Promise<void> {
  const concurrency = wholeNumber('BENCH_FLOW_CONCURRENCY', 4, 1);
  const durationSeconds = wholeNumber('BENCH_DURATION', 10, 1);
  const warmupSeconds = wholeNumber('BENCH_WARMUP', 2, 0);
  const { store, databaseUrl } = await benchStore();

  log('starting realmgate');
  const server = await launchRealmgate(databaseUrl);
  atExit(server.stop);
  const setup = await provision(server, concurrency);

  const results = {} as Record<Variant, FlowMeasurement>;
  for (const variant of VARIANTS) {
    // Each person allows the scopes once, so that a returning flow finds its consent remembered.
    for (const username of setup.usernames) await new VirtualBrowser(setup).flow('first_time', username);
    if (warmupSeconds > 0) {
      log(`${variant}: ${warmupSeconds} s warm-up`);
      await drive(setup, variant, warmupSeconds, server);
    }
    log(`${variant}: ${durationSeconds} s with ${concurrency} virtual users`);
    results[variant] = await drive(setup, variant, durationSeconds, server);
  }

  const cell = (value: string | number, width: number): string => String(value).padStart(width);
  const lines = [
    `flow: ${concurrency} virtual users, ${durationSeconds} s after a ${warmupSeconds} s warm-up, store ${store}, node ${process.version}, ${availableParallelism()} cores`,
    `${'variant'.padEnd(12)}${cell('flows/s', 9)}${cell('p50 ms', 9)}${cell('p99 ms', 9)}${cell('flows', 8)}${cell('errors', 8)}${cell('server cores', 14)}${cell('bench cores', 13)}${cell('machine cores', 15)}`,
  ];
  for (const variant of VARIANTS) {
    const m = results[variant];
    lines.push(
      `${variant.padEnd(12)}${cell(m.flowsPerSecond.toFixed(1), 9)}${cell(m.p50Ms, 9)}${cell(m.p99Ms, 9)}${cell(m.flows, 8)}${cell(m.errors, 8)}${cell(m.serverCores ?? 'n/a', 14)}${cell(m.loadCores, 13)}${cell(m.machineCores ?? 'n/a', 15)}`,
    );
  }
  lines.push('mean ms per request of a flow:');
  for (const variant of VARIANTS) {
    const steps = Object.entries(results[variant].meanStepMs).map(([step, ms]) => `${step} ${ms}`);
    lines.push(`  ${variant.padEnd(12)}${steps.join(', ')}`);
  }
  for (const variant of VARIANTS) {
    for (const sample of results[variant].errorSamples) lines.push(`FLAGGED ${variant}: ${sample}`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  const ok = VARIANTS.every((variant) => results[variant].errors === 0 && results[variant].flows > 0);
  process.stdout.write(
    `${JSON.stringify({
      store,
      duration_s: durationSeconds,
      warmup_s: warmupSeconds,
      concurrency,
      node: process.version,
      cpus: availableParallelism(),
      variants: Object.fromEntries(
        VARIANTS.map((variant) => {
          const m = results[variant];
          return [
            variant,
            {
              flows_per_s: round(m.flowsPerSecond, 1),
              p50_ms: m.p50Ms,
              p99_ms: m.p99Ms,
              flows: m.flows,
              errors: m.errors,
              error_samples: m.errorSamples,
              mean_step_ms: m.meanStepMs,
              server_cores: m.serverCores ?? null,
              bench_cores: m.loadCores,
              machine_cores: m.machineCores ?? null,
            },
          ];
        }),
      ),
      ok,
    })}\n`,
  );
}

runBenchmark(main);
