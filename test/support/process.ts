import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './app.js';
import { testStoreKind, withAdminClient } from './store.js';

/**
 * realmgate as an operator runs it: a child process configured by its environment,
 * observed through its output, its HTTP port and its exit code.
 */

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The variables of CONTRACT.md §1 and the test harness's own: a child sees only those a test gives it. */
const CONTROLLED_VARIABLES = [
  'PORT', 'HOST', 'BASE_URL', 'DATABASE_URL', 'DATA_DIR', 'ADMIN_TOKEN', 'ADMIN_USER', 'ADMIN_PASSWORD', 'MASTER_KEY', 'TRUST_PROXY',
  'CLIENT_CERT_HEADER', 'TLS_CERT', 'TLS_KEY', 'TLS_CA', 'LOG_LEVEL', 'TEST_DATABASE_URL', 'TEST_STORE', 'NODE_ENV', 'ADMIN_PORT',
];

export function serverEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!CONTROLLED_VARIABLES.includes(name) && !name.startsWith('VITEST')) env[name] = value;
  }
  return { ...env, ...vars };
}

export const randomMasterKey = (): string => randomBytes(32).toString('base64url');

// ---------------------------------------------------------------------------------------------
// Building dist/ once: test files may run in parallel workers, so the build takes a lock.

/** Holds the pid of the process building; a lock whose process is gone is taken over. */
const BUILD_LOCK = join(tmpdir(), `realmgate-build-${createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 12)}.lock`);
let built: Promise<void> | undefined;

/** `npm run build`, unless dist/ is newer than every source file. */
export function buildOnce(): Promise<void> {
  built ??= withBuildLock(async () => {
    if (!distIsCurrent()) await run('npm', ['run', 'build']);
  });
  return built;
}

