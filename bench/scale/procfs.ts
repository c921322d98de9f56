import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc's CPU times. */
const TICKS_PER_SECOND = 100;

/** CPU seconds a process has used (user + system, all its threads). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name (which may hold spaces), fields 14 and 15 of proc(5): utime and stime.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds the whole machine has been busy: every core, whatever runs on it. */
export function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

/** Resident set size now, and its peak over the process's life (VmHWM), in MB. */
export function processMemory(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}
