import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { checkActive } from '../oauth.js';
import { type CpuByPid, cpuSeconds } from '../procfs.js';
import { freePort, log, pinServer, runToCompletion, startProcess, stopProcess, waitForHttp } from '../processes.js';
import { REDIRECT_URI, SCOPE } from './flow-client.js';
import type { Target, TargetOptions } from './target.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** One random MASTER_KEY per database, so that successive servers on it decrypt its keys. */
const masterKeys = new Map<string, string>();
const masterKeyOf = (databaseUrl: string): string => {
  if (!masterKeys.has(databaseUrl)) masterKeys.set(databaseUrl, random(32));
  return masterKeys.get(databaseUrl)!;
};

let built: Promise<void> | undefined;
/** `npm run build`, once per bench run. */
function build(): Promise<void> {
  built ??= (log('building realmgate'), runToCompletion('npm', ['run', '--silent', 'build'], ROOT));
  return built;
}

/** A running realmgate process: its origin, its admin token, and how to stop it. */
export interface RealmgateProcess {
  readonly baseUrl: string;
  readonly adminToken: string;
  /** The server's own pid (not a wrapper's): its CPU time is read from /proc. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** realmgate as built by `npm run build`, on PostgreSQL at `databaseUrl` (a fresh database), else on in-memory PGlite. */
export async function launchRealmgate(databaseUrl: string | undefined): Promise<RealmgateProcess> {
  await build();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = random(24);
  const store = databaseUrl ? { DATABASE_URL: databaseUrl, MASTER_KEY: masterKeyOf(databaseUrl) } : { DATABASE_URL: '', DATA_DIR: 'memory://' };
  const child = startProcess('realmgate', process.execPath, [...nodeArgs(), ...profileArgs(), `${ROOT}dist/server.js`], {
    ...process.env,
    ...store,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
  });
  await waitForHttp(`${baseUrl}/healthz`, child);
  await pinServer(child.pid);
  return { baseUrl, adminToken, pid: child.pid, stop: () => stopProcess(child) };
}

/** BENCH_SERVER_NODE_ARGS: flags on realmgate's `node` command line, for experiments (`--max-semi-space-size=32`). */
const nodeArgs = (): string[] => process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/**
 * With BENCH_CPU_PROF=1, realmgate runs under `node --cpu-prof`, its profile written to
 * bench/results/profiles/ when it stops (read it with `npx tsx bench/scale/profile.ts`).
 */
function profileArgs(): string[] {
  if (process.env.BENCH_CPU_PROF !== '1') return [];
  const dir = `${ROOT}bench/results/profiles/`;
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=realmgate-${Date.now()}.cpuprofile`];
}

/** The admin API of a running realmgate: JSON in and out, any non-2xx answer is an error. */
export function adminApi(baseUrl: string, adminToken: string) {
  return async (method: string, path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(`${baseUrl}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`admin API: ${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
}

type CreatedClient = { client_id: string; client_secret: string };

/**
 * realmgate in its own realm, issuing opaque access tokens (each stored before it is
 * returned) or RFC 9068 JWTs (`stateless_tokens`), with a client of client credentials, a
 * web client of the code flow allowed refresh tokens (rotated: the realm's default), and
 * the people of the flow.
 */
export async function startRealmgate(databaseUrl: string | undefined, options: TargetOptions): Promise<Target> {
  const server = await launchRealmgate(databaseUrl);
  const admin = adminApi(server.baseUrl, server.adminToken);
  const { realm } = options;
  // One client and one address at full load: the rate limits are set beyond reach, so that the checks still run.
  await admin('POST', '/realms', {
    name: realm,
    settings: { stateless_tokens: options.tokens === 'jwt', rate_limit_token: 1_000_000, rate_limit_sign_in: 1_000_000, rate_limit_authorize: 1_000_000 },
  });
  await admin('PUT', `/realms/${realm}/scopes/api`, { description: 'API' });
  const service = (await admin('POST', `/realms/${realm}/clients`, { grant_types: ['client_credentials'], scope: 'api' })) as CreatedClient;
  const web = (await admin('POST', `/realms/${realm}/clients`, {
    client_type: 'confidential',
    token_endpoint_auth_method: 'client_secret_basic',
    client_name: 'Bench web app',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: SCOPE,
  })) as CreatedClient;
  for (const username of options.usernames) {
    await admin('POST', `/realms/${realm}/users`, { username, password: options.password, claims: { name: `Bench ${username}` } });
  }

  const issuer = `${server.baseUrl}/oauth2/${realm}`;
  const introspectionUrl = `${issuer}/introspect`;
  const backends = databaseUrl ? await databaseBackends(databaseUrl) : undefined;
  return {
    pid: server.pid,
    tokenUrl: `${issuer}/access_token`,
    introspectionUrl,
    service: { clientId: service.client_id, clientSecret: service.client_secret },
    flow: {
      issuer,
      authorizeUrl: `${issuer}/authorize`,
      tokenUrl: `${issuer}/access_token`,
      client: { clientId: web.client_id, clientSecret: web.client_secret },
      redirectUri: REDIRECT_URI,
      scope: SCOPE,
      password: options.password,
    },
    checkAccessToken: (token, client) => checkActive(introspectionUrl, client, token),
    ...(backends ? { databaseBackends: backends.read } : {}),
    stop: async () => {
      await backends?.close();
      await server.stop();
    },
  };
}

/**
 * The PostgreSQL backends of the bench's database (realmgate's pool) with their CPU seconds,
 * read from /proc: undefined when the server runs elsewhere (its processes are not visible here).
 */
async function databaseBackends(databaseUrl: string): Promise<{ read: () => Promise<CpuByPid | undefined>; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    read: async () => {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const cpu = new Map<number, number>();
      for (const { pid } of rows) {
        const seconds = cpuSeconds(pid); // undefined: not on this machine, or just ended
        if (seconds !== undefined) cpu.set(pid, seconds);
      }
      return rows.length > 0 && cpu.size === 0 ? undefined : cpu;
    },
    close: () => client.end(),
  };
}
