import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enrolTotp, openTotpSecret, pendingTotpSecret, timeStepOf, totpCode, verifyOneTimeCode } from '../../src/authn/otp.js';
import { prepare } from '../../src/bootstrap.js';
import type { Store } from '../../src/store/index.js';
import type { KeyEncryption } from '../../src/tokens/key-encryption.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, consentFrom, expectCode, freshRealm, issuerOf, publicClient, redirectPath, rowsOf } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce, formFor } from '../support/flow.js';
import { postForm, realmPath } from '../support/oauth.js';
import { type TestDb, createTestDb } from '../support/store.js';
import { createUser, passwordGrant, verifyIdToken } from '../support/users.js';

/** Brute-force delays are test/authn/brute-force.test.ts's subject: here they would only slow the suite. */
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => {},
}));

const PERIOD_MS = 30_000;

/** The authenticator app of a test: codes of the secret the server handed out, at any time step. */
const appOf = (base32: string) => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 });
const codeAt = (base32: string, stepsFromNow: number) => appOf(base32).generate({ timestamp: Date.now() + stepsFromNow * PERIOD_MS });

/** A code that is none of those a window around now accepts. */
function wrongCode(base32: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((steps) => codeAt(base32, steps)));
  let candidate = Number(codeAt(base32, 0));
  do candidate = (candidate + 1) % 1_000_000;
  while (near.has(String(candidate).padStart(6, '0')));
  return String(candidate).padStart(6, '0');
}

/** Waits, when the current time step ends within 3 s, for the next one: a test's codes then stay where it put them. */
async function awayFromStepEnd(): Promise<void> {
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message of the page's error box, if any. */
const errorText = (page: string): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];
const secretOnPage = (page: string): string | undefined => /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(page)?.[1]?.replace(/ /g, '');

