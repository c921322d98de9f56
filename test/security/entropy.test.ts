import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { codeRequest, query } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, obtainCode } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser } from '../support/users.js';
import { personIn, securityRealm, setCookies } from './support.js';

const COUNT = 1000;
/** A sign-in costs an argon2id verification (about 50 ms): sessions are sampled fewer. */
const SESSIONS = 100;
/** 32 random bytes, base64url without padding: 256 bits. */
const SECRET_256 = /^[A-Za-z0-9_-]{43}$/;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';

/** `count` results of `make`, `parallel` at a time. */
async function many<T>(count: number, make: (i: number) => Promise<T>, parallel = 8): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += parallel) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - start) }, (_, i) => make(start + i)))));
  }
  return results;
}

function json<T>(response: LightMyRequestResponse, status = 200): T {
  expect(response.statusCode, response.body).toBe(status);
  return response.json() as T;
}

/** The value of a signed cookie a response set: what @fastify/cookie signed, without its signature. */
function cookieValue(response: LightMyRequestResponse, name: string): string {
  const header = setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));
  if (!header) throw new Error(`no ${name} cookie`);
  const signed = decodeURIComponent(header.slice(name.length + 1, header.indexOf(';')));
  return signed.slice(0, signed.lastIndexOf('.'));
}

/**
 * Every secret the server hands out is at least 128 bits from the CSPRNG (RFC 6749 §10.10,
 * RFC 9700 §4.5 on codes, OWASP on session ids): each kind is drawn 1,000 times through the
 * endpoint that hands it out (sessions 100 times), and each value is 256 bits of base64url,
 * never repeated within its kind or across kinds, with the symbols spread as random bytes
 * spread them. What people type (user codes, recovery codes) is short by design and limited
 * by attempt counters: its format and spread are checked instead.
 */
