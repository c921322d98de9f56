import { readFileSync } from 'node:fs';

/**
 * `npx tsx bench/scale/profile.ts <file.cpuprofile> [top] [seconds]`: where a server's CPU
 * time went, from a profile written under SCALE_CPU_PROF=1 (over its last `seconds` only,
 * when given): self time by function, and by module (a package of node_modules, a file of
 * dist/, or Node.js itself).
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `dist/${dist[1]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

function summarize(path: string, top: number, lastSeconds: number | undefined): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const from = lastSeconds === undefined ? -Infinity : profile.endTime - lastSeconds * 1e6;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= from) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const module = moduleOf(url, functionName);
    const name = `${functionName || '(anonymous)'} ${url ? `${module}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byModule.set(module, (byModule.get(module) ?? 0) + us);
  }
  const busy = total - (byFunction.get('(idle)') ?? 0);
  const percent = (us: number): string => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const lines = [`${path}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (shares below are of the busy time)`, '', 'self time by function:'];
  for (const [name, us] of [...byFunction].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${percent(us)}  ${name}`);
  }
  lines.push('', 'self time by module:');
  for (const [name, us] of [...byModule].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${percent(us)}  ${name}`);
  }
  return lines.join('\n');
}

const [path, top, last] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: npx tsx bench/scale/profile.ts <file.cpuprofile> [top] [last seconds only]\n');
  process.exit(2);
}
process.stdout.write(`${summarize(path, Number(top ?? 25), last === undefined ? undefined : Number(last))}\n`);
