import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { RevokedJwts } from '../../src/store/revoked-jwts.js';
import { jtiTime } from '../../src/tokens/jti.js';
import { AdminClient, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { TestBrowser, formFor } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { type ServiceClient, introspect, realmPath } from '../support/oauth.js';
import { GOOD_PASSWORD, beginSignIn, linkIn, selfServiceRealm } from '../support/self-service.js';
import { type TestUser, createUser, passwordGrant, passwordTokens } from '../support/users.js';

const NEW_PASSWORD = 'amber-harbour-58-quietly';

/**
 * CONTRACT.md §7: a password change (admin API, account page), a reset or a disable denies the
 * person's JWT access tokens issued before it, even those of grants that wrote no row (a
 * password grant without refresh token in a `stateless_tokens` realm), at introspection and
 * UserInfo; those issued after it stay active.
 */
describe('stateless JWTs of a person whose credentials change', () => {
  let mail: TestMailServer;
  let t: TestApp;
  let realm: string;
  let browserClientId: string;
  /** The password grant only: its JWTs leave no row. */
  let app: ServiceClient;
  let auditor: ServiceClient;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings });
    ({ realm, clientId: browserClientId } = await selfServiceRealm(t, { stateless_tokens: true, password_reset: true, access_token_lifetime: 600 }));
    const created = await t.admin.createClient(realm, { grant_types: ['password'], scope: 'openid profile' });
    app = { clientId: created.client_id, secret: created.client_secret as string };
    auditor = await t.admin.serviceClient(realm, '', { introspect_any_token: true });
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const person = () => createUser(t.admin, realm, `p-${randomBytes(4).toString('hex')}`, { claims: { email: `${randomBytes(4).toString('hex')}@example.com` } });
  const jwtOf = async (user: TestUser) => {
    const tokens = await passwordTokens(t.app, realm, app, user, 'openid profile');
    expect(tokens.refresh_token).toBeUndefined();
    return tokens.access_token;
  };
  const userinfo = (token: string) => t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });

  async function expectActive(token: string): Promise<void> {
    expect(await introspect(t.app, realm, auditor, token).then((r) => r.json())).toMatchObject({ active: true, sub: decodeJwt(token).sub });
    expect((await userinfo(token)).statusCode).toBe(200);
  }
  async function expectDenied(token: string): Promise<void> {
    expect(await introspect(t.app, realm, auditor, token).then((r) => r.json())).toEqual({ active: false });
    const refused = await userinfo(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toBe('invalid_token');
  }

  /** Tokens before the change are denied; the person's next one, and another person's, live. */
  async function expectChangeDenies(user: TestUser, change: () => Promise<TestUser>): Promise<void> {
    const bystander = await person();
    const theirs = await jwtOf(bystander);
    const before = [await jwtOf(user), await jwtOf(user)];
    for (const token of before) await expectActive(token);

    const changed = await change();
    for (const token of before) await expectDenied(token);
    await expectActive(theirs);

    // At once, though in the same second as the change: its jti tells it was issued after it.
    const after = await jwtOf(changed);
    await expectActive(after);
    for (const token of before) await expectDenied(token);
  }

  it('a password change through the admin API', async () => {
    const user = await person();
    await expectChangeDenies(user, async () => {
      const response = await t.admin.request('PATCH', `/realms/${realm}/users/${user.username}`, { password: NEW_PASSWORD });
      expect(response.statusCode, response.body).toBe(200);
      return { ...user, password: NEW_PASSWORD };
    });
  });

  it('a password change on the account page', async () => {
    const user = await person();
    await expectChangeDenies(user, async () => {
      const browser = new TestBrowser(t.app, BASE_URL);
      const { loginUrl } = await beginSignIn(browser, realm, browserClientId);
      await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
      const accountUrl = `${realmPath(realm)}/account`;
      const changeUrl = `${BASE_URL}${realmPath(realm)}/account/password`;
      const page = await browser.get(accountUrl);
      expect(page.statusCode).toBe(200);
      const changed = await browser.post(changeUrl, { ...formFor(page.body, changeUrl), current_password: user.password, new_password: NEW_PASSWORD });
      expect(changed.statusCode).toBe(303);
      return { ...user, password: NEW_PASSWORD };
    });
  });

  it('a password reset', async () => {
    const user = await person();
    const email = (await t.admin.request('GET', `/realms/${realm}/users/${user.username}`)).json().claims.email as string;
    await expectChangeDenies(user, async () => {
      const asking = new TestBrowser(t.app, BASE_URL);
      const resetUrl = `${realmPath(realm)}/reset`;
      await asking.submit(resetUrl, await asking.get(resetUrl), { username: user.username });
      const link = linkIn(await mail.nextMail(email), '/reset');
      const browser = new TestBrowser(t.app, BASE_URL);
      const done = await browser.submit(link, await browser.get(link), { password: GOOD_PASSWORD });
      expect(done.statusCode).toBe(200);
      expect(done.body).toContain('Your password is changed');
      return { ...user, password: GOOD_PASSWORD };
    });
  });

  it('a disable (and a later enable lets new tokens live)', async () => {
    const user = await person();
    await expectChangeDenies(user, async () => {
      const setEnabled = (enabled: boolean) => t.admin.request('PATCH', `/realms/${realm}/users/${user.username}`, { enabled });
      expect((await setEnabled(false)).statusCode).toBe(200);
      expect((await setEnabled(true)).statusCode).toBe(200);
      return user;
    });
  });

  it('is one row per person, which a later change moves on and a deletion extends to every token', async () => {
    const user = await person();
    const rows = async () =>
      (
        await t.store.db.query<{ n: number; until: string }>(
          `SELECT count(*)::int AS n, max(issued_until)::text AS until FROM revoked_jwts WHERE realm = $1 AND kind = 'person' AND id = $2`,
          [realm, user.sub],
        )
      ).rows[0]!;
    const change = (password: string) => t.admin.request('PATCH', `/realms/${realm}/users/${user.username}`, { password });
    expect((await change(NEW_PASSWORD)).statusCode).toBe(200);
    const first = await rows();
    expect(first.n).toBe(1);
    expect((await change(GOOD_PASSWORD)).statusCode).toBe(200);
    const second = await rows();
    expect(second.n).toBe(1);
    expect(new Date(second.until).getTime()).toBeGreaterThan(new Date(first.until).getTime());
    expect((await t.admin.request('DELETE', `/realms/${realm}/users/${user.username}`)).statusCode).toBe(204);
    expect(await rows()).toEqual({ n: 1, until: 'infinity' });
  });

  it('denies every JWT of a password grant that read the password before a concurrent change', async () => {
    const user = await person();
    const grants = Array.from({ length: 8 }, () => passwordGrant(t.app, realm, app, user));
    const change = t.admin.request('PATCH', `/realms/${realm}/users/${user.username}`, { password: NEW_PASSWORD });
    const [changed, ...answers] = await Promise.all([change, ...grants]);
    expect(changed.statusCode).toBe(200);
    // Each one that was answered with a token used the old password: none may stay active.
    for (const answer of answers.filter((a) => a.statusCode === 200)) await expectDenied(answer.json().access_token);
    await expectActive(await jwtOf({ ...user, password: NEW_PASSWORD }));
  });

  it('judges to the millisecond, by the database too while the in-memory list cannot be trusted (not listening)', async () => {
    const user = await person();
    const issued = decodeJwt(await jwtOf(user));
    // The moment the password was read, which is not after the token's iat.
    expect(jtiTime(issued.jti!)).toBeLessThan((issued.iat! + 1) * 1000);
    expect((await t.admin.request('PATCH', `/realms/${realm}/users/${user.username}`, { password: NEW_PASSWORD })).statusCode).toBe(200);
    const row = await t.store.db.query<{ until: number }>(
      `SELECT floor(extract(epoch FROM issued_until) * 1000)::float8 AS until FROM revoked_jwts WHERE realm = $1 AND kind = 'person' AND id = $2`,
      [realm, user.sub],
    );
    const until = row.rows[0]!.until;
    const unlistened = { query: t.store.db.query.bind(t.store.db), listening: false } as unknown as Db;
    const asToken = (issuedAtMs: number) => ({ jti: 'x', grantId: undefined, userId: user.sub, issuedAtMs });
    for (const list of [new RevokedJwts(unlistened), t.store.revokedJwts]) {
      expect(await list.isDenied(realm, asToken(jtiTime(issued.jti!)!))).toBe(true);
      expect(await list.isDenied(realm, asToken(until))).toBe(true);
      expect(await list.isDenied(realm, asToken(until + 1))).toBe(false);
    }
  });
});

