import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src/rate-limits/token-buckets.js';
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

describe('token buckets', () => {
  it('allows a minute’s budget at once, then one request each time one is earned back', () => {
    const buckets = new TokenBuckets();
    const start = 1_000_000;
    for (let i = 0; i < 6; i++) expect(buckets.take('k', 6, start)).toBe(0);
    // 6 per minute: one every 10 s.
    expect(buckets.take('k', 6, start)).toBe(10);
    expect(buckets.take('k', 6, start + 4_000)).toBe(6);
    expect(buckets.take('k', 6, start + 10_000)).toBe(0);
    expect(buckets.take('k', 6, start + 10_000)).toBe(10);
    // Other keys have their own budget; a lower limit caps a fuller bucket at once.
    expect(buckets.take('other', 6, start)).toBe(0);
    expect(buckets.take('k', 1, start + 120_000)).toBe(0);
    expect(buckets.take('k', 1, start + 120_000)).toBe(60);
  });

  it('keeps at most maxKeys buckets', () => {
    const buckets = new TokenBuckets(2);
    expect(buckets.take('a', 1, 0)).toBe(0);
    expect(buckets.take('a', 1, 0)).toBe(60);
    buckets.take('b', 1, 0);
    buckets.take('c', 1, 0); // pushes out the least recently used, 'a'
    expect(buckets.take('a', 1, 0)).toBe(0);
  });
});

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
    // 3 per minute: the next request is earned back within 20 s.
    expect(expectLimited(refused)).toBeLessThanOrEqual(20);
    const stored = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tokens WHERE realm = 'limited'");
    expect(stored.rows[0]!.n).toBe(3);

    expect((await clientCredentials(t.app, 'limited', other)).statusCode).toBe(200);
    for (let i = 0; i < 20; i++) expect((await clientCredentials(t.app, 'unlimited', free)).statusCode).toBe(200);
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
