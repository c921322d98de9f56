import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { DpopKey } from '../support/dpop.js';
import { Invalidations } from '../support/invalidations.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, pkce } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { testStoreKind } from '../support/store.js';
import { createUser } from '../support/users.js';

/**
 * How many statements PostgreSQL receives for a browser flow, step by step.
 *
 * Method: every statement of this process reaches PostgreSQL through `pg.Client#query` (the
 * pool hands its clients the statements of `Db.query`, and a transaction's BEGIN, statements
 * and COMMIT go through the one client it holds), so the test wraps that method and records
 * each call while a step runs: one call is one round trip. After each step the audit trail is
 * flushed (its rows are written after the answer), and its statements count with the step.
 * Caches are warm, as on a server that has been running: a flow of another person goes first.
 *
 * The flows use the realm's default settings (the `password` step alone, consent asked for)
 * and a confidential client of the code flow with `client_secret_basic`, as the bench does:
 * - first time: a new browser and a person who never allowed the client anything;
 * - returning: the same browser, its session still fresh, and the consent of its first flow
 *   remembered, so that /authorize answers with the code at once.
 *
 * Measured before the round trips were cut: first time 28 (GET /authorize 1, GET /login 1,
 * POST /login 12, GET /consent 3, POST /consent 6, token 5), returning 8 (GET /authorize 3,
 * token 5). Since: first time 12 (1, 1, 6, 1, 2, 1), returning 3 (2, 1).
 *
 * A rotating refresh: 5 before (the token's lookup, shared with concurrent ones; then BEGIN, the
 * lock of the people behind the tokens, the rotation with its successors and event, COMMIT); 2
 * since (the lookup, then one call of the function rotate_refresh_tokens, outside any BEGIN,
 * whose statements are the lock and the rotation: src/store/tokens.ts `rotateMany`). A replayed
 * one: 7 (the lookup, the transaction that revokes its grant, and the event).
 */
const LIMITS = { firstTime: 12, returning: 5, refresh: 2, refreshReplayed: 7 };

type Step = { name: string; statements: string[] };

