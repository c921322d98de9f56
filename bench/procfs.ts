import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc's CPU times, 100 on Linux whatever the kernel's tick. */
const TICKS_PER_SECOND = 100;

/** CPU seconds a process has used (user + system, all its threads), from /proc; undefined where there is none. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name, which may hold spaces: fields 14 and 15 of proc(5) are utime and stime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The peak resident set size of a process so far (VmHWM), in bytes. */
export function peakRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has been busy (all cores, whatever runs), from /proc/stat. */
export function machineBusySeconds(): number | undefined {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** What a measured run cost, read before and after it. */
export interface CpuReading {
  /** CPU seconds of the server process. */
  readonly serverCpuS: number | undefined;
  /** CPU seconds of the database's backends serving the server (realmgate on PostgreSQL only). */
  readonly databaseCpuS: number | undefined;
  /** CPU seconds of the bench process: the load generator. */
  readonly benchCpuS: number;
  /** CPU seconds of the whole machine: the above, and anything else that ran. */
  readonly machineCpuS: number | undefined;
  readonly elapsedS: number;
  /** VmHWM of the server process at the end of the run: its peak since it started. */
  readonly peakRssBytes: number | undefined;
}

/** Per-process CPU seconds of a set of processes (PostgreSQL backends), to diff across a run. */
export type CpuByPid = ReadonlyMap<number, number>;

export interface CpuProbe {
  readonly pid: number | undefined;
  /** The backends serving this server, with their CPU seconds, when they can be read. */
  databaseBackends?(): Promise<CpuByPid | undefined>;
}

/** The counters read at one moment. */
async function snapshot(probe: CpuProbe) {
  const server = cpuSeconds(probe.pid);
  const bench = process.cpuUsage();
  const machine = machineBusySeconds();
  const at = performance.now();
  const database = await probe.databaseBackends?.();
  return { server, bench, machine, at, database };
}

/**
 * Reads the CPU of the server, of its database backends, of the bench and of the machine
 * over the `seconds` from now that `run` measures: the reading ends then, not when the
 * requests still in flight at the deadline (which are not counted) end. A database backend
 * that starts during the window counts whole; one that ends during it is missed.
 */
export async function withCpuReading<T>(probe: CpuProbe, seconds: number, run: () => Promise<T>): Promise<{ result: T; reading: CpuReading }> {
  const before = await snapshot(probe);
  let atDeadline: Promise<Awaited<ReturnType<typeof snapshot>>> | undefined;
  const timer = setTimeout(() => (atDeadline = snapshot(probe)), seconds * 1000);
  let result: T;
  try {
    result = await run();
  } finally {
    clearTimeout(timer);
  }
  const after = await (atDeadline ?? snapshot(probe));

  let databaseCpuS: number | undefined;
  if (before.database && after.database) {
    databaseCpuS = 0;
    for (const [pid, seconds] of after.database) databaseCpuS += seconds - (before.database.get(pid) ?? 0);
  }
  return {
    result,
    reading: {
      serverCpuS: before.server === undefined || after.server === undefined ? undefined : after.server - before.server,
      databaseCpuS,
      benchCpuS: (after.bench.user - before.bench.user + after.bench.system - before.bench.system) / 1e6,
      machineCpuS: before.machine === undefined || after.machine === undefined ? undefined : after.machine - before.machine,
      elapsedS: (after.at - before.at) / 1000,
      peakRssBytes: peakRssBytes(probe.pid),
    },
  };
}