function distIsCurrent(): boolean {
  const buildInfo = mtime(join(PROJECT_ROOT, 'dist', '.tsbuildinfo'));
  if (buildInfo === undefined) return false;
  const inputs = [...sourceFiles(join(PROJECT_ROOT, 'src')), ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => join(PROJECT_ROOT, f))];
  return inputs.every((file) => (mtime(file) ?? Infinity) < buildInfo);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function mtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      writeFileSync(BUILD_LOCK, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readText(BUILD_LOCK);
      // Empty: just created, its pid not yet written (or its writer died right then).
      const stale = holder ? !isAlive(Number(holder)) : Date.now() - (mtime(BUILD_LOCK) ?? 0) > 10_000;
      if (stale) rmSync(BUILD_LOCK, { force: true });
      else await delay(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(BUILD_LOCK, { force: true });
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Whether a process of this pid runs (one of another user's counts). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: PROJECT_ROOT }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`)) : resolve(),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Child processes: each in its own process group, so that `npm start` is stopped with its children.

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const running = new Set<ServerProcess>();

export class ServerProcess {
  private readonly child: ChildProcess;
  private out = '';
  private err = '';
  private all = '';
  readonly spawnedAt = Date.now();
  /** Settles when the process has exited and its output is read. */
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { cwd: PROJECT_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.out += chunk;
      this.all += chunk;
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.err += chunk;
      this.all += chunk;
    });
    running.add(this);
    this.exited = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', (code, signal) => {
        running.delete(this);
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    this.exited.catch(() => running.delete(this));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  /** stdout and stderr as they arrived. */
  get output(): string {
    return this.all;
  }

  /** Signals the whole process group (npm, its shell and node alike). */
  signal(signal: NodeJS.Signals): void {
    if (this.exit) return;
    try {
      process.kill(-this.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }

  /** Waits for the exit; past the deadline the process is killed and this throws. */
  async waitForExit(timeoutMs: number): Promise<Exit> {
    const exit = await this.exitWithin(timeoutMs);
    if (exit) return exit;
    this.signal('SIGKILL');
    await this.exited;
    throw new Error(`the process did not exit within ${timeoutMs} ms; its output:\n${this.all}`);
  }

  /** SIGTERM, then SIGKILL if it is still running after the grace period. */
  async stop(graceMs = 10_000): Promise<Exit> {
    if (this.exit) return this.exit;
    this.signal('SIGTERM');
    const exit = await this.exitWithin(graceMs);
    if (exit) return exit;
    this.signal('SIGKILL');
    return this.exited;
  }

  private async exitWithin(timeoutMs: number): Promise<Exit | undefined> {
    const timer = new AbortController();
    try {
      return await Promise.race([this.exited, delay(timeoutMs, undefined, { signal: timer.signal })]);
    } finally {
      timer.abort();
    }
  }
}

/** Kills whatever a test left running; for afterEach/afterAll, so that a failure leaves no process behind. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop(5_000)));
}

process.once('exit', () => {
  for (const server of running) server.signal('SIGKILL');
});

export type Launch = 'npm-start' | 'dist';

const LAUNCH: Record<Launch, [string, string[]]> = {
  'npm-start': ['npm', ['start']],
  // What `npm start` runs once built; what the tests use when they are not about npm itself.
  dist: [process.execPath, ['dist/server.js']],
};

export function spawnServer(env: NodeJS.ProcessEnv, launch: Launch = 'dist'): ServerProcess {
  const [command, args] = LAUNCH[launch];
  return new ServerProcess(command, args, env);
}

/**
 * Runs the server until it exits, as for a configuration it must refuse. The deadline catches a
 * process that hangs: it is not a measure of speed. Under the suite's three workers on two cores,
 * test/process/config.test.ts (19 such processes, five at a time) took 53 s in a green CI run,
 * and 15 s was once not enough.
 */
export async function runToExit(env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<Exit & { stdout: string; stderr: string }> {
  const server = spawnServer(env);
  const exit = await server.waitForExit(timeoutMs);
  return { ...exit, stdout: server.stdout, stderr: server.stderr };
}

export interface RunningServer {
  process: ServerProcess;
  port: number;
  baseUrl: string;
}

/**
 * Starts a server on a free port of 127.0.0.1 (BASE_URL to match) and waits for /healthz.
 * `vars` adds to and overrides that.
 */
export async function startServer(vars: Record<string, string>, options: { launch?: Launch; timeoutMs?: number } = {}): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawnServer(serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, ...vars }), options.launch);
  await waitForStatus(server, `${baseUrl}/healthz`, 200, server.spawnedAt + (options.timeoutMs ?? 30_000));
  return { process: server, port, baseUrl };
}

/** Polls `url` until it answers `status`; fails early when the process exits, with its output. */
export async function waitForStatus(server: ServerProcess, url: string, status: number, deadline: number): Promise<Response> {
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (server.exit) throw new Error(`the server exited (${JSON.stringify(server.exit)}) before ${url} answered; its output:\n${server.output}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
      if (response.status === status) return response;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = String((error as Error).cause ?? error);
    }
    await delay(50);
  }
  throw new Error(`${url} did not answer ${status} in time (last: ${last}); the server's output:\n${server.output}`);
}

// ---------------------------------------------------------------------------------------------
// The store a spawned server uses in this project: embedded in memory, or a fresh PostgreSQL database.

export interface ProcessStore {
  kind: 'pglite' | 'postgres';
  /** DATA_DIR, or DATABASE_URL and MASTER_KEY. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export async function createProcessStore(): Promise<ProcessStore> {
  const url = process.env.TEST_DATABASE_URL;
  if (testStoreKind() !== 'postgres' || !url) {
    return { kind: 'pglite', env: { DATA_DIR: 'memory://' }, dispose: async () => {} };
  }
  const name = `realmgate_proc_${randomBytes(6).toString('hex')}`;
  await withAdminClient(url, (client) => client.query(`CREATE DATABASE ${name}`));
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${name}`;
  return {
    kind: 'postgres',
    env: { DATABASE_URL: databaseUrl.href, MASTER_KEY: randomMasterKey() },
    dispose: () => withAdminClient(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP, as a client of the running server does it.

/** Calls the admin API; any answer but 2xx throws. */
export async function admin<T = Record<string, unknown>>(
  server: { baseUrl: string },
  adminToken: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${server.baseUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} /admin${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** POSTs a form, as an OAuth client does. */
export function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}
