import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedBudgets } from '../../src/rate-limits/leases.js';
import type { RequestBudgetStore } from '../../src/store/request-budgets.js';
import { AdminClient, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { TestBrowser } from '../support/flow.js';
import { basic, clientCredentials, postForm, realmPath } from '../support/oauth.js';

/** A 429 in the contract's JSON shape, with a Retry-After of whole seconds. */
function expectLimited(response: LightMyRequestResponse): number {
  expect(response.statusCode).toBe(429);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/too many requests/) });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  return retryAfter;
}

/** A 429 HTML page with a Retry-After, saying nothing internal. */
function expectLimitedPage(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(429);
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(response.body).toContain('Too many attempts');
}

describe('rate limits per client', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answer 429 with Retry-After at the token endpoint past rate_limit_token, for that client and realm only', async () => {
    await t.admin.createRealm('limited', { rate_limit_token: 3 });
    await t.admin.createRealm('unlimited', { rate_limit_token: null });
    const limited = await t.admin.serviceClient('limited');
    const other = await t.admin.serviceClient('limited');
    const free = await t.admin.serviceClient('unlimited');

    for (let i = 0; i < 3; i++) expect((await clientCredentials(t.app, 'limited', limited)).statusCode).toBe(200);
    const refused = await clientCredentials(t.app, 'limited', limited);
    // 3 per minute, in one-minute windows: the next request is allowed when this window ends.
    expect(expectLimited(refused)).toBeLessThanOrEqual(60);
    const stored = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tokens WHERE realm = 'limited'");
    expect(stored.rows[0]!.n).toBe(3);

    expect((await clientCredentials(t.app, 'limited', other)).statusCode).toBe(200);
    for (let i = 0; i < 20; i++) expect((await clientCredentials(t.app, 'unlimited', free)).statusCode).toBe(200);
  });

  it('commit the shares they take without a flush of their own, and leave every other statement’s commit as it was', async () => {
    await t.admin.createRealm('flushed', { rate_limit_token: 20 });
    const client = await t.admin.serviceClient('flushed');
    const answers = await Promise.all(Array.from({ length: 8 }, () => clientCredentials(t.app, 'flushed', client)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(8).fill(200));
    const counted = await t.store.db.query<{ failures: number }>("SELECT failures FROM attempt_counters WHERE key LIKE 'rate:token:flushed:%'");
    expect(counted.rows.map((row) => row.failures)).toEqual([8]);
    // As many at once as the pool holds connections, so that the one that ran the takes answers too.
    const settings = await Promise.all(Array.from({ length: 20 }, () => t.store.db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')));
    expect(new Set(settings.map((result) => result.rows[0]!.synchronous_commit))).toEqual(new Set(['on']));
  });

  it('counts only authenticated clients: a wrong secret neither spends nor is refused with 429', async () => {
    await t.admin.createRealm('auth-first', { rate_limit_token: 1 });
    const client = await t.admin.serviceClient('auth-first');
    for (let i = 0; i < 3; i++) {
      expect((await clientCredentials(t.app, 'auth-first', { ...client, secret: 'wrong' })).statusCode).toBe(401);
    }
    expect((await clientCredentials(t.app, 'auth-first', client)).statusCode).toBe(200);
    expectLimited(await clientCredentials(t.app, 'auth-first', client));
  });

  it('follows the realm setting as soon as it changes', async () => {
    await t.admin.createRealm('raised', { rate_limit_token: 1 });
    const client = await t.admin.serviceClient('raised');
    expect((await clientCredentials(t.app, 'raised', client)).statusCode).toBe(200);
    expectLimited(await clientCredentials(t.app, 'raised', client));
    expect((await t.admin.request('PATCH', '/realms/raised', { settings: { rate_limit_token: null } })).statusCode).toBe(200);
    expect((await clientCredentials(t.app, 'raised', client)).statusCode).toBe(200);
  });

  it('limit PAR, device authorization and CIBA requests per client', async () => {
    await t.admin.createRealm('endpoints', { rate_limit_par: 2, rate_limit_device: 2, rate_limit_ciba: 2 });
    await t.admin.request('POST', '/realms/endpoints/users', { username: 'carol', password: 'correct horse battery' });
    const client = await t.admin.createClient('endpoints', {
      redirect_uris: ['https://app.example/callback'],
      grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:openid:params:grant-type:ciba'],
      scope: 'openid profile',
    });
    const authorization = { authorization: basic(client.client_id, client.client_secret!) };
    const base = realmPath('endpoints');
    const calls: Record<string, () => Promise<LightMyRequestResponse>> = {
      par: () => postForm(t.app, `${base}/par`, { response_type: 'code', redirect_uri: 'https://app.example/callback', scope: 'openid' }, authorization),
      device: () => postForm(t.app, `${base}/device/code`, { scope: 'openid' }, authorization),
      ciba: () => postForm(t.app, `${base}/bc-authorize`, { scope: 'openid', login_hint: 'carol' }, authorization),
    };
    for (const [endpoint, call] of Object.entries(calls)) {
      const answers = [await call(), await call()];
      expect(answers.map((answer) => answer.statusCode), endpoint).toEqual(endpoint === 'par' ? [201, 201] : [200, 200]);
      expectLimited(await call());
    }
  });

  it('limit registrations per address, and each registered client’s management calls per client', async () => {
    await t.admin.createRealm('registrations', { open_registration: true, rate_limit_registration: 2 });
    const register = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: `${realmPath('registrations')}/connect/register`,
        remoteAddress,
        payload: { redirect_uris: ['https://app.example/callback'], token_endpoint_auth_method: 'none' },
      });
    const first = await register('192.0.2.1');
    expect(first.statusCode).toBe(201);
    expect((await register('192.0.2.1')).statusCode).toBe(201);
    expectLimited(await register('192.0.2.1'));
    expect((await register('192.0.2.2')).statusCode).toBe(201);

    const { client_id: clientId, registration_access_token: token } = first.json();
    const read = () =>
      t.app.inject({ method: 'GET', url: `${realmPath('registrations')}/connect/register/${clientId}`, headers: { authorization: `Bearer ${token}` } });
    expect((await read()).statusCode).toBe(200);
    expect((await read()).statusCode).toBe(200);
    expectLimited(await read());
  });
});

