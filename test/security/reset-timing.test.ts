import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser, hiddenInputs } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';
import { securityRealm } from './support.js';

const ROUNDS = 150;
const WARM_UP_ROUNDS = 20;
/** People to ask for: each at most 5 times (the tickets' limit per person), so that every known name issues a ticket and a mail. */
const PEOPLE = 70;
/**
 * How far apart a known name's time may be from an unknown one's (the median, over the rounds,
 * of their difference within a round): a fifth of a typical request, and at least 1 ms. What a
 * person's existence adds when the page waits for it (a ticket's transaction, the mail handed to
 * the SMTP server) is about 1 to 2 ms here; the scheduling noise of a loaded two-core machine,
 * on a median of 150 paired differences, is well under the bound.
 */
const RELATIVE_BOUND = 0.2;
const ABSOLUTE_BOUND_MS = 1;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The password reset page (CONTRACT.md §9) must not tell, by how long it takes, whether a name
 * is a person's: asking for a known person's link and for an unknown name's are answered in times
 * whose medians do not differ beyond the noise. Each round asks once for a known person (by
 * username, and by email address) and once for a name of no one, in a random order, each from an
 * address of its own (the page's limit per address is not what is measured).
 */
describe('password reset: the same time whether or not a person is named', () => {
  let mail: TestMailServer;
  let t: TestApp;
  let realm: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings });
    realm = await securityRealm(t, { password_reset: true });
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  it('answers a known and an unknown name in times whose medians differ by less than the bound', async () => {
    const people: TestUser[] = [];
    for (let i = 0; i < PEOPLE; i++) {
      const username = `known-${randomBytes(4).toString('hex')}`;
      people.push(await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } }));
    }
    const url = `${realmPath(realm)}/reset`;
    const browser = new TestBrowser(t.app, BASE_URL);
    const { csrf } = hiddenInputs((await browser.get(url)).body);
    const kinds: Record<string, (round: number) => string> = {
      knownUsername: (round) => people[round % PEOPLE]!.username,
      knownEmail: (round) => `${people[(round + PEOPLE / 2) % PEOPLE]!.username}@example.com`,
      unknown: () => `nobody-${randomBytes(4).toString('hex')}`,
    };
    const times: Record<string, number[]> = { knownUsername: [], knownEmail: [], unknown: [] };
    const bodies = new Set<string>();
    let address = 0;
    for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
      for (const kind of Object.keys(kinds).sort(() => Math.random() - 0.5)) {
        address++;
        browser.remoteAddress = `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
        const started = process.hrtime.bigint();
        const response = await browser.post(url, { csrf: csrf!, username: kinds[kind]!(round) });
        const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
        expect(response.statusCode).toBe(200);
        bodies.add(response.body);
        if (round >= WARM_UP_ROUNDS) times[kind]!.push(elapsed);
      }
    }
    // The same page every time, whoever was named.
    expect(bodies.size).toBe(1);

    const ms = (value: number) => `${value.toFixed(3)} ms`;
    const medians = Object.fromEntries(Object.entries(times).map(([kind, values]) => [kind, median(values)]));
    // Differences within a round cancel what the machine did meanwhile.
    const paired = Object.fromEntries(
      ['knownUsername', 'knownEmail'].map((kind) => [kind, median(times[kind]!.map((time, round) => time - times.unknown![round]!))]),
    );
    const typical = median(Object.values(medians));
    const bound = Math.max(RELATIVE_BOUND * typical, ABSOLUTE_BOUND_MS);
    const figures = {
      medians: Object.fromEntries(Object.entries(medians).map(([kind, value]) => [kind, ms(value)])),
      againstUnknown: Object.fromEntries(Object.entries(paired).map(([kind, value]) => [kind, ms(value)])),
      bound: ms(bound),
    };
    console.info(`password reset, ${ROUNDS} rounds: ${JSON.stringify(figures)}`);
    for (const [kind, difference] of Object.entries(paired)) expect(Math.abs(difference), `${kind} against unknown`).toBeLessThanOrEqual(bound);

    // Every known name was mailed (the page did not wait for it); no one else was.
    await sleep(500);
    for (let wait = 0; wait < 40 && mail.received.length < PEOPLE * 2; wait++) await sleep(250);
    expect(mail.received.every((received) => received.to[0]!.startsWith('known-'))).toBe(true);
    expect(mail.received.length).toBeGreaterThan(0);
  }, 120_000);
});