describe('the otp sign-in step', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A realm asking for a password then a code, a client, and a person (enrolled by the admin unless told). */
  async function setup(options: { enrolled?: boolean } = {}) {
    const realm = await freshRealm(t, { authentication: ['password', 'otp'] });
    const clientId = await publicClient(t, realm, 'openid profile');
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    let secret = '';
    if (options.enrolled ?? true) {
      const enrolled = await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`);
      expect(enrolled.statusCode, enrolled.body).toBe(201);
      secret = (enrolled.json() as { secret: string }).secret;
    }
    return { realm, clientId, user, person: { username: user.username, password: user.password }, secret };
  }

  /** A new browser through /authorize and the password, to the page of the otp step. */
  async function atCodePage(s: Awaited<ReturnType<typeof setup>>) {
    const b = new TestBrowser(t.app, t.baseUrl);
    const { verifier, challenge } = pkce();
    const start = await authorize(b, s.realm, codeRequest(s.clientId, { code_challenge: challenge }));
    const signIn = location(start);
    const passwordAnswer = await b.submit(signIn, await b.get(signIn), s.person);
    expect(passwordAnswer.statusCode, passwordAnswer.body.slice(0, 300)).toBe(303);
    expect(redirectPath(passwordAnswer)).toBe(`${realmPath(s.realm)}/login`);
    const url = location(passwordAnswer);
    const page = await b.get(url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<input id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric"/);
    return { b, url, page, verifier };
  }

  /** Submits a code; a pass leads on to consent. */
  async function submitCode(at: Awaited<ReturnType<typeof atCodePage>>, code: string, field: 'otp' | 'recovery_code' = 'otp') {
    return at.b.submit(at.url, at.page, { [field]: code });
  }

  const passed = (answer: LightMyRequestResponse) => answer.statusCode === 303 && redirectPath(answer).endsWith('/consent');

  it('asks for a code after the password; the code gives a session and an ID token with amr pwd, otp, mfa and acr 0 (the default journey)', async () => {
    const s = await setup();
    await awayFromStepEnd();
    const at = await atCodePage(s);
    expect(at.page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(0);
    expect(at.b.cookies.has(`rg_session_${s.realm}`)).toBe(false);

    const answer = await submitCode(at, codeAt(s.secret, 0));
    expect(passed(answer), answer.body.slice(0, 300)).toBe(true);
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(1);
    const code = expectCode(await consentFrom(at.b, answer), { iss: issuerOf(s.realm) });

    const tokens = await postForm(t.app, `${realmPath(s.realm)}/access_token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: s.clientId,
      code_verifier: at.verifier,
    });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const idToken = (tokens.json() as { id_token: string }).id_token;
    const { payload } = await verifyIdToken(t.app, s.realm, idToken, { issuer: issuerOf(s.realm), audience: s.clientId });
    expect(payload.sub).toBe(s.user.sub);
    expect(payload.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(payload.acr).toBe('0');
  });

  it('begins no session when the password changed between the password and the code (CONTRACT.md §7): the page says so, and the new password signs in', async () => {
    const s = await setup();
    await awayFromStepEnd();
    const at = await atCodePage(s);
    const changed = await t.admin.request('PATCH', `/realms/${s.realm}/users/${s.user.username}`, { password: 'a new password 0123' });
    expect(changed.statusCode, changed.body).toBe(200);

    const answer = await submitCode(at, codeAt(s.secret, 0));
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(403);
    expect(answer.body).toContain('The password of this account changed while you were signing in.');
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(0);
    expect(at.b.cookies.has(`rg_session_${s.realm}`)).toBe(false);
    const failures = (await t.admin.request('GET', `/realms/${s.realm}/events?type=sign_in.failed`)).json().events as Array<{ user_id: string; details: Record<string, unknown> }>;
    expect(failures).toContainEqual(expect.objectContaining({ user_id: s.user.sub, details: expect.objectContaining({ step: 'done', reason: 'password_changed' }) }));

    const again = await atCodePage({ ...s, person: { username: s.user.username, password: 'a new password 0123' } });
    expect(passed(await submitCode(again, codeAt(s.secret, 1)))).toBe(true);
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(1);
  });

  it('refuses a code used once already, even in another sign-in within its window', async () => {
    const s = await setup();
    await awayFromStepEnd();
    const code = codeAt(s.secret, 0);
    expect(passed(await submitCode(await atCodePage(s), code))).toBe(true);

    const replay = await submitCode(await atCodePage(s), code);
    expect(replay.statusCode).toBe(200);
    expect(errorText(replay.body)).toBe('The code is incorrect or was already used.');
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(1);
  });

  it('lets exactly one of concurrent uses of a code pass', async () => {
    const s = await setup();
    await awayFromStepEnd();
    const pages = await Promise.all([1, 2, 3, 4].map(() => atCodePage(s)));
    const code = codeAt(s.secret, 0);
    const answers = await Promise.all(pages.map((at) => submitCode(at, code)));
    expect(answers.filter(passed)).toHaveLength(1);
    expect(answers.filter((answer) => answer.statusCode === 200 && errorText(answer.body) !== undefined)).toHaveLength(3);
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(1);
  });

  it('accepts the previous and the next time step, and refuses codes two steps away', async () => {
    const s = await setup();
    await awayFromStepEnd();
    for (const steps of [-2, 2]) {
      const answer = await submitCode(await atCodePage(s), codeAt(s.secret, steps));
      expect(errorText(answer.body), `${steps} steps`).toBe('The code is incorrect or was already used.');
    }
    expect(passed(await submitCode(await atCodePage(s), codeAt(s.secret, -1)))).toBe(true);
    expect(passed(await submitCode(await atCodePage(s), codeAt(s.secret, 1)))).toBe(true);
    // The next step's code was accepted: the current one, earlier, no longer is.
    expect(passed(await submitCode(await atCodePage(s), codeAt(s.secret, 0)))).toBe(false);
  });

  it('refuses wrong codes and counts them: after 10 failures the account is locked (429 with Retry-After)', async () => {
    const s = await setup();
    const at = await atCodePage(s);
    for (const typed of ['12345', 'not a code', '1234567']) {
      const answer = await submitCode(at, typed);
      expect(answer.statusCode).toBe(200);
      expect(errorText(answer.body)).toBe('The code is incorrect or was already used.');
    }
    for (let failure = 3; failure < 10; failure++) {
      const answer = await submitCode(at, wrongCode(s.secret));
      expect(answer.statusCode).toBe(200);
      expect(errorText(answer.body)).toBe('The code is incorrect or was already used.');
    }
    const locked = await submitCode(at, codeAt(s.secret, 0));
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(errorText(locked.body)).toMatch(/^Too many failed sign-in attempts/);
    expect(await rowsOf(t, 'sessions', s.user.sub)).toBe(0);
    // The lock is the account's: the password step of a new sign-in is refused as well.
    const b = new TestBrowser(t.app, t.baseUrl);
    const start = location(await authorize(b, s.realm, codeRequest(s.clientId)));
    expect((await b.submit(start, await b.get(start), s.person)).statusCode).toBe(429);
  }, 60_000);

  it('asks for nothing but a code: an empty form is not counted as a failure', async () => {
    const s = await setup();
    const at = await atCodePage(s);
    const answer = await at.b.submit(at.url, at.page, {});
    expect(answer.statusCode).toBe(200);
    expect(errorText(answer.body)).toBe('Enter the code your authenticator app shows.');
    expect(await t.store.db.query('SELECT 1 FROM attempt_counters WHERE key LIKE $1', [`sign-in:${s.realm}:account:%`])).toMatchObject({ rowCount: 0 });
  });

  it('sets up an authenticator app during the sign-in of a person who has none: the first code confirms it and passes', async () => {
    const s = await setup({ enrolled: false });
    await awayFromStepEnd();
    const at = await atCodePage(s);
    expect(at.page.body).toContain('Set up an authenticator app');
    expect(at.page.body).toMatch(/<svg [^>]*role="img"/);
    expect(at.page.body).not.toMatch(/style=/);
    const secret = secretOnPage(at.page.body)!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const pending = await t.store.oneTimeCodes.totp(s.realm, s.user.sub);
    expect(pending?.confirmedAt).toBeUndefined();

    // The page shown again keeps the secret the person may be scanning.
    const again = await atCodePage(s);
    expect(secretOnPage(again.page.body)).toBe(secret);

    const wrong = await submitCode(at, wrongCode(secret));
    expect(errorText(wrong.body)).toBe('The code is incorrect or was already used.');
    expect(secretOnPage(wrong.body)).toBe(secret);

    const answer = await submitCode(again, codeAt(secret, 0));
    expect(passed(answer), answer.body.slice(0, 300)).toBe(true);
    expect((await t.store.oneTimeCodes.totp(s.realm, s.user.sub))?.confirmedAt).toBeInstanceOf(Date);

    // The next sign-in asks for a code of the app, and shows no secret.
    const later = await atCodePage(s);
    expect(later.page.body).not.toContain('totp-secret');
    expect(later.page.body).not.toMatch(/<svg/);
    expect(passed(await submitCode(later, codeAt(secret, 1)))).toBe(true);
  });

  it('confirms through the password grant no set-up begun on the sign-in page, and records whose code failed', async () => {
    const s = await setup({ enrolled: false });
    await awayFromStepEnd();
    const at = await atCodePage(s);
    const secret = secretOnPage(at.page.body)!;
    const created = await t.admin.createClient(s.realm, { grant_types: ['password'], scope: 'openid' });
    const client = { clientId: created.client_id, secret: created.client_secret as string };

    // The grant runs the sign-in core without pages: only a confirmed app's code passes there.
    const answer = await passwordGrant(t.app, s.realm, client, s.person, { otp: codeAt(secret, 0) });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error_description).toMatch(/^this realm requires a one-time code and none is set up for this account/);
    expect((await t.store.oneTimeCodes.totp(s.realm, s.user.sub))?.confirmedAt).toBeUndefined();

    // The core records the failure with the person the password identified, whichever driver ran it.
    await t.audit.flush();
    const failed = (await t.admin.request('GET', `/realms/${s.realm}/events?type=sign_in.failed`)).json().events[0];
    expect(failed).toMatchObject({ user_id: s.user.sub, details: { via: 'password_grant', step: 'otp', reason: 'wrong_credentials' } });

    // The sign-in page still confirms it with the same code.
    expect(passed(await submitCode(at, codeAt(secret, 0)))).toBe(true);
  });

  it('asks for the code of the secret an admin enrolled last: the replaced one no longer works', async () => {
    const s = await setup();
    await awayFromStepEnd();
    const replaced = await t.admin.request('POST', `/realms/${s.realm}/users/${s.user.username}/totp`);
    const secret = (replaced.json() as { secret: string }).secret;
    expect(secret).not.toBe(s.secret);
    expect(passed(await submitCode(await atCodePage(s), codeAt(s.secret, 0)))).toBe(false);
    expect(passed(await submitCode(await atCodePage(s), codeAt(secret, 0)))).toBe(true);
  });
});

