import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { securityRealm } from './support.js';

/** Rounds of the measurement: in each, every kind of wrong secret is sent once, in a new order. */
const ROUNDS = 400;
const WARM_UP_ROUNDS = 40;
/**
 * How far apart two kinds' times may be: the median of their differences within a round, against
 * the median time of a request. A timing leak that HTTP can show (a wrong length refused before
 * the secret is hashed, looked up or verified: a shorter path) is far larger than these.
 */
const RELATIVE_BOUND = 0.1;
const ABSOLUTE_BOUND_NS = 25_000;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** A secret of `secret`'s length that differs from it at `position` only. */
const changedAt = (secret: string, position: number): string =>
  secret.slice(0, position) + (secret[position] === 'A' ? 'B' : 'A') + secret.slice(position + 1);

interface Measured {
  /** The median time of each kind's requests, in ns. */
  medians: Record<string, number>;
  /** The median, over the rounds, of (kind − reference) within the round, in ns. */
  pairedDifferences: Record<string, number>;
}

/**
 * Sends each kind of presented secret once a round, the kinds in a fresh random order each
 * round so that a slow moment of the machine falls on any of them, and compares the kinds'
 * response times round by round: differences within a round cancel what the machine did
 * meanwhile.
 */
async function measure(kinds: Record<string, () => Promise<LightMyRequestResponse>>, expectedStatus: number): Promise<Measured> {
  const names = Object.keys(kinds);
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
    const order = [...names].sort(() => Math.random() - 0.5);
    for (const name of order) {
      const started = process.hrtime.bigint();
      const response = await kinds[name]!();
      const elapsed = Number(process.hrtime.bigint() - started);
      expect(response.statusCode, name).toBe(expectedStatus);
      if (round >= WARM_UP_ROUNDS) times[name]!.push(elapsed);
    }
  }
  const [reference] = names;
  const medians = Object.fromEntries(names.map((name) => [name, median(times[name]!)]));
  const pairedDifferences = Object.fromEntries(
    names.map((name) => [name, median(times[name]!.map((time, round) => time - times[reference!]![round]!))]),
  );
  return { medians, pairedDifferences };
}

function expectIndistinguishable(measured: Measured): void {
  const typical = median(Object.values(measured.medians));
  const bound = Math.max(RELATIVE_BOUND * typical, ABSOLUTE_BOUND_NS);
  if (process.env.REPORT_TIMING) console.info(JSON.stringify({ ...measured, bound }));
  for (const [kind, difference] of Object.entries(measured.pairedDifferences)) {
    expect(Math.abs(difference), `${kind}: ${difference} ns apart from the first kind, typical ${typical} ns`).toBeLessThanOrEqual(bound);
  }
}

/**
 * SECURITY.md "timing-safe comparison": the source compares secrets in constant time
 * (test/security/timing-safe.test.ts reads it); this measures it through HTTP. A wrong secret
 * of the right length, wrong at its first or at its last character, and wrong secrets of other
 * lengths are refused in times that do not differ beyond the measurement's resolution.
 */
describe('timing-safe comparison of secrets, measured through HTTP', () => {
  let t: TestApp;
  let realm: string;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await securityRealm(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a client secret wrong at its end, at its start, or of another length in the same time', async () => {
    const client = await t.admin.serviceClient(realm);
    const tokenRequest = (secret: string) => () =>
      postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic(client.clientId, secret) });
    const measured = await measure(
      {
        wrongAtStart: tokenRequest(changedAt(client.secret, 0)),
        wrongAtEnd: tokenRequest(changedAt(client.secret, client.secret.length - 1)),
        shorter: tokenRequest(client.secret.slice(0, 8)),
        longer: tokenRequest(`${client.secret}${client.secret}`),
      },
      401,
    );
    expectIndistinguishable(measured);
  });

  it('refuses an admin token wrong at its end, at its start, or of another length in the same time', async () => {
    const adminRequest = (token: string) => () => t.app.inject({ method: 'GET', url: '/admin/realms', headers: { authorization: `Bearer ${token}` } });
    const measured = await measure(
      {
        wrongAtStart: adminRequest(changedAt(ADMIN_TOKEN, 0)),
        wrongAtEnd: adminRequest(changedAt(ADMIN_TOKEN, ADMIN_TOKEN.length - 1)),
        shorter: adminRequest(ADMIN_TOKEN.slice(0, 4)),
        longer: adminRequest(ADMIN_TOKEN.repeat(3)),
      },
      401,
    );
    expectIndistinguishable(measured);
  });
});