/** The denial reaches every instance: a change on one denies the JWT at the other. */
describe('stateless JWTs of a person whose password changes, on two instances', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;

  beforeAll(async () => {
    instances = await startTwoInstances();
  });
  afterAll(() => instances?.close());

  it('denies at instance b a JWT issued before a password change made at instance a', async () => {
    const { a, b } = instances;
    const admin = new AdminClient(a);
    const realm = `two-${randomBytes(3).toString('hex')}`;
    await admin.createRealm(realm, { stateless_tokens: true });
    const created = await admin.createClient(realm, { grant_types: ['password'], scope: 'openid' });
    const app = { clientId: created.client_id, secret: created.client_secret as string };
    const user = await createUser(admin, realm, 'mira');
    const token = (await passwordTokens(b, realm, app, user)).access_token;
    expect((await introspect(b, realm, app, token)).json()).toMatchObject({ active: true });

    expect((await admin.request('PATCH', `/realms/${realm}/users/mira`, { password: NEW_PASSWORD })).statusCode).toBe(200);
    const changedAt = Date.now();
    let active = true;
    while (active && Date.now() - changedAt < 5000) {
      active = (await introspect(b, realm, app, token)).json().active;
      if (active) await sleep(20);
    }
    expect(active).toBe(false);
  });
});