describe('verifyOneTimeCode and the stored secret', () => {
  let db: TestDb;
  let store: Store;
  let encryption: KeyEncryption;
  const realm = 'root';

  beforeAll(async () => {
    db = await createTestDb();
    ({ store, encryption } = await prepare(db.db, { masterKey: randomBytes(32), adminToken: 'test-admin-token-0123456789' }));
  });
  afterAll(async () => {
    await store?.close();
    await db?.dispose();
  });

  async function enrolledPerson() {
    const user = (await store.users.create(realm, `p-${randomBytes(4).toString('hex')}`, 'unused', {}))!;
    return { userId: user.id, secret: await enrolTotp(store, encryption, realm, user.id) };
  }

  it('knows the time step of a code: RFC 6238 Appendix B vector, one step either side, nothing further', () => {
    const rfcSecret = Buffer.from('12345678901234567890');
    // RFC 6238 Appendix B, SHA-1, T = 59 s: 94287082, of which 6 digits are 287082.
    expect(timeStepOf(rfcSecret, '287082', 59_000)).toBe(1);
    expect(timeStepOf(rfcSecret, '287082', 59_000 + PERIOD_MS)).toBe(1);
    expect(timeStepOf(rfcSecret, '287082', 59_000 - PERIOD_MS)).toBe(1);
    expect(timeStepOf(rfcSecret, '287082', 59_000 + 2 * PERIOD_MS)).toBeUndefined();
    expect(timeStepOf(rfcSecret, '28708', 59_000)).toBeUndefined();
    expect(timeStepOf(rfcSecret, '2870820', 59_000)).toBeUndefined();
    expect(timeStepOf(rfcSecret, '28708a', 59_000)).toBeUndefined();
  });

  it('stores the secret encrypted, bound to its realm and person', async () => {
    const { userId, secret } = await enrolledPerson();
    const base32 = new Secret({ buffer: new Uint8Array(secret).buffer }).base32;
    const row = await db.db.query<{ secret_encrypted: Uint8Array; confirmed_at: Date | null }>(
      'SELECT secret_encrypted, confirmed_at FROM user_totp WHERE user_id = $1',
      [userId],
    );
    const sealed = Buffer.from(row.rows[0]!.secret_encrypted);
    expect(row.rows[0]!.confirmed_at).toBeInstanceOf(Date);
    expect(sealed.includes(secret)).toBe(false);
    expect(sealed.toString('latin1')).not.toContain(base32);
    expect(JSON.stringify(row.rows)).not.toContain(base32);
    expect(openTotpSecret(encryption, realm, userId, sealed).equals(secret)).toBe(true);
    expect(() => openTotpSecret(encryption, realm, randomUUID(), sealed)).toThrow();
    expect(() => openTotpSecret(encryption, 'alpha', userId, sealed)).toThrow();
  });

  it('passes exactly one of concurrent uses of a code', async () => {
    const { userId, secret } = await enrolledPerson();
    const now = Date.now();
    const code = totpCode(secret, now);
    const results = await Promise.all(Array.from({ length: 8 }, () => verifyOneTimeCode(store, encryption, realm, userId, code, { now })));
    expect(results.filter((result) => result === 'otp')).toHaveLength(1);
    expect(results.filter((result) => result === undefined)).toHaveLength(7);
  });

  it('refuses codes of a pending secret unless asked to confirm it, and of nobody', async () => {
    const user = (await store.users.create(realm, `p-${randomBytes(4).toString('hex')}`, 'unused', {}))!;
    const secret = (await pendingTotpSecret(store, encryption, realm, user.id, { fresh: true }))!;
    const now = Date.now();
    expect(await verifyOneTimeCode(store, encryption, realm, user.id, totpCode(secret, now), { now })).toBeUndefined();
    expect(await verifyOneTimeCode(store, encryption, realm, user.id, totpCode(secret, now), { now, pending: true })).toBe('otp');
    expect(await verifyOneTimeCode(store, encryption, realm, randomUUID(), totpCode(secret, now), { now })).toBeUndefined();
    expect(await verifyOneTimeCode(store, encryption, realm, 'not-a-uuid', '123456', { now })).toBeUndefined();
    expect(await verifyOneTimeCode(store, encryption, realm, 'not-a-uuid', 'abcde-fghjk', { now })).toBeUndefined();
  });
});


