import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

/** Children still running, killed however the bench ends. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL');
});

/**
 * Each child leads its own process group, so that a signal reaches what it started too
 * (npm → sh → tsc) and a ctrl-c reaches the servers only through `stopProcess`.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Starts a child whose output goes to stderr, line by line under its name: stdout is the report's. */
export function startProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawnTracked(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => process.stderr.write(`[${name}] ${line}\n`));
  }
  return child;
}

/** Runs a command to completion, its output on stderr. */
export async function runToCompletion(command: string, args: string[], cwd: string): Promise<void> {
  const child = spawnTracked(command, args, { cwd, stdio: ['ignore', 2, 2] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
}

/** Resolves once `url` answers at all; fails if the child exits first. */
export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${url}: the server exited before listening`);
    try {
      await fetch(url);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${url}: no answer within ${timeoutMs} ms`);
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stopProcess(child)));
}

/**
 * With BENCH_SERVER_CPUS (a `taskset` list, e.g. `0`), pins every thread of a server (libuv's
 * pool included, which inherits it) to these CPUs.
 */
export async function pinServer(pid: number | undefined): Promise<void> {
  const cpus = process.env.BENCH_SERVER_CPUS;
  if (cpus && pid !== undefined) await runToCompletion('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(pid)], process.cwd());
}