describe('rate limits per address at the pages', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('pages', { rate_limit_sign_in: 3, rate_limit_device_page: 2 });
  });
  afterAll(() => t.close());

  async function postSignIn(browser: TestBrowser): Promise<LightMyRequestResponse> {
    const page = await browser.get(`${realmPath('pages')}/account`);
    const signIn = page.headers.location ? await browser.get(page.headers.location as string) : page;
    const url = page.headers.location ? (page.headers.location as string) : `${realmPath('pages')}/account`;
    return browser.submit(url, signIn, { username: 'nobody', password: 'wrong password' });
  }

  it('answer the sign-in page with 429 past rate_limit_sign_in posts a minute from one address; other addresses go on', async () => {
    const browser = new TestBrowser(t.app, t.baseUrl);
    browser.remoteAddress = '198.51.100.7';
    for (let i = 0; i < 3; i++) expect((await postSignIn(browser)).statusCode).not.toBe(429);
    expectLimitedPage(await postSignIn(browser));

    const elsewhere = new TestBrowser(t.app, t.baseUrl);
    elsewhere.remoteAddress = '198.51.100.8';
    expect((await postSignIn(elsewhere)).statusCode).not.toBe(429);
  });

  it('answer the device page with 429 past rate_limit_device_page posts a minute from one address', async () => {
    const browser = new TestBrowser(t.app, t.baseUrl);
    browser.remoteAddress = '198.51.100.9';
    const url = `${realmPath('pages')}/device/user`;
    const post = async () => browser.submit(url, await browser.get(url), { user_code: 'BCDF-GHJK' });
    for (let i = 0; i < 2; i++) expect((await post()).statusCode).not.toBe(429);
    expectLimitedPage(await post());
  });
});

describe('rate limits per address on two instances', () => {
  let instances: { a: FastifyInstance; b: FastifyInstance; close(): Promise<void> };

  beforeAll(async () => {
    instances = await startTwoInstances();
    await new AdminClient(instances.a).createRealm('shared', { rate_limit_device_page: 3 });
  });
  afterAll(() => instances?.close());

  it('are shared: posts to either instance count against one budget', async () => {
    const url = `${realmPath('shared')}/device/user`;
    const statuses: number[] = [];
    for (const app of [instances.a, instances.b, instances.a, instances.b]) {
      const browser = new TestBrowser(app, 'https://auth.test');
      browser.remoteAddress = '203.0.113.5';
      statuses.push((await browser.submit(url, await browser.get(url), { user_code: 'BCDF-GHJK' })).statusCode);
    }
    expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
  });
});

