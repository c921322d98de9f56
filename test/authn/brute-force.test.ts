import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdminClient, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { authorize, codeRequest, freshRealm, publicClient } from '../support/flow-helpers.js';
import { TestBrowser, location } from '../support/flow.js';
import { type ServiceClient, basic, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

/**
 * The guard waits with node:timers/promises' setTimeout: here it records the delay and waits
 * nothing, so that the progressive delay is observable without slowing the suite.
 */
const delays = vi.hoisted(() => [] as number[]);
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async (ms: number) => {
    delays.push(ms);
  },
}));

/** What the guard delays the 3rd to the 10th failure by: 250 ms doubling, at most 4 s. */
const DELAYS_OF_TEN_FAILURES = [250, 500, 1000, 2000, 4000, 4000, 4000, 4000];
const LOCKED_PAGE = /Too many failed sign-in attempts\. Try again in \d+ minutes?\./;
const LOCKED_GRANT = /^sign-in is temporarily locked after too many failed attempts; try again in \d+ minutes?$/;
const WINDOW_SECONDS = 15 * 60;

const errorText = (page: string): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];

/** The password grant from an address of the test's choosing. */
function grantFrom(app: FastifyInstance, realm: string, client: ServiceClient, form: Record<string, string>, address = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url: `${realmPath(realm)}/access_token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.clientId, client.secret) },
    payload: new URLSearchParams({ grant_type: 'password', ...form }).toString(),
    remoteAddress: address,
  });
}

/** A realm of the test's own (counters are per realm), its clients, and a person. */
async function setup(t: TestApp, settings: Record<string, unknown> = {}) {
  const realm = await freshRealm(t, settings);
  const created = await t.admin.createClient(realm, { grant_types: ['password'], scope: 'openid' });
  const service = { clientId: created.client_id, secret: created.client_secret as string };
  const browserClient = await publicClient(t, realm, 'openid profile');
  const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
  return { realm, service, browserClient, user };
}

/** The sign-in page of a new transaction; `attempt` posts its form with a password. */
async function signInPage(app: FastifyInstance, realm: string, clientId: string, username: string) {
  const b = new TestBrowser(app, BASE_URL);
  const start = await authorize(b, realm, codeRequest(clientId));
  const url = location(start);
  const page = await b.get(url);
  expect(page.statusCode).toBe(200);
  return { b, attempt: (password: string) => b.submit(url, page, { username, password }) };
}

const wrong = (user: TestUser) => ({ username: user.username, password: `not-${user.password}` });

describe('brute-force limits of sign-in', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => {
    delays.length = 0;
  });
  afterEach(() => vi.restoreAllMocks());

  describe('on the sign-in page', () => {
    it('delays each answer from the 3rd failure on, doubling to 4 s', async () => {
      const { realm, browserClient, user } = await setup(t);
      const { attempt } = await signInPage(t.app, realm, browserClient, user.username);
      const seen: number[][] = [];
      for (let failure = 1; failure <= 10; failure++) {
        const before = delays.length;
        const response = await attempt('wrong password');
        expect(response.statusCode).toBe(200);
        expect(errorText(response.body)).toBe('The username or password is incorrect.');
        seen.push(delays.slice(before));
      }
      expect(seen.slice(0, 2)).toEqual([[], []]);
      expect(seen.slice(2).flat()).toEqual(DELAYS_OF_TEN_FAILURES);
    });

    it('locks the account after 10 failures: 429, Retry-After and a clear message, even for the right password', async () => {
      const { realm, browserClient, user } = await setup(t);
      const { b, attempt } = await signInPage(t.app, realm, browserClient, user.username);
      for (let failure = 1; failure <= 10; failure++) expect((await attempt('wrong password')).statusCode).toBe(200);

      const verify = vi.spyOn(argon2, 'verify');
      const locked = await attempt(user.password);
      expect(locked.statusCode).toBe(429);
      const retryAfter = Number(locked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(WINDOW_SECONDS - 60);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
      expect(errorText(locked.body)).toMatch(LOCKED_PAGE);
      expect(verify).not.toHaveBeenCalled(); // nothing is checked while locked
      expect(b.cookies.has(`rg_session_${realm}`)).toBe(false);
    });

    it('locks an unknown username exactly as an existing one, so that locking tells nothing', async () => {
      const { realm, browserClient, user } = await setup(t);
      const known = await signInPage(t.app, realm, browserClient, user.username);
      const unknown = await signInPage(t.app, realm, browserClient, 'nobody-here');
      for (let failure = 1; failure <= 10; failure++) {
        const [a, b] = [await known.attempt('wrong password'), await unknown.attempt('wrong password')];
        expect(errorText(b.body)).toBe(errorText(a.body));
      }
      const [a, b] = [await known.attempt('wrong password'), await unknown.attempt('wrong password')];
      expect([a.statusCode, b.statusCode]).toEqual([429, 429]);
      expect(errorText(b.body)).toBe(errorText(a.body));
    });

    it('opens again when the window ends', async () => {
      const { realm, browserClient, user } = await setup(t);
      const { b, attempt } = await signInPage(t.app, realm, browserClient, user.username);
      for (let failure = 1; failure <= 10; failure++) await attempt('wrong password');
      expect((await attempt(user.password)).statusCode).toBe(429);

      await endWindows(t, realm);
      const response = await attempt(user.password);
      expect(response.statusCode).toBe(303);
      expect(b.cookies.has(`rg_session_${realm}`)).toBe(true);
    });
  });

  describe('at the password grant', () => {
    it('counts failures with the same delays, and locks with invalid_grant without checking the password', async () => {
      const { realm, service, user } = await setup(t);
      for (let failure = 1; failure <= 10; failure++) {
        const response = await grantFrom(t.app, realm, service, wrong(user));
        expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'the username or password is incorrect' });
      }
      expect(delays).toEqual(DELAYS_OF_TEN_FAILURES);

      const verify = vi.spyOn(argon2, 'verify');
      const locked = await grantFrom(t.app, realm, service, { username: user.username, password: user.password });
      expect(locked.statusCode).toBe(400);
      expect(locked.headers['cache-control']).toBe('no-store');
      expect(locked.json().error).toBe('invalid_grant');
      expect(locked.json().error_description).toMatch(LOCKED_GRANT);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(verify).not.toHaveBeenCalled();

      await endWindows(t, realm);
      expect((await grantFrom(t.app, realm, service, { username: user.username, password: user.password })).statusCode).toBe(200);
    });

    it('shares the counts with the sign-in page: failures on one lock the other', async () => {
      const { realm, service, browserClient, user } = await setup(t);
      for (let failure = 1; failure <= 10; failure++) await grantFrom(t.app, realm, service, wrong(user));
      const { attempt } = await signInPage(t.app, realm, browserClient, user.username);
      expect((await attempt(user.password)).statusCode).toBe(429);
    });

    it('locks an unknown username alike', async () => {
      const { realm, service, user } = await setup(t);
      const answers = async (username: string) => {
        const bodies: string[] = [];
        for (let attempt = 1; attempt <= 11; attempt++) bodies.push((await grantFrom(t.app, realm, service, { username, password: 'wrong' })).body);
        return bodies;
      };
      const known = await answers(user.username);
      const unknown = await answers('nobody-here');
      expect(unknown.map(withoutMinutes)).toEqual(known.map(withoutMinutes));
      expect(JSON.parse(unknown[10]!).error_description).toMatch(LOCKED_GRANT);
    });

    it('locks an address after 50 failures, whichever accounts it tried, and that address only', async () => {
      const { realm, service, user } = await setup(t);
      const attacker = '203.0.113.9';
      for (let failure = 0; failure < 50; failure++) {
        const response = await grantFrom(t.app, realm, service, { username: `guess-${failure % 7}`, password: 'wrong' }, attacker);
        expect(response.json().error_description).toBe('the username or password is incorrect');
      }
      // A person never tried from there is refused from there, and only from there.
      const fromAttacker = await grantFrom(t.app, realm, service, { username: user.username, password: user.password }, attacker);
      expect(fromAttacker.json().error_description).toMatch(LOCKED_GRANT);
      const elsewhere = await grantFrom(t.app, realm, service, { username: user.username, password: user.password }, '198.51.100.4');
      expect(elsewhere.statusCode).toBe(200);
    });

    it('writes the sign-in page audit lines, without the password', async () => {
      const lines: Array<Record<string, unknown>> = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
      const logged = await startTestApp({ logger });
      try {
        const { realm, service, user } = await setup(logged);
        await grantFrom(logged.app, realm, service, wrong(user));
        await grantFrom(logged.app, realm, service, { username: user.username, password: user.password });
        for (let failure = 1; failure < 10; failure++) await grantFrom(logged.app, realm, service, wrong(user));
        await grantFrom(logged.app, realm, service, { username: user.username, password: user.password });

        const audit = lines
          .map((line) => line.audit as Record<string, unknown> | undefined)
          .filter((event) => typeof event?.type === 'string' && event.type.startsWith('sign_in.'));
        expect(audit.map((event) => event!.type)).toEqual(['sign_in.failed', 'sign_in.succeeded', ...Array(10).fill('sign_in.failed')]);
        expect(audit.map((event) => event!.reason)).toEqual(['wrong_credentials', undefined, ...Array(9).fill('wrong_credentials'), 'locked']);
        expect(audit[0]).toMatchObject({ realm, address: '127.0.0.1', step: 'password', username: user.username, via: 'password_grant' });
        expect(audit[1]).toMatchObject({ realm, user_id: user.sub, amr: ['pwd'] });
        expect(JSON.stringify(lines)).not.toContain(user.password);
      } finally {
        await logged.close();
      }
    });
  });
});

/**
 * The budget is the person's, however they are named (CONTRACT.md §7, issue 34 item 5): the users
 * lookup compares with SQL lower(), which folds `İ` (U+0130) to `i` where JavaScript's
 * toLowerCase() makes it `i̇`; a counter keyed by the JavaScript spelling gave `mİra` a budget of
 * its own beside `mira`'s.
 */
describe('brute-force limits count per person, whatever spelling reaches them', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A realm of its own with `mira`, whom every spelling below reaches (asserted with her password). */
  async function withMira() {
    const realm = await freshRealm(t);
    const created = await t.admin.createClient(realm, { grant_types: ['password'], scope: 'openid' });
    const service = { clientId: created.client_id, secret: created.client_secret as string };
    const browserClient = await publicClient(t, realm, 'openid profile');
    const mira = await createUser(t.admin, realm, 'mira');
    for (const spelling of SPELLINGS_OF_MIRA) {
      const response = await grantFrom(t.app, realm, service, { username: spelling, password: mira.password });
      expect(response.statusCode, `${spelling} reaches mira: ${response.body}`).toBe(200);
    }
    return { realm, service, browserClient, mira };
  }

  it('spellings share one budget of 10 across the sign-in page and the password grant', async () => {
    const { realm, service, browserClient, mira } = await withMira();
    for (let failure = 0; failure < 10; failure++) {
      const spelling = SPELLINGS_OF_MIRA[failure % SPELLINGS_OF_MIRA.length]!;
      if (failure % 2 === 0) {
        const answer = await grantFrom(t.app, realm, service, { username: spelling, password: 'wrong' });
        expect(answer.json().error_description, spelling).toBe('the username or password is incorrect');
      } else {
        const { attempt } = await signInPage(t.app, realm, browserClient, spelling);
        expect((await attempt('wrong')).statusCode, spelling).toBe(200);
      }
    }
    for (const spelling of SPELLINGS_OF_MIRA) {
      const grant = await grantFrom(t.app, realm, service, { username: spelling, password: mira.password });
      expect(grant.json().error_description, spelling).toMatch(LOCKED_GRANT);
      const { attempt } = await signInPage(t.app, realm, browserClient, spelling);
      expect((await attempt(mira.password)).statusCode, spelling).toBe(429);
    }
  });

  it('an unknown name is counted by the lower() of its spelling too, so that locking tells nothing', async () => {
    const { realm, service } = await withMira();
    for (let failure = 0; failure < 10; failure++) {
      await grantFrom(t.app, realm, service, { username: ['nina', 'nİna', 'NİNA'][failure % 3]!, password: 'wrong' });
    }
    expect((await grantFrom(t.app, realm, service, { username: 'nİna', password: 'wrong' })).json().error_description).toMatch(LOCKED_GRANT);
  });
});

const SPELLINGS_OF_MIRA = ['mira', 'MIRA', 'mİra', 'MİRA', 'Mİra'];

describe('brute-force limits on two instances of one database', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    instances = await startTwoInstances();
    ({ a, b } = instances);
  });
  afterAll(() => instances?.close());
  beforeEach(() => {
    delays.length = 0;
  });

  it('sees on one instance the failures counted on the other', async () => {
    const admin = new AdminClient(a);
    const t = { admin } as TestApp;
    const { realm, service, browserClient, user } = await setup(t);
    for (let failure = 1; failure <= 3; failure++) await grantFrom(a, realm, service, wrong(user));
    // The 4th failure, on the other instance, is delayed as a 4th.
    delays.length = 0;
    await grantFrom(b, realm, service, wrong(user));
    expect(delays).toEqual([500]);
    for (let failure = 5; failure <= 10; failure++) await grantFrom(a, realm, service, wrong(user));

    const grant = await grantFrom(b, realm, service, { username: user.username, password: user.password });
    expect(grant.json().error_description).toMatch(LOCKED_GRANT);
    const { attempt } = await signInPage(b, realm, browserClient, user.username);
    expect((await attempt(user.password)).statusCode).toBe(429);
  });
});

/** Ends every counting window of the realm, as the passing of 15 minutes would. */
async function endWindows(t: TestApp, realm: string): Promise<void> {
  await t.store.db.query("UPDATE attempt_counters SET window_ends_at = now() - interval '1 second' WHERE key LIKE $1", [`sign-in:${realm}:%`]);
}

/** A lock's answer names the minutes left, which may differ by one between two accounts. */
function withoutMinutes(body: string): string {
  return body.replace(/try again in \d+ minutes?/, 'try again in N minutes');
}