// A thousand rotations are a chain of requests, one after the other: on a loaded machine the
// chain alone may pass the default 30 s, which is about speed, not entropy.
describe('token entropy', { timeout: 120_000 }, () => {
  let t: TestApp;
  let realm: string;
  let user: TestUser;
  let web: string;
  let service: { id: string; secret: string };
  let tv: string;
  let desk: { id: string; secret: string };
  const drawn = new Map<string, string[]>();

  beforeAll(async () => {
    t = await startTestApp();
    realm = await securityRealm(t, { open_registration: true, device_code_lifetime: 600 });
    user = await personIn(t, realm);
    await t.admin.putScope(realm, 'api');
    web = (await t.admin.createClient(realm, { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile', client_type: 'public' })).client_id;
    const serviceClient = await t.admin.createClient(realm, { grant_types: ['client_credentials'], scope: 'api' });
    service = { id: serviceClient.client_id, secret: serviceClient.client_secret! };
    tv = (await t.admin.createClient(realm, { client_type: 'public', grant_types: [DEVICE_GRANT], scope: 'openid' })).client_id;
    const deskClient = await t.admin.createClient(realm, { grant_types: [CIBA_GRANT], scope: 'openid' });
    desk = { id: deskClient.client_id, secret: deskClient.client_secret! };
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Checks a kind's values: 256-bit base64url, all distinct, symbols spread evenly; and keeps them for the check across kinds. */
  function expectStrong(kind: string, values: string[], expected = COUNT): void {
    expect(values, kind).toHaveLength(expected);
    for (const value of values) expect(value, `${kind}: ${value}`).toMatch(SECRET_256);
    expect(new Set(values).size, `${kind}: a value came twice`).toBe(values.length);
    // The first 42 symbols of 32 bytes carry 6 random bits each: every symbol shows up about
    // as often as any other (the last one carries 4 bits, and is left out).
    const counts = new Map<string, number>();
    for (const value of values) for (const symbol of value.slice(0, 42)) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    const mean = (values.length * 42) / 64;
    for (const symbol of BASE64URL) {
      const seen = counts.get(symbol) ?? 0;
      expect(Math.abs(seen - mean), `${kind}: the symbol ${symbol} came ${seen} times, about ${mean} expected`).toBeLessThan(mean * (values.length >= COUNT ? 0.25 : 0.6));
    }
    drawn.set(kind, values);
  }

  it('access tokens (client credentials)', async () => {
    const tokens = await many(COUNT, async () =>
      json<{ access_token: string }>(await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic(service.id, service.secret) })).access_token,
    );
    expectStrong('access token', tokens);
  });

  it('refresh tokens and the access tokens they buy, through 1,000 rotations', async () => {
    const flow = await obtainCode(new TestBrowser(t.app, t.baseUrl), realm, { clientId: web, username: user.username, password: user.password });
    const first = json<{ refresh_token: string }>(
      await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'authorization_code', code: flow.code, redirect_uri: REDIRECT_URI, client_id: web, code_verifier: flow.verifier }),
    );
    const refreshTokens: string[] = [];
    const accessTokens: string[] = [];
    let current = first.refresh_token;
    for (let i = 0; i < COUNT; i++) {
      const next = json<{ access_token: string; refresh_token: string }>(
        await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: current, client_id: web }),
      );
      refreshTokens.push(next.refresh_token);
      accessTokens.push(next.access_token);
      current = next.refresh_token;
    }
    expectStrong('refresh token', refreshTokens);
    expectStrong('access token (refresh)', accessTokens);
  });

  it('authorization codes', async () => {
    const b = new TestBrowser(t.app, t.baseUrl);
    await obtainCode(b, realm, { clientId: web, username: user.username, password: user.password });
    const codes = await many(COUNT, async () => {
      const response = await b.get(`${realmPath(realm)}/authorize?${query(codeRequest(web, { prompt: 'none' }))}`);
      return new URL(location(response)).searchParams.get('code')!;
    });
    expectStrong('authorization code', codes);
  });

  it('device codes, and user codes of 8 consonants', async () => {
    const answers = await many(COUNT, async () =>
      json<{ device_code: string; user_code: string }>(await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: tv })),
    );
    expectStrong('device code', answers.map((answer) => answer.device_code));
    const userCodes = answers.map((answer) => answer.user_code);
    for (const code of userCodes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    // 20^8 codes (34.5 bits): among 1,000 a repeat is a chance of 2 in 100,000; unanswered ones must differ anyway.
    expect(new Set(userCodes).size).toBe(COUNT);
  });

  it('CIBA auth_req_id', async () => {
    const ids = await many(COUNT, async () =>
      json<{ auth_req_id: string }>(
        await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: user.username }, { authorization: basic(desk.id, desk.secret) }),
      ).auth_req_id,
    );
    expectStrong('auth_req_id', ids);
  });

  it('PAR request_uri', async () => {
    const uris = await many(COUNT, async () =>
      json<{ request_uri: string }>(
        await postForm(t.app, `${realmPath(realm)}/par`, { client_id: web, ...(codeRequest(web) as Record<string, string>) }),
        201,
      ).request_uri,
    );
    const prefix = 'urn:ietf:params:oauth:request_uri:';
    for (const uri of uris) expect(uri.startsWith(prefix)).toBe(true);
    expectStrong('request_uri', uris.map((uri) => uri.slice(prefix.length)));
  });

  it('transaction ids and browser bindings of /authorize', async () => {
    const starts = await many(COUNT, async () => {
      const response = await new TestBrowser(t.app, t.baseUrl).get(`${realmPath(realm)}/authorize?${query(codeRequest(web))}`);
      return { transaction: new URL(location(response)).searchParams.get('transaction')!, binding: cookieValue(response, `rg_browser_${realm}`) };
    });
    expectStrong('transaction id', starts.map((start) => start.transaction));
    expectStrong('browser binding cookie', starts.map((start) => start.binding));
  });

  it('CSRF tokens (an HMAC-SHA256 of the browser binding and the form)', async () => {
    const tokens = await many(COUNT, async () => hiddenInputs((await new TestBrowser(t.app, t.baseUrl).get(`${realmPath(realm)}/device/user`)).body).csrf!);
    expectStrong('CSRF token', tokens);
  });

  it(`session secrets and device cookies (${SESSIONS} sign-ins)`, async () => {
    const signIns = await many(
      SESSIONS,
      async () => {
        const b = new TestBrowser(t.app, t.baseUrl);
        const start = await b.get(`${realmPath(realm)}/account`);
        const loginUrl = location(start);
        const answer = await b.submit(loginUrl, await b.get(loginUrl), { username: user.username, password: user.password });
        return { session: cookieValue(answer, `rg_session_${realm}`), device: cookieValue(answer, `rg_device_${realm}`) };
      },
      4,
    );
    expectStrong('session secret', signIns.map((signIn) => signIn.session), SESSIONS);
    expectStrong('device cookie', signIns.map((signIn) => signIn.device), SESSIONS);
  });

  it('client secrets, generated and rotated', async () => {
    const rotated = await many(COUNT, async () => json<{ client_secret: string }>(await t.admin.request('POST', `/realms/${realm}/clients/${service.id}/secret`)).client_secret);
    expectStrong('client secret', rotated);
  });

  it('registration access tokens and the secrets of registered clients', async () => {
    const registered = await many(COUNT, async () =>
      json<{ client_secret: string; registration_access_token: string }>(
        await t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, payload: { redirect_uris: ['https://app.example/callback'] } }),
        201,
      ),
    );
    expectStrong('registration access token', registered.map((answer) => answer.registration_access_token));
    expectStrong('client secret (registration)', registered.map((answer) => answer.client_secret));
  });

  it('initial access tokens', async () => {
    const tokens = await many(COUNT, async () => json<{ token: string }>(await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, {}), 201).token);
    expectStrong('initial access token', tokens);
  });

  it('TOTP secrets of 160 bits (RFC 4226 §4)', async () => {
    // Each enrolment replaces the person's secret with a new one.
    const secrets = await many(100, async () => json<{ secret: string }>(await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`), 201).secret, 1);
    for (const secret of secrets) expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new Set(secrets).size).toBe(100);
  });

  it('never repeats a value across kinds', () => {
    expect(drawn.size).toBe(16);
    const all = [...drawn.values()].flat();
    expect(new Set(all).size).toBe(all.length);
  });
});