describe('rate limits per client on two instances', () => {
  let instances: { a: FastifyInstance; b: FastifyInstance; close(): Promise<void> };
  let admin: AdminClient;

  beforeAll(async () => {
    instances = await startTwoInstances();
    admin = new AdminClient(instances.a);
  });
  afterAll(() => instances?.close());

  it('share one budget: requests to either instance count against the client’s limit once', async () => {
    await admin.createRealm('shared-token', { rate_limit_token: 4 });
    const client = await admin.serviceClient('shared-token');
    const statuses: number[] = [];
    for (const app of [instances.a, instances.b, instances.a, instances.b, instances.a, instances.b]) {
      statuses.push((await clientCredentials(app, 'shared-token', client)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('never pass the budget together, each instance taking a share of it at a time', async () => {
    // 40 a minute: shares of 2.
    await admin.createRealm('shared-shares', { rate_limit_token: 40 });
    const client = await admin.serviceClient('shared-shares');
    const status = async (app: FastifyInstance) => (await clientCredentials(app, 'shared-shares', client)).statusCode;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push(await status(instances.a));
    for (let i = 0; i < 40; i++) statuses.push(await status(i % 2 === 0 ? instances.b : instances.a));
    expect(statuses.filter((code) => code === 200)).toHaveLength(40);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });
});

describe('shared budgets', () => {
  /** A store of budgets in memory, in one window, that counts its statements. */
  const fakeStore = () => {
    const counts = new Map<string, number>();
    const store = {
      statements: 0,
      async take(key: string, amount: number) {
        store.statements++;
        counts.set(key, (counts.get(key) ?? 0) + amount);
        return { count: counts.get(key)!, msLeft: 30_000 };
      },
    };
    return store;
  };

  it('asks the database once per share, and not at all once the budget is spent', async () => {
    const store = fakeStore();
    const budgets = new SharedBudgets(store as unknown as RequestBudgetStore);
    const answers: number[] = [];
    for (let i = 0; i < 110; i++) answers.push(await budgets.take('k', 100));
    expect(answers.slice(0, 100).every((wait) => wait === 0)).toBe(true);
    expect(answers.slice(100).every((wait) => wait === 30)).toBe(true);
    // Shares of 5: 20 to spend the budget, one more to learn it is spent.
    expect(store.statements).toBe(21);
  });

  it('lets concurrent requests wait for one share, and two instances never pass the budget together', async () => {
    const store = fakeStore();
    const [one, two] = [new SharedBudgets(store as unknown as RequestBudgetStore), new SharedBudgets(store as unknown as RequestBudgetStore)];
    const first = await Promise.all(Array.from({ length: 5 }, () => one.take('k', 100)));
    expect(first).toEqual([0, 0, 0, 0, 0]);
    expect(store.statements).toBe(1);
    const all = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 ? one : two).take('k', 100)));
    expect(all.filter((wait) => wait === 0)).toHaveLength(95);
  });

  it('takes a share of the new window once the last has ended, for a key that had spent its budget or not', async () => {
    let now = 0;
    const windows = new Map<string, { count: number; endsAt: number }>();
    const store = {
      statements: 0,
      async take(key: string, amount: number) {
        store.statements++;
        const window = windows.get(key);
        const current = window && window.endsAt > now ? window : { count: 0, endsAt: now + 60_000 };
        current.count += amount;
        windows.set(key, current);
        return { count: current.count, msLeft: current.endsAt - now };
      },
    };
    const budgets = new SharedBudgets(store as unknown as RequestBudgetStore, 100, () => now);
    // A budget of 20: shares of 1.
    const first: number[] = [];
    for (let i = 0; i < 21; i++) first.push(await budgets.take('spent', 20));
    expect(first.slice(0, 20).every((wait) => wait === 0)).toBe(true);
    expect(first[20]).toBe(60);
    expect(await budgets.take('seldom', 20)).toBe(0);
    const before = store.statements;
    now += 61_000;
    expect(await budgets.take('spent', 20)).toBe(0);
    expect(await budgets.take('seldom', 20)).toBe(0);
    expect(store.statements).toBe(before + 2);
    now += 61_000;
    expect(await budgets.take('seldom', 20)).toBe(0);
    expect(store.statements).toBe(before + 3);
  });

  it('follows a limit changed while a share is being taken once that share is in, never asking twice at once for a key', async () => {
    const asked: number[] = [];
    let inFlight = 0;
    let answer: (() => void) | undefined;
    const store = {
      async take(_key: string, amount: number) {
        inFlight++;
        expect(inFlight).toBe(1);
        asked.push(amount);
        await new Promise<void>((resolve) => (answer = resolve));
        inFlight--;
        return { count: amount, msLeft: 30_000 };
      },
    };
    const budgets = new SharedBudgets(store as unknown as RequestBudgetStore);
    const old = budgets.take('k', 100);
    const changed = budgets.take('k', 40);
    await Promise.resolve();
    expect(asked).toEqual([5]);
    answer!();
    await old;
    // The share of the old limit is left: the new limit takes its own (a twentieth of 40).
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([5, 2]);
    answer!();
    expect(await changed).toBe(0);
  });
});
