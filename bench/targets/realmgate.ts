import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort, log, runToCompletion, startProcess, stopProcess, waitForHttp } from '../processes.js';
import type { Target } from './target.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The realm of each variant: opaque access tokens (stored), or stateless JWTs (`stateless_tokens`). */
const REALMS = { opaque: 'bench', stateless: 'bench-jwt' } as const;
export type TokenVariant = keyof typeof REALMS;

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** One random MASTER_KEY per database, so that successive servers on it (both variants) decrypt its keys. */
const masterKeys = new Map<string, string>();
const masterKeyOf = (databaseUrl: string): string => {
  if (!masterKeys.has(databaseUrl)) masterKeys.set(databaseUrl, random(32));
  return masterKeys.get(databaseUrl)!;
};

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
  log('building realmgate');
  await runToCompletion('npm', ['run', '--silent', 'build'], ROOT);

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = random(24);
  const store = databaseUrl ? { DATABASE_URL: databaseUrl, MASTER_KEY: masterKeyOf(databaseUrl) } : { DATABASE_URL: '', DATA_DIR: 'memory://' };
  const child = startProcess('realmgate', process.execPath, [`${ROOT}dist/server.js`], {
    ...process.env,
    ...store,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
  });
  await waitForHttp(`${baseUrl}/healthz`, child);
  // Pins every thread of the server (libuv's pool included, which inherits it) to these CPUs.
  const cpus = process.env.BENCH_SERVER_CPUS;
  if (cpus && child.pid !== undefined) await runToCompletion('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(child.pid)], ROOT);
  return { baseUrl, adminToken, pid: child.pid, stop: () => stopProcess(child) };
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

/**
 * realmgate with a confidential client of the client credentials grant, for bench/run.ts, in
 * a realm that issues opaque access tokens or (`stateless`) RFC 9068 JWTs.
 */
export async function startRealmgate(databaseUrl: string | undefined, variant: TokenVariant = 'opaque'): Promise<Target> {
  const server = await launchRealmgate(databaseUrl);
  const realm = REALMS[variant];
  const credentials = await provision(server.baseUrl, server.adminToken, realm, variant === 'stateless');
  const issuer = `${server.baseUrl}/oauth2/${realm}`;
  return {
    token: { url: `${issuer}/access_token`, ...credentials },
    introspection: { url: `${issuer}/introspect`, ...credentials },
    stop: server.stop,
  };
}

/** Through the admin API: the realm, its `api` scope, and a confidential client allowed client credentials. */
async function provision(
  baseUrl: string,
  adminToken: string,
  realm: string,
  stateless: boolean,
): Promise<{ clientId: string; clientSecret: string }> {
  const admin = adminApi(baseUrl, adminToken);
  // One client at full load: its rate limit is set beyond reach, so that the check still runs.
  await admin('POST', '/realms', { name: realm, settings: { stateless_tokens: stateless, rate_limit_token: 1_000_000 } });
  await admin('PUT', `/realms/${realm}/scopes/api`, { description: 'API' });
  const client = (await admin('POST', `/realms/${realm}/clients`, { grant_types: ['client_credentials'], scope: 'api' })) as {
    client_id: string;
    client_secret: string;
  };
  return { clientId: client.client_id, clientSecret: client.client_secret };
}
