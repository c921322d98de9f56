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

/**
 * Reads the CPU of the server, of its database backends, of the bench and of the machine
 * around `run`. A backend that starts during the run counts whole (all its CPU is the run's);
 * one that ends during it is missed.
 */
export async function withCpuReading<T>(probe: CpuProbe, run: () => Promise<T>): Promise<{ result: T; reading: CpuReading }> {
  const databaseBefore = await probe.databaseBackends?.();
  const serverBefore = cpuSeconds(probe.pid);
  const benchBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  const result = await run();
  const elapsedS = (performance.now() - started) / 1000;
  const serverAfter = cpuSeconds(probe.pid);
  const bench = process.cpuUsage(benchBefore);
  const machineAfter = machineBusySeconds();
  const databaseAfter = await probe.databaseBackends?.();

  let databaseCpuS: number | undefined;
  if (databaseBefore && databaseAfter) {
    databaseCpuS = 0;
    for (const [pid, after] of databaseAfter) databaseCpuS += after - (databaseBefore.get(pid) ?? 0);
  }
  return {
    result,
    reading: {
      serverCpuS: serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
      databaseCpuS,
      benchCpuS: (bench.user + bench.system) / 1e6,
      machineCpuS: machineBefore === undefined || machineAfter === undefined ? undefined : machineAfter - machineBefore,
      elapsedS,
      peakRssBytes: peakRssBytes(probe.pid),
    },
  };
}
