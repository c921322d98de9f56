import type { RunJson } from './report.js';

/**
 * A bar chart of a run, by hand: one group per scenario, one bar per server, each group on
 * its own scale (flows per second and requests per second do not share one), the value at
 * the end of each bar and realmgate's ratios in the group's heading.
 */

const COLORS: Record<string, string> = { realmgate: '#2563eb', 'oidc-provider': '#ea8a12', ceiling: '#9ca3af' };
const WIDTH = 900;
const LABEL_X = 16;
const BAR_X = 140;
const BAR_WIDTH = 520;
const BAR_HEIGHT = 16;
const ROW = 22;

const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

const text = (x: number, y: number, content: string, attributes = ''): string =>
  `<text x="${x}" y="${y}"${attributes ? ` ${attributes}` : ''}>${escapeXml(content)}</text>`;

const format = (value: number, unit: string): string =>
  `${value.toLocaleString('en-US', { maximumFractionDigits: unit === 'flows/s' ? 1 : 0 })} ${unit}`;

export function chartSvg(run: RunJson): string {
  const parts: string[] = [];
  let y = 28;
  parts.push(text(LABEL_X, y, `npm run bench: realmgate on ${run.store}, node-oidc-provider (in memory), bare Fastify`, 'class="title"'));
  y += 18;
  parts.push(
    text(
      LABEL_X,
      y,
      `${run.cpus} cores shared by servers and load generator; ${run.connections} connections (flows: ${run.flow_concurrency} browsers); ${run.duration_s} s per run; ${run.date.slice(0, 10)}${run.commit ? `, ${run.commit.slice(0, 10)}${run.commit.includes(' ') ? ' and uncommitted changes' : ''}` : ''}`,
      'class="note"',
    ),
  );
  y += 14;

  for (const [name, scenario] of Object.entries(run.scenarios)) {
    y += 26;
    const ratios = Object.entries(scenario.ratios)
      .filter(([, r]) => r.rate !== null)
      .map(([pair, r]) => `${pair} x${r.rate!.toFixed(2)}`)
      .join(', ');
    parts.push(text(LABEL_X, y, `${name.replaceAll('_', ' ')}${ratios ? `: ${ratios}` : ''}`, 'class="heading"'));
    y += 8;
    const rates = Object.values(scenario.servers).flatMap((server) => ('rate' in server ? [server.rate] : []));
    const max = Math.max(...rates, 1e-9);
    for (const [server, result] of Object.entries(scenario.servers)) {
      parts.push(text(LABEL_X, y + 13, server, 'class="label"'));
      if ('unsupported' in result) {
        parts.push(text(BAR_X, y + 13, `not measured: ${result.unsupported}`, 'class="note"'));
      } else {
        const width = Math.max(1, Math.round((result.rate / max) * BAR_WIDTH));
        parts.push(`<rect x="${BAR_X}" y="${y}" width="${width}" height="${BAR_HEIGHT}" fill="${COLORS[server] ?? '#555'}"/>`);
        const flagged = result.errors > 0 ? ` (${result.errors} errors)` : '';
        const shared = result.same_as ? ` (as ${result.same_as.replaceAll('_', ' ')})` : '';
        const perCore = result.unit === 'flows/s' && result.per_core !== null ? `, ${result.per_core.toFixed(1)} per core` : '';
        parts.push(text(BAR_X + width + 6, y + 13, `${format(result.rate, result.unit)}${perCore}${shared}${flagged}`, flagged ? 'class="value error"' : 'class="value"'));
      }
      y += ROW;
    }
  }
  if (run.targets.length > 0) {
    y += 30;
    parts.push(text(LABEL_X, y, `Targets (issue 9)${run.store === 'postgres' ? '' : ': not judged, realmgate ran on PGlite'}`, 'class="heading"'));
    for (const target of run.targets) {
      y += 18;
      const value = target.measured === null ? 'n/a' : target.scenario === 'flow' ? `${target.measured.toFixed(1)} sign-ins/s per core` : `x${target.measured.toFixed(2)}`;
      const verdict = target.met === null ? 'not judged' : target.met ? 'met' : 'not met';
      parts.push(text(LABEL_X, y, target.target, 'class="label"'));
      parts.push(text(BAR_X + 300, y, `${value}: ${verdict}`, target.met === false ? 'class="value error"' : 'class="value"'));
    }
  }
  y += 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">
<style>
text { font-size: 12px; fill: #111827; }
.title { font-size: 15px; font-weight: 600; }
.heading { font-size: 13px; font-weight: 600; }
.note { fill: #6b7280; }
.error { fill: #dc2626; font-weight: 600; }
</style>
<rect width="100%" height="100%" fill="#ffffff"/>
${parts.join('\n')}
</svg>
`;
}