describe('the account page: one-time code', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });



  it('sets up an authenticator app (secret shown on its own page, confirmed by a first code), then removes it', async () => {
    const realm = await freshRealm(t);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const account = `${issuerOf(realm)}/account`;
    const b = new TestBrowser(t.app, t.baseUrl);
    const signIn = location(await b.get(account));
    expect(location(await b.submit(signIn, await b.get(signIn), { username: user.username, password: user.password }))).toBe(account);

    const page = await b.get(account);
    expect(page.body).toContain('<h2>One-time code</h2>');
    expect(page.body).toContain('No authenticator app is set up.');
    const enrolForm = formFor(page.body, `${account}/otp/enrol`);

    await awayFromStepEnd();
    const enrolment = await b.post(`${account}/otp/enrol`, enrolForm);
    expect(enrolment.statusCode).toBe(200);
    expect(enrolment.body).toMatch(/<svg [^>]*role="img"/);
    const secret = secretOnPage(enrolment.body)!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const confirmForm = formFor(enrolment.body, `${account}/otp/confirm`);

    const wrong = await b.post(`${account}/otp/confirm`, { ...confirmForm, otp: wrongCode(secret) });
    expect(errorText(wrong.body)).toBe('The code is incorrect or was already used.');
    expect(secretOnPage(wrong.body)).toBe(secret);
    expect((await t.store.oneTimeCodes.totp(realm, user.sub))?.confirmedAt).toBeUndefined();

    const confirmed = await b.post(`${account}/otp/confirm`, { ...confirmForm, otp: codeAt(secret, 0) });
    expect(confirmed.statusCode).toBe(303);
    expect(location(confirmed)).toMatch(new RegExp(`^${escapeRegExp(`${account}?notice=${encodeURIComponent('Your authenticator app is set up.')}`)}&mac=`));
    const after = await b.get(location(confirmed));
    expect(after.body).toContain('Your authenticator app is set up.');
    expect(after.body).toMatch(/An authenticator app gives you one-time codes \(set up on <time datetime="\d{4}-\d{2}-\d{2}T[^"]+" data-local="day">\w{3} \d{1,2}, \d{4}<\/time>\)/);

    // A second set-up does not replace a confirmed app; a forged form changes nothing.
    const again = await b.post(`${account}/otp/enrol`, enrolForm);
    expect(location(again)).toMatch(/notice=An%20authenticator%20app%20is%20already%20set%20up/);
    expect((await b.post(`${account}/otp/remove`, { csrf: enrolForm.csrf! })).statusCode).toBe(400);
    expect((await t.store.oneTimeCodes.totp(realm, user.sub))?.confirmedAt).toBeInstanceOf(Date);

    // The realm now asks for a code: the app set up here gives it.
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { authentication: ['password', 'otp'] } })).statusCode).toBe(200);
    const other = new TestBrowser(t.app, t.baseUrl);
    const otherSignIn = location(await other.get(account));
    const codeUrl = location(await other.submit(otherSignIn, await other.get(otherSignIn), { username: user.username, password: user.password }));
    const codePage = await other.get(codeUrl);
    expect(codePage.body).not.toContain('totp-secret');
    expect(location(await other.submit(codeUrl, codePage, { otp: codeAt(secret, 1) }))).toBe(account);

    const removed = await b.post(`${account}/otp/remove`, formFor(after.body, `${account}/otp/remove`));
    expect(location(removed)).toMatch(new RegExp(`^${escapeRegExp(`${account}?notice=${encodeURIComponent('The authenticator app was removed.')}`)}&mac=`));
    expect(await t.store.oneTimeCodes.totp(realm, user.sub)).toBeUndefined();
  });

  it('confirms nothing without a pending set-up, and accepts no recovery code as the first code', async () => {
    const realm = await freshRealm(t);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const account = `${issuerOf(realm)}/account`;
    const b = new TestBrowser(t.app, t.baseUrl);
    const signIn = location(await b.get(account));
    await b.submit(signIn, await b.get(signIn), { username: user.username, password: user.password });
    const enrolment = await b.post(`${account}/otp/enrol`, formFor((await b.get(account)).body, `${account}/otp/enrol`));
    const confirmForm = formFor(enrolment.body, `${account}/otp/confirm`);
    const [code] = codesOn((await b.post(`${account}/recovery-codes`, formFor((await b.get(account)).body, `${account}/recovery-codes`))).body);
    const withRecovery = await b.post(`${account}/otp/confirm`, { ...confirmForm, otp: code! });
    expect(errorText(withRecovery.body)).toBe('The code is incorrect or was already used.');
    expect(await t.store.oneTimeCodes.recoveryCodesLeft(realm, user.sub)).toBe(10);

    await t.store.oneTimeCodes.removeTotp(realm, user.sub);
    const nothing = await b.post(`${account}/otp/confirm`, { ...confirmForm, otp: '123456' });
    expect(location(nothing)).toMatch(/notice=There%20is%20no%20authenticator%20app%20waiting/);
  });
});

const codesOn = (page: string): string[] => [...page.matchAll(/<li><code>([^<]*)<\/code><\/li>/g)].map(([, code]) => code!);
