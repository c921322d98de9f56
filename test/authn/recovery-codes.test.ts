import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, location, formFor } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

const CODE_FORMAT = /^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$/;


const errorText = (page: string): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];
const codesOn = (page: string): string[] => [...page.matchAll(/<li><code>([^<]*)<\/code><\/li>/g)].map(([, code]) => code!);

describe('recovery codes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A realm asking for a password and a code, and a person whose authenticator app the admin set up. */
  async function setup() {
    const realm = await freshRealm(t, { authentication: ['password', 'otp'] });
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const enrolled = await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`);
    const app = new TOTP({ secret: Secret.fromBase32((enrolled.json() as { secret: string }).secret) });
    return { realm, user, app, account: `${issuerOf(realm)}/account` };
  }

  /** Opens the account page in a new browser, signing in with the password and then `second` (a code). */
  async function signInToAccount(s: Awaited<ReturnType<typeof setup>>, second: Record<string, string>) {
    const b = new TestBrowser(t.app, t.baseUrl);
    const start = await b.get(s.account);
    expect(redirectPath(start)).toBe(`${realmPath(s.realm)}/login`);
    const signIn = location(start);
    const afterPassword = await b.submit(signIn, await b.get(signIn), { username: s.user.username, password: s.user.password });
    const codeUrl = location(afterPassword);
    const answer = await b.submit(codeUrl, await b.get(codeUrl), second);
    return { b, answer, codeUrl };
  }

  async function accountPage(b: TestBrowser, s: Awaited<ReturnType<typeof setup>>): Promise<LightMyRequestResponse> {
    const page = await b.get(s.account);
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return page;
  }

  async function generate(b: TestBrowser, s: Awaited<ReturnType<typeof setup>>): Promise<string[]> {
    const action = `${s.account}/recovery-codes`;
    const shown = await b.post(action, formFor((await accountPage(b, s)).body, action));
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['cache-control']).toBe('no-store');
    return codesOn(shown.body);
  }

  const leftOn = (page: string) => /<p class="recovery-codes-left">([^<]*)<\/p>/.exec(page)?.[1];

  it('are generated on the account page: 10 readable codes shown once, stored as SHA-256 only', async () => {
    const s = await setup();
    const { b, answer } = await signInToAccount(s, { otp: s.app.generate() });
    expect(location(answer)).toMatch(new RegExp(`^${s.account}`));
    // Someone who never had codes is not told they have none left.
    const before = (await accountPage(b, s)).body;
    expect(leftOn(before)).toBe('You have no recovery codes. They let you sign in when your authenticator app is not at hand.');
    expect(before).toContain('>Generate recovery codes</button>');

    const codes = await generate(b, s);
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(CODE_FORMAT);
    expect(new Set(codes).size).toBe(10);
    expect(leftOn((await accountPage(b, s)).body)).toMatch(/^You have 10 unused recovery codes\./);
    expect((await accountPage(b, s)).body).not.toContain(codes[0]);

    const rows = await t.store.db.query<{ code_hash: Uint8Array }>('SELECT code_hash FROM recovery_codes WHERE user_id = $1', [s.user.sub]);
    const hashes = rows.rows.map((row) => Buffer.from(row.code_hash).toString('hex')).sort();
    expect(hashes).toEqual(codes.map((code) => createHash('sha256').update(code.replace('-', '')).digest('hex')).sort());
    for (const code of codes) expect(JSON.stringify(rows.rows)).not.toContain(code.replace('-', ''));

    // Every code used: none left, and new ones to generate.
    await t.store.db.query('UPDATE recovery_codes SET used_at = now() WHERE user_id = $1', [s.user.sub]);
    const spent = (await accountPage(b, s)).body;
    expect(leftOn(spent)).toBe('You have no recovery codes left.');
    expect(spent).toContain('>Generate new codes</button>');
  });

  it('each passes the otp step once, in its own field or in the code field, typed in any case', async () => {
    const s = await setup();
    const [first, second] = await generate((await signInToAccount(s, { otp: s.app.generate() })).b, s);

    const used = await signInToAccount(s, { recovery_code: first! });
    expect(used.answer.statusCode).toBe(303);
    expect(location(used.answer)).toMatch(new RegExp(`^${s.account}`));
    expect(leftOn((await accountPage(used.b, s)).body)).toMatch(/^You have 9 unused recovery codes\./);

    const again = await signInToAccount(s, { recovery_code: first! });
    expect(again.answer.statusCode).toBe(200);
    expect(errorText(again.answer.body)).toBe('The code is incorrect or was already used.');

    const typed = await signInToAccount(s, { otp: ` ${second!.toUpperCase().replace('-', ' ')} ` });
    expect(typed.answer.statusCode).toBe(303);
    const session = await t.store.db.query<{ amr: string[] }>('SELECT amr FROM sessions WHERE user_id = $1 ORDER BY auth_time DESC LIMIT 1', [s.user.sub]);
    expect(session.rows[0]?.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('new codes replace the old ones', async () => {
    const s = await setup();
    const { b } = await signInToAccount(s, { otp: s.app.generate() });
    const old = await generate(b, s);
    const fresh = await generate(b, s);
    expect(fresh.some((code) => old.includes(code))).toBe(false);
    expect(errorText((await signInToAccount(s, { recovery_code: old[0]! })).answer.body)).toBe('The code is incorrect or was already used.');
    expect((await signInToAccount(s, { recovery_code: fresh[0]! })).answer.statusCode).toBe(303);
  });

  it('are generated only with the form of the page: without its CSRF token nothing changes', async () => {
    const s = await setup();
    const { b } = await signInToAccount(s, { otp: s.app.generate() });
    const refused = await b.post(`${s.account}/recovery-codes`, { csrf: 'forged' });
    expect(refused.statusCode).toBe(400);
    expect(codesOn(refused.body)).toEqual([]);
    const stranger = new TestBrowser(t.app, t.baseUrl);
    const anonymous = await stranger.post(`${s.account}/recovery-codes`, formFor((await accountPage(b, s)).body, `${s.account}/recovery-codes`));
    expect(anonymous.statusCode).toBe(303);
    expect(location(anonymous)).toBe(s.account);
    const rows = await t.store.db.query('SELECT 1 FROM recovery_codes WHERE user_id = $1', [s.user.sub]);
    expect(rows.rowCount).toBe(0);
  });
});
