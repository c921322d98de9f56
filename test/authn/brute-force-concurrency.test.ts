import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AdminClient, BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { authorize, codeRequest, publicClient } from '../support/flow-helpers.js';
import { TestBrowser, location } from '../support/flow.js';
import { type ServiceClient, basic, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';
import { eventsOf } from '../audit/support.js';
import type { AuditTrail } from '../../src/audit/audit-trail.js';

/**
 * CONTRACT.md §7: at most 10 password or one-time-code checks per account in 15 minutes, each
 * counted before it runs, so that attempts sent at once cannot exceed the limit. The checks that
 * ran are counted from the audit trail: each is a `sign_in.failed` with reason
 * `wrong_credentials` (or a `sign_in.succeeded`); an attempt refused unchecked is one with
 * reason `locked`.
 */

/** The growing delay of failures is test/authn/brute-force.test.ts's subject: here it would only slow the suite. */
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => {},
}));

const LIMIT = 10;
const LOCKED_GRANT = /^sign-in is temporarily locked after too many failed attempts; try again in \d+ minutes?$/;
const TIMEOUT = 180_000;

type Answer = LightMyRequestResponse;

/** A realm of the test's own (counters are per realm) without rate limits, its clients, and a person. */
async function setup(admin: AdminClient, settings: Record<string, unknown> = {}) {
  const realm = `r-${randomBytes(5).toString('hex')}`;
  await admin.createRealm(realm, { ...NO_RATE_LIMITS, ...settings });
  const created = await admin.createClient(realm, { grant_types: ['password'], scope: 'openid' });
  const service: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
  const browserClient = await publicClient({ admin } as TestApp, realm, 'openid profile');
  const user = await createUser(admin, realm, `u-${randomBytes(4).toString('hex')}`);
  return { realm, service, browserClient, user };
}

