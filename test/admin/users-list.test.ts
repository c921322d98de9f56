import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { createUser } from '../support/users.js';
import { expectAdminError } from './helpers.js';

interface UserPage {
  users: Array<{ username: string; sub: string; claims: Record<string, unknown>; enabled: boolean } & Record<string, unknown>>;
  next: string | null;
}

/** GET /admin/realms/{realm}/users?search=&limit=&cursor= (CONTRACT.md §10). */
describe('admin API: listing and searching people', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const list = (realm: string, query = '') => t.admin.request('GET', `/realms/${realm}/users${query ? `?${query}` : ''}`);

  async function page(realm: string, query = ''): Promise<UserPage> {
    const response = await list(realm, query);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as UserPage;
  }

  /** Every page of a listing, following `next`. */
  async function walk(realm: string, query: string): Promise<{ usernames: string[]; pages: number }> {
    const usernames: string[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const answer: UserPage = await page(realm, `${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      usernames.push(...answer.users.map((user) => user.username));
      cursor = answer.next;
      pages++;
      expect(pages).toBeLessThan(100);
    } while (cursor !== null);
    return { usernames, pages };
  }

  it('answers {users, next}: each person as GET …/users/{username} shows them, in the order of usernames ignoring case', async () => {
    const realm = await freshRealm(t);
    for (const username of ['carol', 'Alice', 'bob']) await createUser(t.admin, realm, username, { claims: { email: `${username.toLowerCase()}@example.com` } });
    const answer = await page(realm);
    expect(answer.next).toBeNull();
    expect(answer.users.map((user) => user.username)).toEqual(['Alice', 'bob', 'carol']);
    const alice = answer.users[0]!;
    expect(alice).toMatchObject({ username: 'Alice', claims: { email: 'alice@example.com' }, enabled: true, sub: expect.any(String) });
    expect(JSON.stringify(answer)).not.toMatch(/argon2|password/i);
    // The same fields as the person's own answer, apart from what is shown only about one person.
    const one = (await t.admin.request('GET', `/realms/${realm}/users/Alice`)).json() as Record<string, unknown>;
    for (const [field, value] of Object.entries(alice)) expect(one[field], field).toEqual(value);
  });

  it('an empty realm answers no one', async () => {
    expect(await page(await freshRealm(t))).toEqual({ users: [], next: null });
  });

  it('keeps to its realm', async () => {
    const [one, other] = [await freshRealm(t), await freshRealm(t)];
    await createUser(t.admin, one, 'only-here');
    expect((await page(other)).users).toEqual([]);
    expect((await page(one)).users.map((user) => user.username)).toEqual(['only-here']);
  });

  it('pages with limit and an opaque cursor: every person once, in order, however the pages fall', async () => {
    const realm = await freshRealm(t);
    const names = Array.from({ length: 23 }, (_, i) => `user-${String(i).padStart(2, '0')}`);
    // Created out of order, some in capitals: the order is the usernames', ignoring case.
    for (const name of [...names].reverse()) await createUser(t.admin, realm, name.endsWith('7') ? name.toUpperCase() : name);
    const expected = names.map((name) => (name.endsWith('7') ? name.toUpperCase() : name));
    for (const limit of [1, 5, 10, 22, 23, 24]) {
      const { usernames, pages } = await walk(realm, `limit=${limit}`);
      expect(usernames, `limit=${limit}`).toEqual(expected);
      expect(pages, `limit=${limit}`).toBe(Math.max(1, Math.ceil(23 / limit)));
    }
    const first = await page(realm, 'limit=5');
    expect(first.users).toHaveLength(5);
    expect(first.next).toMatch(/^[A-Za-z0-9_-]+$/);
    // The cursor names a place, not a person: one deleted meanwhile does not end the listing.
    expect((await t.admin.request('DELETE', `/realms/${realm}/users/user-04`)).statusCode).toBe(204);
    const second = await page(realm, `limit=5&cursor=${first.next}`);
    expect(second.users.map((user) => user.username)).toEqual(['user-05', 'user-06', 'USER-07', 'user-08', 'user-09']);
  });

  it('without limit answers 100 a page', async () => {
    const realm = await freshRealm(t);
    const names = Array.from({ length: 101 }, (_, i) => `p${String(i).padStart(3, '0')}`);
    // Straight into the store: 101 argon2 hashes through the API would take long.
    await t.store.db.query(
      `INSERT INTO users (realm, username, claims) SELECT $1, name, '{}'::jsonb FROM unnest($2::text[]) AS name`,
      [realm, names],
    );
    const first = await page(realm);
    expect(first.users).toHaveLength(100);
    expect(first.next).not.toBeNull();
    const rest = await page(realm, `cursor=${first.next}`);
    expect(rest).toEqual({ users: [expect.objectContaining({ username: 'p100' })], next: null });
  });

  describe('search', () => {
    let realm: string;
    beforeAll(async () => {
      realm = await freshRealm(t);
      await createUser(t.admin, realm, 'alice', { claims: { email: 'Alice.Liddell@Wonderland.example', name: 'Alice Liddell' } });
      await createUser(t.admin, realm, 'bob', { claims: { email: 'bob@builders.example', given_name: 'Robert', family_name: 'Smith' } });
      await createUser(t.admin, realm, 'carol_smith', { claims: { name: 'Carol Jones' } });
      await createUser(t.admin, realm, 'dave', { claims: { nickname: 'smithy', department: 'smiths' } });
    });

    const found = async (search: string, extra = '') =>
      (await page(realm, `search=${encodeURIComponent(search)}${extra}`)).users.map((user) => user.username);

    it('matches a substring of the username, the email or the name, ignoring case', async () => {
      expect(await found('ALI')).toEqual(['alice']);
      expect(await found('wonderland.EXAMPLE')).toEqual(['alice']);
      expect(await found('liddell')).toEqual(['alice']);
      expect(await found('robert')).toEqual(['bob']);
      // A family name, and a username: other claims (a nickname, a department) are not searched.
      expect(await found('smith')).toEqual(['bob', 'carol_smith']);
      expect(await found('Jones')).toEqual(['carol_smith']);
      expect(await found('nobody-has-this')).toEqual([]);
    });

    it('takes its text literally: LIKE wildcards match only themselves', async () => {
      expect(await found('%')).toEqual([]);
      expect(await found('_')).toEqual(['carol_smith']);
      expect(await found('a_i')).toEqual([]);
    });

    it('pages within the search', async () => {
      const { usernames, pages } = await walk(realm, 'search=smith&limit=1');
      expect(usernames).toEqual(['bob', 'carol_smith']);
      expect(pages).toBe(2);
    });

    it('an empty search lists everyone', async () => {
      expect(await found('')).toEqual(['alice', 'bob', 'carol_smith', 'dave']);
    });
  });

  it('shows who is disabled', async () => {
    const realm = await freshRealm(t);
    await createUser(t.admin, realm, 'on');
    await createUser(t.admin, realm, 'off');
    expect((await t.admin.request('PATCH', `/realms/${realm}/users/off`, { enabled: false })).statusCode).toBe(200);
    expect((await page(realm)).users.map(({ username, enabled }) => ({ username, enabled }))).toEqual([
      { username: 'off', enabled: false },
      { username: 'on', enabled: true },
    ]);
  });

  describe('bad query parameters are 400 invalid_request and name the parameter', () => {
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=', 'limit'],
      ['limit=10&limit=20', 'limit'],
      ['cursor=not%20a%20cursor', 'cursor'],
      ['cursor=', 'cursor'],
      // base64url of "a b": no username holds a space.
      [`cursor=${Buffer.from('a b').toString('base64url')}`, 'cursor'],
      [`search=${'x'.repeat(256)}`, 'search'],
      ['search=a&search=b', 'search'],
      ['sort=username', 'sort'],
    ];
    for (const [query, parameter] of cases) {
      it(query.length > 60 ? `${query.slice(0, 60)}…` : query, async () => {
        const realm = await freshRealm(t);
        const response = await list(realm, query);
        expectAdminError(response, 400, 'invalid_request');
        expect(response.json().error_description).toContain(parameter);
      });
    }

    it('a search holding a NUL is refused, not a server error', async () => {
      expectAdminError(await list(await freshRealm(t), 'search=a%00b'), 400, 'invalid_request');
    });
  });

  it('an unknown realm is 404, and no admin token 401', async () => {
    expectAdminError(await list('no-such-realm'), 404, 'not_found');
    const realm = await freshRealm(t);
    const anonymous = await t.app.inject({ method: 'GET', url: `/admin/realms/${realm}/users` });
    expectAdminError(anonymous, 401, 'invalid_token');
  });
});
