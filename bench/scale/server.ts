import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, log, runToCompletion, startProcess, stopProcess, waitForHttp } from '../processes.js';
import { adminClient } from './http.js';
import { processMemory } from './procfs.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PROFILE_DIR = fileURLToPath(new URL('./results/profiles/', import.meta.url));

/** `npm run build`, once per run: every server and every module the bench loads from dist/ is that build. */
export async function buildOnce(): Promise<void> {
  log('building realmgate');
  await runToCompletion('npm', ['run', '--silent', 'build'], ROOT);
}

/** A module of the build, so that the bench writes rows with the very code the server runs. */
export function fromDist<T>(path: string): Promise<T> {
  return import(pathToFileURL(`${ROOT}dist/${path}`).href) as Promise<T>;
}

export const newMasterKey = (): string => randomBytes(32).toString('base64url');

export interface Memory {
  /** Resident set size now. */
  readonly rssMb: number;
  /** The highest resident set size of the process's life (VmHWM). */
  readonly peakRssMb: number;
}

/** A realmgate process (`node dist/server.js`) on PostgreSQL. */
export interface ScaleServer {
  readonly baseUrl: string;
  readonly pid: number;
  readonly admin: ReturnType<typeof adminClient>;
  memory(): Memory;
  /** The V8 heap as the server reports it at /metrics (Prometheus, prom-client's default metrics). */
  heap(): Promise<Heap>;
  stop(): Promise<void>;
}

export interface Heap {
  readonly usedMb: number;
  readonly totalMb: number;
  /** Memory held outside the V8 heap by JavaScript objects (Buffers). */
  readonly externalMb: number;
}

async function readHeap(baseUrl: string): Promise<Heap> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const value = (name: string): number => Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20);
  return {
    usedMb: value('nodejs_heap_size_used_bytes'),
    totalMb: value('nodejs_heap_size_total_bytes'),
    externalMb: value('nodejs_external_memory_bytes'),
  };
}


/**
 * Starts the built server with the production defaults (pool, caches, cleanup every minute),
 * logging warnings only. With `profile`, under `node --cpu-prof`: the profile is written to
 * results/profiles/ when it stops.
 */
export async function startServer(name: string, databaseUrl: string, masterKey: string, profile: boolean): Promise<ScaleServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('base64url');
  // Flags NODE_OPTIONS refuses (--trace-gc) go on the command line.
  const nodeArgs = (process.env.SCALE_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  if (profile) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`);
  }
  const child = startProcess(name, process.execPath, [...nodeArgs, `${ROOT}dist/server.js`], {
    ...process.env,
    DATABASE_URL: databaseUrl,
    MASTER_KEY: masterKey,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    // Node's own options for the server alone, such as a heap limit (docs/operations.md "Memory").
    ...(process.env.SCALE_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SCALE_SERVER_NODE_OPTIONS } : {}),
  });
  await waitForHttp(`${baseUrl}/healthz`, child);
  const pid = child.pid!;
  return {
    baseUrl,
    pid,
    admin: adminClient(baseUrl, adminToken),
    memory: () => processMemory(pid),
    heap: () => readHeap(baseUrl),
    stop: () => stopProcess(child, 30_000),
  };
}