describe.skipIf(testStoreKind() !== 'postgres')('statements PostgreSQL receives per browser flow', () => {
  let t: TestApp;
  const realm = `counts-${randomBytes(4).toString('hex')}`;
  let client: { clientId: string; secret: string };

  let recording: string[] | undefined;
  const originalQuery = pg.Client.prototype.query;
  let invalidations: Invalidations;

  beforeAll(async () => {
    invalidations = Invalidations.watch();
    t = await startTestApp();
    await t.admin.createRealm(realm, {});
    const created = await t.admin.createClient(realm, {
      client_type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile',
    });
    client = { clientId: created.client_id, secret: created.client_secret as string };
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      recording?.push(typeof config === 'string' ? config : (config.text ?? String(config)));
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
  });
  afterAll(async () => {
    pg.Client.prototype.query = originalQuery;
    invalidations?.stop();
    await t?.close();
  });

  /**
   * The invalidations of the admin calls and warm-ups before (a realm, a client, a person) reach
   * this instance's caches over LISTEN a moment after they commit, and would drop what a warm-up
   * loaded in the middle of a measured step: wait for them, then send `warm` again to refill.
   */
  async function settledCaches(warm: () => Promise<unknown>): Promise<void> {
    await invalidations.settled(t.store.db);
    await warm();
  }

  /** Runs one request of the flow, and records the statements it (and its audit rows) sent. */
  async function step(steps: Step[], name: string, send: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
    await t.audit.flush(); // the rows of what came before (the person's creation) are not the step's
    const statements: string[] = [];
    recording = statements;
    try {
      const response = await send();
      await t.audit.flush();
      steps.push({ name, statements });
      return response;
    } finally {
      recording = undefined;
    }
  }

  const report = (steps: Step[]): string =>
    steps
      .map(({ name, statements }) => `${name}: ${statements.length}\n${statements.map((sql) => `    ${sql.replace(/\s+/g, ' ').trim().slice(0, 160)}`).join('\n')}`)
      .join('\n');

  const total = (steps: Step[]) => steps.reduce((sum, { statements }) => sum + statements.length, 0);

  /** GET /authorize with PKCE; the code's verifier for the exchange. */
  async function authorize(steps: Step[], browser: TestBrowser) {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      state: 'state-1',
      nonce: 'nonce-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const response = await step(steps, 'GET /authorize', () => browser.get(`${realmPath(realm)}/authorize?${query}`));
    return { response, verifier };
  }

  async function exchange(steps: Step[], redirect: LightMyRequestResponse, verifier: string) {
    const code = new URL(location(redirect)).searchParams.get('code');
    expect(code, redirect.body).toEqual(expect.any(String));
    const token = await step(steps, 'POST /access_token', () =>
      postForm(
        t.app,
        `${realmPath(realm)}/access_token`,
        { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, code_verifier: verifier },
        { authorization: basic(client.clientId, client.secret) },
      ),
    );
    expect(token.statusCode, token.body).toBe(200);
    expect(token.json()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), id_token: expect.any(String) });
    return token.json() as { refresh_token: string };
  }

  /** Sign-in with a password, then consent: the whole first-time flow, as a new browser. */
  async function firstTimeFlow(steps: Step[], person: { username: string; password: string }): Promise<{ browser: TestBrowser; refreshToken: string }> {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const { response: toLogin, verifier } = await authorize(steps, browser);
    const loginUrl = location(toLogin);
    expect(loginUrl).toContain('/login?');
    const loginPage = await step(steps, 'GET /login', () => browser.get(loginUrl));
    expect(loginPage.statusCode).toBe(200);
    const toConsent = await step(steps, 'POST /login', () =>
      browser.post(loginUrl, { ...hiddenInputs(loginPage.body), username: person.username, password: person.password }),
    );
    const consentUrl = location(toConsent);
    expect(consentUrl).toContain('/consent?');
    const consentPage = await step(steps, 'GET /consent', () => browser.get(consentUrl));
    expect(consentPage.statusCode).toBe(200);
    const toClient = await step(steps, 'POST /consent', () => browser.post(consentUrl, { ...hiddenInputs(consentPage.body), decision: 'allow' }));
    const { refresh_token: refreshToken } = await exchange(steps, toClient, verifier);
    return { browser, refreshToken };
  }

  const person = (name: string) => createUser(t.admin, realm, `${name}-${randomBytes(3).toString('hex')}`);

  it(`a first-time flow sends at most ${LIMITS.firstTime} statements, a returning one at most ${LIMITS.returning}`, async () => {
    const firstPerson = await person('first');
    await firstTimeFlow([], await person('warm-up'));
    await invalidations.settled(t.store.db);

    const first: Step[] = [];
    const { browser } = await firstTimeFlow(first, firstPerson);

    const returning: Step[] = [];
    const { response: toClient, verifier } = await authorize(returning, browser);
    expect(new URL(location(toClient)).origin + new URL(location(toClient)).pathname).toBe(REDIRECT_URI);
    await exchange(returning, toClient, verifier);

    const summary = `first-time flow: ${total(first)}\n${report(first)}\n\nreturning flow: ${total(returning)}\n${report(returning)}`;
    console.log(summary);
    expect(total(first), summary).toBeLessThanOrEqual(LIMITS.firstTime);
    expect(total(returning), summary).toBeLessThanOrEqual(LIMITS.returning);
  });

  it(`a rotating refresh sends at most ${LIMITS.refresh} statements, and a replay of its token at most ${LIMITS.refreshReplayed}`, async () => {
    const { refreshToken } = await firstTimeFlow([], await person('refresh'));
    const refresh = (token: string) =>
      postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: token }, {
        authorization: basic(client.clientId, client.secret),
      });
    // Warm: the first refresh of a grant loads what later ones find cached.
    const warm = await refresh(refreshToken);
    expect(warm.statusCode, warm.body).toBe(200);
    await invalidations.settled(t.store.db);
    const steps: Step[] = [];
    const rotated = await step(steps, 'POST /access_token (refresh)', () => refresh(warm.json().refresh_token as string));
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), id_token: expect.any(String) });
    const replayed = await step(steps, 'POST /access_token (refresh replayed)', () => refresh(warm.json().refresh_token as string));
    expect(replayed.json().error).toBe('invalid_grant');
    console.log(report(steps));
    const [fresh, replay] = steps.map(({ statements }) => statements.length);
    expect(fresh, report(steps)).toBeLessThanOrEqual(LIMITS.refresh);
    expect(replay, report(steps)).toBeLessThanOrEqual(LIMITS.refreshReplayed);
  });

  it('a JWT introspection response (RFC 9701) sends no more statements than the plain JSON one', async () => {
    const service = await t.admin.serviceClient(realm, '', { introspection_signed_response_alg: 'ES256' });
    const issued = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials' }, {
      authorization: basic(service.clientId, service.secret),
    });
    const token = issued.json().access_token as string;
    const introspect = (accept: string) =>
      postForm(t.app, `${realmPath(realm)}/introspect`, { token }, { authorization: basic(service.clientId, service.secret), accept });
    // Warm: the client and the realm's signing keys are cached, as on a running server.
    await settledCaches(() => introspect('application/token-introspection+jwt'));
    const steps: Step[] = [];
    const plain = await step(steps, 'POST /introspect (JSON)', () => introspect('application/json'));
    const signed = await step(steps, 'POST /introspect (JWT)', () => introspect('application/token-introspection+jwt'));
    expect(plain.json()).toMatchObject({ active: true });
    expect(signed.headers['content-type']).toMatch(/^application\/token-introspection\+jwt/);
    const [json, jwt] = steps.map(({ statements }) => statements.length);
    console.log(report(steps));
    expect(jwt, report(steps)).toBeLessThanOrEqual(json!);
  });

  it('a DPoP proof adds no statement to client credentials: its jti is spent in the token write (opaque and JWT tokens)', async () => {
    const statelessRealm = `${realm}-jwt`;
    await t.admin.createRealm(statelessRealm, { stateless_tokens: true });
    for (const name of [realm, statelessRealm]) {
      const service = await t.admin.serviceClient(name, 'api');
      const key = await DpopKey.generate();
      const request = (dpop?: string) =>
        postForm(t.app, `${realmPath(name)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
          authorization: basic(service.clientId, service.secret),
          ...(dpop ? { dpop } : {}),
        });
      const url = `${BASE_URL}${realmPath(name)}/access_token`;
      await request(await key.proof('POST', url)); // warm: the client, and the key imported once
      await settledCaches(() => request());
      const steps: Step[] = [];
      const bearer = await step(steps, 'POST /access_token (Bearer)', () => request());
      const proof = await key.proof('POST', url);
      const bound = await step(steps, 'POST /access_token (DPoP)', () => request(proof));
      expect(bearer.json().token_type).toBe('Bearer');
      expect(bound.json().token_type, bound.body).toBe('DPoP');
      const replay = await step(steps, 'POST /access_token (DPoP replayed)', () => request(proof));
      expect(replay.json().error).toBe('invalid_dpop_proof');
      const [plain, dpop, replayed] = steps.map(({ statements }) => statements.length);
      console.log(report(steps));
      expect(plain, report(steps)).toBe(1);
      expect(dpop, report(steps)).toBe(plain);
      expect(replayed, report(steps)).toBe(plain);
    }
  });

  it('a pairwise subject (OpenID Connect Core §8) adds no statement: UserInfo and introspection send as many as for a public client', async () => {
    const person = await createUser(t.admin, realm, `pairwise-${randomBytes(3).toString('hex')}`);
    const counts: Record<string, number[]> = {};
    for (const subjectType of ['public', 'pairwise']) {
      const created = await t.admin.createClient(realm, { redirect_uris: [REDIRECT_URI], grant_types: ['password'], scope: 'openid profile', subject_type: subjectType });
      const authorization = basic(created.client_id, created.client_secret as string);
      const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'password', username: person.username, password: person.password, scope: 'openid' }, { authorization });
      expect(tokens.statusCode, tokens.body).toBe(200);
      const token = tokens.json().access_token as string;
      const userinfo = () => t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });
      const introspect = () => postForm(t.app, `${realmPath(realm)}/introspect`, { token }, { authorization });
      await userinfo();
      await introspect(); // warm: the client, the person's scopes
      await settledCaches(async () => {
        await userinfo();
        await introspect();
      });
      const steps: Step[] = [];
      expect((await step(steps, `GET /userinfo (${subjectType})`, userinfo)).statusCode).toBe(200);
      expect((await step(steps, `POST /introspect (${subjectType})`, introspect)).json()).toMatchObject({ active: true });
      console.log(report(steps));
      counts[subjectType] = steps.map(({ statements }) => statements.length);
    }
    expect(counts.pairwise, JSON.stringify(counts)).toEqual(counts.public);
  });
});