function grant(app: FastifyInstance, realm: string, client: ServiceClient, form: Record<string, string>): Promise<Answer> {
  return app.inject({
    method: 'POST',
    url: `${realmPath(realm)}/access_token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.clientId, client.secret) },
    payload: new URLSearchParams({ grant_type: 'password', ...form }).toString(),
  });
}

/** The sign-in page of a new transaction; `post` submits its form (any number of times, at once too). */
async function signInPage(app: FastifyInstance, realm: string, clientId: string) {
  const b = new TestBrowser(app, BASE_URL);
  const url = location(await authorize(b, realm, codeRequest(clientId)));
  const page = await b.get(url);
  expect(page.statusCode).toBe(200);
  return { b, url, page, post: (fields: Record<string, string>) => b.submit(url, page, fields) };
}

const wrongPassword = (user: TestUser) => ({ username: user.username, password: `not-${user.password}` });
const rightPassword = (user: TestUser) => ({ username: user.username, password: user.password });

/** The realm's refused sign-ins, as the audit trail lists them: by reason, and the checks that failed by step. */
async function refusals(admin: AdminClient, realm: string, ...others: Array<Pick<AuditTrail, 'flush'>>) {
  // The events API waits for its own instance's events; another instance's are waited for here.
  for (const other of others) await other.flush();
  const { events } = await eventsOf(admin, realm, { type: 'sign_in.failed', limit: '1000' });
  const count = (reason: string, step?: string) =>
    events.filter((event) => event.details.reason === reason && (step === undefined || event.details.step === step)).length;
  return { checked: count('wrong_credentials'), locked: count('locked'), checkedAt: (step: string) => count('wrong_credentials', step) };
}

async function succeeded(admin: AdminClient, realm: string): Promise<number> {
  return (await eventsOf(admin, realm, { type: 'sign_in.succeeded', limit: '1000' })).events.length;
}

/**
 * Holds every call of a check (argon2's verify, the lookup of a one-time code's secret) until
 * `release`: the checks of a burst are then all running at once, however fast the machine.
 */
function holdChecks<T extends object>(owner: T, method: keyof T & string) {
  const original = owner[method] as (...args: unknown[]) => Promise<unknown>;
  const waiting: Array<() => void> = [];
  let released = false;
  const spy = vi.spyOn(owner as Record<string, (...args: unknown[]) => Promise<unknown>>, method).mockImplementation(async (...args: unknown[]) => {
    if (!released) await new Promise<void>((resolve) => waiting.push(resolve));
    return original.apply(owner, args);
  });
  return {
    get held() {
      return waiting.length;
    },
    release() {
      released = true;
      for (const go of waiting.splice(0)) go();
    },
    restore: () => spy.mockRestore(),
  };
}

/** Waits until `condition` holds: no timing is assumed, only that the requests move on. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The race of the issue: the wrong attempts are sent at once, and while their checks are running
 * (each is either running, held, or answered already), the right one is sent; then every check
 * finishes. Counted after their checks, the failures would not yet lock anything when the right
 * one arrives.
 */
async function burst(checks: ReturnType<typeof holdChecks>, wrong: Array<() => Promise<Answer>>, right: () => Promise<Answer>) {
  let answered = 0;
  const send = (attempt: () => Promise<Answer>) =>
    attempt().finally(() => {
      answered++;
    });
  const wrongAnswers = Promise.all(wrong.map(send));
  await until(() => checks.held + answered === wrong.length);
  const rightAnswer = send(right);
  await until(() => checks.held + answered === wrong.length + 1);
  checks.release();
  const answers = { wrong: await wrongAnswers, right: await rightAnswer };
  checks.restore();
  return answers;
}

const times = <T>(count: number, make: () => T): T[] => Array.from({ length: count }, make);

/** The authenticator app of a person the admin enrolled; `wrong` is a code no window around now accepts. */
function authenticator(base32: string) {
  const totp = new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 });
  const near = (offset: number) => totp.generate({ timestamp: Date.now() + offset * 30_000 });
  return {
    code: () => near(0),
    wrong(): string {
      const taken = new Set([-2, -1, 0, 1, 2].map(near));
      let candidate = Number(near(0));
      do candidate = (candidate + 1) % 1_000_000;
      while (taken.has(String(candidate).padStart(6, '0')));
      return String(candidate).padStart(6, '0');
    },
  };
}

async function enrol(admin: AdminClient, realm: string, user: TestUser) {
  const enrolled = await admin.request('POST', `/realms/${realm}/users/${user.username}/totp`);
  expect(enrolled.statusCode, enrolled.body).toBe(201);
  return authenticator((enrolled.json() as { secret: string }).secret);
}

describe('brute-force limits under concurrent attempts', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  }, TIMEOUT);
  afterAll(() => t?.close());
  afterEach(() => vi.restoreAllMocks());

  it(
    'on the sign-in page: of 30 wrong passwords and the right one sent at once, at most 10 are checked, and the right one is refused',
    async () => {
      const { realm, browserClient, user } = await setup(t.admin);
      const { b, post } = await signInPage(t.app, realm, browserClient);

      const answers = await burst(
        holdChecks(argon2, 'verify'),
        times(30, () => () => post(wrongPassword(user))),
        () => post(rightPassword(user)),
      );
      expect(answers.right.statusCode).toBe(429);
      expect(b.cookies.has(`rg_session_${realm}`)).toBe(false);
      const counted = await refusals(t.admin, realm);
      expect(counted.checked).toBeLessThanOrEqual(LIMIT);
      expect(counted.checked + counted.locked).toBe(31);
      expect(answers.wrong.filter((answer) => answer.statusCode === 200)).toHaveLength(counted.checked);

      // Afterwards too: locked, without a check.
      const verify = vi.spyOn(argon2, 'verify');
      expect((await post(rightPassword(user))).statusCode).toBe(429);
      expect(verify).not.toHaveBeenCalled();
      expect((await refusals(t.admin, realm)).locked).toBe(counted.locked + 1);
      expect(await succeeded(t.admin, realm)).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'at the password grant: of 30 wrong passwords and the right one sent at once, at most 10 are checked, and the right one is refused',
    async () => {
      const { realm, service, user } = await setup(t.admin);

      const answers = await burst(
        holdChecks(argon2, 'verify'),
        times(30, () => () => grant(t.app, realm, service, wrongPassword(user))),
        () => grant(t.app, realm, service, rightPassword(user)),
      );
      expect(answers.right.statusCode).toBe(400);
      expect(answers.right.json().error_description).toMatch(LOCKED_GRANT);
      const counted = await refusals(t.admin, realm);
      expect(counted.checked).toBeLessThanOrEqual(LIMIT);
      expect(counted.checked + counted.locked).toBe(31);

      const after = await grant(t.app, realm, service, rightPassword(user));
      expect(after.json().error_description).toMatch(LOCKED_GRANT);
      expect(await succeeded(t.admin, realm)).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'at the password grant: 30 wrong passwords under five spellings of one person (mira, MİRA, mİra…) and the right one sent at once: at most 10 are checked',
    async () => {
      const { realm, service } = await setup(t.admin);
      const mira = await createUser(t.admin, realm, 'mira');
      const spellings = ['mira', 'MIRA', 'mİra', 'MİRA', 'Mİra'];

      const answers = await burst(
        holdChecks(argon2, 'verify'),
        Array.from({ length: 30 }, (_, n) => () => grant(t.app, realm, service, { username: spellings[n % spellings.length]!, password: 'wrong' })),
        () => grant(t.app, realm, service, { username: 'Mİra', password: mira.password }),
      );
      expect(answers.right.json().error_description).toMatch(LOCKED_GRANT);
      const counted = await refusals(t.admin, realm);
      expect(counted.checked).toBeLessThanOrEqual(LIMIT);
      expect(counted.checked + counted.locked).toBe(31);
      expect(await succeeded(t.admin, realm)).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'one-time codes at the password grant: of 30 wrong codes and the right one sent at once, at most 10 are checked, and the right one is refused',
    async () => {
      const { realm, service, user } = await setup(t.admin, { authentication: ['password', 'otp'] });
      const app = await enrol(t.admin, realm, user);

      const answers = await burst(
        holdChecks(t.store.oneTimeCodes, 'totp'),
        times(30, () => () => grant(t.app, realm, service, { ...rightPassword(user), otp: app.wrong() })),
        () => grant(t.app, realm, service, { ...rightPassword(user), otp: app.code() }),
      );
      expect(answers.right.json().error_description).toMatch(LOCKED_GRANT);
      const counted = await refusals(t.admin, realm);
      expect(counted.checkedAt('otp')).toBeGreaterThan(0);
      expect(counted.checked).toBeLessThanOrEqual(LIMIT);
      expect(counted.checked + counted.locked).toBe(31);

      const after = await grant(t.app, realm, service, { ...rightPassword(user), otp: app.code() });
      expect(after.json().error_description).toMatch(LOCKED_GRANT);
      expect(await succeeded(t.admin, realm)).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'one-time codes on the sign-in page share the account budget of its passwords: after 4 wrong passwords, of 30 wrong codes and the right one sent at once, at most 6 are checked, and the right one is refused',
    async () => {
      const { realm, service, browserClient, user } = await setup(t.admin, { authentication: ['password', 'otp'] });
      const app = await enrol(t.admin, realm, user);
      for (let failure = 1; failure <= 4; failure++) await grant(t.app, realm, service, wrongPassword(user));

      const { b, post } = await signInPage(t.app, realm, browserClient);
      const toCode = await post(rightPassword(user));
      expect(toCode.statusCode, toCode.body.slice(0, 300)).toBe(303);
      const codeUrl = location(toCode);
      const codePage = await b.get(codeUrl);
      expect(codePage.body).toContain('name="otp"');

      // Every lookup of the code's secret is held, the page of a refused attempt's too: each attempt makes one.
      const answers = await burst(
        holdChecks(t.store.oneTimeCodes, 'totp'),
        times(30, () => () => b.submit(codeUrl, codePage, { otp: app.wrong() })),
        () => b.submit(codeUrl, codePage, { otp: app.code() }),
      );
      expect(answers.right.statusCode).toBe(429);
      const counted = await refusals(t.admin, realm);
      expect(counted.checkedAt('password')).toBe(4);
      expect(counted.checkedAt('otp')).toBeGreaterThan(0);
      expect(counted.checkedAt('otp')).toBeLessThanOrEqual(LIMIT - 4);
      expect(counted.checked + counted.locked).toBe(35);

      const right = await b.submit(codeUrl, codePage, { otp: app.code() });
      expect(right.statusCode).toBe(429);
      expect(b.cookies.has(`rg_session_${realm}`)).toBe(false);
      expect((await refusals(t.admin, realm)).locked).toBe(counted.locked + 1);
      expect(await succeeded(t.admin, realm)).toBe(0);
    },
    TIMEOUT,
  );
});

describe('brute-force limits under concurrent attempts on two instances of one database', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;

  beforeAll(async () => {
    instances = await startTwoInstances();
  }, TIMEOUT);
  afterAll(() => instances?.close());

  it(
    'checks at most 10 of 50 wrong passwords sent at once to both, on the sign-in page and the password grant, and then refuses the right one on both',
    async () => {
      const { a, b } = instances;
      const admin = new AdminClient(a);
      const { realm, service, browserClient, user } = await setup(admin);
      const onA = await signInPage(a, realm, browserClient);
      const onB = await signInPage(b, realm, browserClient);

      await Promise.all([
        ...times(13, () => onA.post(wrongPassword(user))),
        ...times(12, () => grant(a, realm, service, wrongPassword(user))),
        ...times(13, () => onB.post(wrongPassword(user))),
        ...times(12, () => grant(b, realm, service, wrongPassword(user))),
      ]);
      const counted = await refusals(admin, realm, instances.services.b.audit);
      expect(counted.checked).toBeLessThanOrEqual(LIMIT);
      expect(counted.checked + counted.locked).toBe(50);

      expect((await onA.post(rightPassword(user))).statusCode).toBe(429);
      expect((await onB.post(rightPassword(user))).statusCode).toBe(429);
      expect((await grant(a, realm, service, rightPassword(user))).json().error_description).toMatch(LOCKED_GRANT);
      expect((await grant(b, realm, service, rightPassword(user))).json().error_description).toMatch(LOCKED_GRANT);
      expect((await refusals(admin, realm, instances.services.b.audit)).locked).toBe(counted.locked + 4);
    },
    TIMEOUT,
  );
});
