/**
 * The CPU of each request, from the JSON of runs of `bench/run.ts`: the server's and its
 * database's microseconds per request, and realmgate's efficiency against node-oidc-provider
 * (requests per CPU-second, realmgate's over the peer's), per server core and with the database
 * counted (the peer pays none). JWT introspection is set against the peer's introspection of its
 * opaque tokens, as it introspects no JWT. Where the run measured the bare Fastify ceiling, its
 * row gives the HTTP work that any server pays per request.
 *
 *   npx tsx bench/per-request.ts before-1=/tmp/a.json after-1=/tmp/b.json
 *
 * Prints one Markdown table per scenario, a row per run and server.
 */
import { readFileSync } from 'node:fs';

interface ServerResult {
  rate: number;
  count: number;
  cpu_s: number;
  db_cpu_s: number | null;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  /** The scenario whose run this result repeats (the ceiling's client credentials, for its JWT and DPoP rows). */
  same_as?: string;
}

interface Run {
  scenarios: Record<string, { servers: Record<string, ServerResult | undefined> }>;
}

const PEER = 'oidc-provider';
const CEILING = 'ceiling';
/** The scenario whose peer row stands for the peer in another (JWT introspection). */
const PEER_OF: Readonly<Record<string, string>> = { introspection_jwt: 'introspection' };

const microseconds = (seconds: number, count: number): number => (seconds * 1e6) / count;
const format = (value: number, digits = 0): string => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const runs = process.argv.slice(2).map((argument) => {
  const [label, file] = argument.split('=') as [string, string];
  return { label, run: JSON.parse(readFileSync(file, 'utf8')) as Run };
});
const scenarios = [...new Set(runs.flatMap(({ run }) => Object.keys(run.scenarios)))].filter((name) => !name.startsWith('flow'));

for (const scenario of scenarios) {
  console.log(`\n#### \`${scenario}\`\n`);
  console.log('| run | server | rate | p50 / p99 ms | server µs per request | database µs per request | realmgate ÷ peer, per server core | realmgate ÷ peer, server + database |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const { label, run } of runs) {
    const ours = run.scenarios[scenario]?.servers.realmgate;
    const peerScenario = PEER_OF[scenario] ?? scenario;
    const peer = run.scenarios[peerScenario]?.servers[PEER];
    if (!ours) continue;
    const server = microseconds(ours.cpu_s, ours.count);
    const database = microseconds(ours.db_cpu_s ?? 0, ours.count);
    const peerServer = peer ? microseconds(peer.cpu_s, peer.count) : undefined;
    const ratio = (mine: number) => (peerServer === undefined ? '' : `×${format(peerServer / mine, 2)}`);
    const errors = ours.errors ? ` (${ours.errors} errors)` : '';
    console.log(`| ${label} | realmgate | ${format(ours.rate)} req/s${errors} | ${ours.p50_ms} / ${ours.p99_ms} | ${format(server)} | ${format(database)} | ${ratio(server)} | ${ratio(server + database)} |`);
    if (peer && peerServer !== undefined) {
      const name = peerScenario === scenario ? PEER : `${PEER} (its ${peerScenario})`;
      console.log(`|  | ${name} | ${format(peer.rate)} req/s | ${peer.p50_ms} / ${peer.p99_ms} | ${format(peerServer)} |  |  |  |`);
    }
    const ceiling = run.scenarios[scenario]?.servers[CEILING];
    if (ceiling?.count) {
      const name = ceiling.same_as ? `${CEILING} (its ${ceiling.same_as})` : CEILING;
      console.log(`|  | ${name} | ${format(ceiling.rate)} req/s | ${ceiling.p50_ms} / ${ceiling.p99_ms} | ${format(microseconds(ceiling.cpu_s, ceiling.count))} |  |  |  |`);
    }
  }
}
