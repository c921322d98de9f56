import { generateKeyPairSync, sign } from 'node:crypto';
import { derToJose } from '../src/tokens/ecdsa-signature.js';

/**
 * The machine's budget at a ratio target: what the work that neither server can skip takes of
 * this machine's cores at the rate the target asks of realmgate, from the figures of the same
 * run. Three floors per request: the load generator's CPU and the HTTP server's (both from the
 * ceiling, which does nothing else), and the signatures the answer carries (measured here, on
 * an idle machine: under load they cost more). What the floors leave, divided by the target
 * rate, is what a request may spend on everything else: client authentication, the token
 * itself, its database write, the audit row. See bench/README.md, "Reading the output".
 */

export type Algorithm = 'ES256' | 'RS256';

/** Microseconds of CPU one signature takes, per algorithm. */
export type SignatureCosts = Record<Algorithm, number>;

/** The signatures each answer carries, on every server: the JWT access token, or the ID token of a refresh (`openid`). */
const SIGNED: Readonly<Record<string, Algorithm | undefined>> = {
  client_credentials_jwt: 'ES256',
  refresh: 'RS256',
};

/** The least mean of several batches: the cost of a signature when nothing else disturbs it. */
export function measureSignatures(): SignatureCosts {
  const data = Buffer.alloc(320, 'a');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const least = (count: number, once: () => void): number => {
    let best = Infinity;
    for (let batch = 0; batch < 6; batch++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < count; i++) once();
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / count);
    }
    return Number(best.toFixed(1));
  };
  return {
    // The cheapest form node:crypto offers, realmgate's (src/tokens/ecdsa-signature.ts): a floor.
    ES256: least(400, () => derToJose(sign('sha256', data, ec))),
    RS256: least(40, () => sign('sha256', data, rsa)),
  };
}

/** The figures of one server in one scenario that the budget reads (a server of the run's JSON). */
interface Measured {
  readonly unit: string;
  readonly rate: number;
  readonly cores: number | null;
  readonly db_cores: number | null;
  readonly bench_cores: number | null;
}

export interface Budget {
  /** Requests per second the target asks of realmgate: the ratio times the peer's rate. */
  readonly target_rate: number;
  /** The signature each answer carries, if any. */
  readonly signed: Algorithm | null;
  /** Microseconds of CPU per request that no server skips. */
  readonly floor_us: { readonly load_generator: number; readonly http: number; readonly signature: number };
  /** The cores the floors take at the target rate, of the machine's `cpus`. */
  readonly floor_cores: number;
  readonly cpus: number;
  /** Microseconds per request the floors leave at the target rate, for the rest of the server's work and its database (negative: none). */
  readonly left_us: number;
  /** What realmgate spent in this run on that rest: its CPU and its database's per request, less the HTTP floor and the signature. */
  readonly realmgate_rest_us: number;
}

const micros = (cores: number | null, rate: number): number => ((cores ?? 0) / rate) * 1e6;
const round1 = (value: number): number => Number(value.toFixed(1));

/**
 * The budget of a rate ratio target in `scenario`, from the scenario's servers in the run's
 * JSON; null when a figure is missing (a run without the ceiling or the peer, or without CPU
 * readings).
 */
export function budgetOf(
  scenario: string,
  ratio: number,
  servers: Readonly<Record<string, object>>,
  signatures: SignatureCosts,
  cpus: number,
): Budget | null {
  const measured = (name: string): Measured | undefined => {
    const server = servers[name];
    return server && 'unit' in server && server.unit === 'req/s' ? (server as Measured) : undefined;
  };
  const [realmgate, peer, ceiling] = [measured('realmgate'), measured('oidc-provider'), measured('ceiling')];
  if (!realmgate || !peer || !ceiling || realmgate.cores === null || ceiling.cores === null || ceiling.bench_cores === null) return null;
  const signed = SIGNED[scenario] ?? null;
  const floor = {
    load_generator: round1(micros(ceiling.bench_cores, ceiling.rate)),
    http: round1(micros(ceiling.cores, ceiling.rate)),
    signature: signed ? signatures[signed] : 0,
  };
  const targetRate = ratio * peer.rate;
  const floorCores = ((floor.load_generator + floor.http + floor.signature) * targetRate) / 1e6;
  return {
    target_rate: Math.round(targetRate),
    signed,
    floor_us: floor,
    floor_cores: Number(floorCores.toFixed(2)),
    cpus,
    left_us: round1(((cpus - floorCores) / targetRate) * 1e6),
    realmgate_rest_us: round1(micros(realmgate.cores, realmgate.rate) + micros(realmgate.db_cores, realmgate.rate) - floor.http - floor.signature),
  };
}

/** One line that says the budget. */
export function formatBudget(budget: Budget): string {
  const whole = (value: number): string => Math.round(value).toLocaleString('en-US');
  const { floor_us: floor } = budget;
  const signature = budget.signed ? ` + ${budget.signed} ${whole(floor.signature)}` : '';
  const left = budget.left_us > 0 ? `leave ${whole(budget.left_us)} µs a request` : 'leave nothing';
  return (
    `at ${whole(budget.target_rate)} req/s, load generator ${whole(floor.load_generator)} + HTTP ${whole(floor.http)}${signature} µs a request ` +
    `take ${budget.floor_cores.toFixed(2)} of ${budget.cpus} cores and ${left} for the rest, ` +
    `where realmgate spent ${whole(budget.realmgate_rest_us)} (with its database)`
  );
}
