import { type JWTPayload, createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/outbox/deliverer.js';
import { deleteExpired } from '../../src/store/cleanup.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, obtainCode } from '../support/flow.js';
import { postForm, realmPath } from '../support/oauth.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A person signed in with the code flow of `clientId` in a new browser: the browser, and the sid of their ID token. */
async function signIn(t: TestApp, realm: string, clientId: string, who: { username: string; password: string }) {
  const browser = new TestBrowser(t.app, t.baseUrl);
  const { code, verifier } = await obtainCode(browser, realm, { clientId, ...who });
  const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
  });
  expect(tokens.statusCode, tokens.body).toBe(200);
  const idToken = tokens.json().id_token as string;
  return { browser, idToken, sid: decodeJwt(idToken).sid as string };
}

/** The logout token of a receiver's request, verified as a relying party would: with jose, against the realm's jwks_uri. */
async function verifiedLogoutToken(t: TestApp, realm: string, clientId: string, body: string): Promise<JWTPayload> {
  const token = new URLSearchParams(body).get('logout_token');
  expect(token).toBeTruthy();
  const discovery = (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
  const jwks = await t.app.inject({ method: 'GET', url: new URL(discovery.jwks_uri as string).pathname });
  const { payload, protectedHeader } = await jwtVerify(token!, createLocalJWKSet(jwks.json()), {
    issuer: issuerOf(realm),
    audience: clientId,
    typ: 'logout+jwt',
    algorithms: ['RS256', 'ES256'],
  });
  expect(protectedHeader.typ).toBe('logout+jwt');
  expect(payload.events).toEqual({ [EVENT]: {} });
  expect(payload).not.toHaveProperty('nonce');
  expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
  expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(120);
  return payload;
}

describe('back-channel logout (CONTRACT.md §12)', () => {
  let t: TestApp;
  let realm: string;
  let receiver: Receiver;
  let clientId: string;
  let quietClientId: string;
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver('/backchannel-logout?tenant=a');
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], outbox: { pollMs: 200 } });
    realm = await freshRealm(t);
    const setup = await codeFlowSetup(t.admin, realm, {
      client: { backchannel_logout_uri: receiver.url, backchannel_logout_session_required: true, id_token_signed_response_alg: 'ES256' },
    });
    clientId = setup.clientId;
    // A client with no back-channel logout URI: its sessions' ends are told to no one.
    quietClientId = (await codeFlowSetup(t.admin, realm, { username: 'quiet' })).clientId;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** A new person, signed in to both clients in one browser. */
  async function person() {
    const who = { username: `person-${++n}`, password: 'correct horse battery' };
    expect((await t.admin.request('POST', `/realms/${realm}/users`, who)).statusCode).toBe(201);
    const signedIn = await signIn(t, realm, clientId, who);
    await obtainCode(signedIn.browser, realm, { clientId: quietClientId, ...who });
    return { ...who, ...signedIn };
  }

  const userPath = (username: string) => `/realms/${realm}/users/${username}`;

  const ways: Array<[string, (who: Awaited<ReturnType<typeof person>>) => Promise<void>]> = [
    [
      'RP-initiated logout',
      async (who) => {
        const response = await who.browser.get(`${realmPath(realm)}/connect/endSession?id_token_hint=${who.idToken}`);
        expect(response.statusCode).toBe(200);
      },
    ],
    ['signing out everywhere (an admin ending the sessions)', async (who) => void expect((await t.admin.request('DELETE', `${userPath(who.username)}/sessions`)).statusCode).toBe(204)],
    ['a disable', async (who) => void expect((await t.admin.request('PATCH', userPath(who.username), { enabled: false })).statusCode).toBe(200)],
    ['a password change', async (who) => void expect((await t.admin.request('PATCH', userPath(who.username), { password: 'another horse battery' })).statusCode).toBe(200)],
    ['the person deleted (admin API)', async (who) => void expect((await t.admin.request('DELETE', userPath(who.username))).statusCode).toBe(204)],
    [
      'a new sign-in in the same browser, replacing the session',
      async (who) => {
        const other = { username: `other-${n}`, password: 'correct horse battery' };
        expect((await t.admin.request('POST', `/realms/${realm}/users`, other)).statusCode).toBe(201);
        await obtainCode(who.browser, realm, { clientId: quietClientId, ...other, params: { prompt: 'login' } });
      },
    ],
    [
      'expiry (the cleanup job deletes the expired session)',
      async (who) => {
        await t.store.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE sid = $1::uuid", [who.sid]);
        expect(await deleteExpired(t.store.db, { batchSize: 500, pauseMs: 0 })).toBeGreaterThanOrEqual(1);
        expect((await t.store.db.query('SELECT 1 FROM sessions WHERE sid = $1::uuid', [who.sid])).rows).toHaveLength(0);
      },
    ],
  ];

  for (const [way, end] of ways) {
    it(`${way}: the client gets a signed logout token within 10 s, once`, async () => {
      const who = await person();
      const before = receiver.received.length;
      const started = Date.now();
      await end(who);
      // Delivery never slows the request that ended the session.
      expect(Date.now() - started).toBeLessThan(2_000);
      const received = await receiver.waitFor(before + 1, 10_000);
      const request = received[before]!;
      expect(request.path).toBe('/backchannel-logout?tenant=a');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const claims = await verifiedLogoutToken(t, realm, clientId, request.body);
      expect(claims.sid).toBe(who.sid);
      expect(claims.sub).toBe(decodeJwt(who.idToken).sub);
      // Acknowledged: never sent again.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(receiver.received.length).toBe(before + 1);
    });
  }

  it('a session that gave the client nothing tells it nothing', async () => {
    const who = { username: `person-${++n}`, password: 'correct horse battery' };
    await t.admin.request('POST', `/realms/${realm}/users`, who);
    const browser = new TestBrowser(t.app, t.baseUrl);
    await obtainCode(browser, realm, { clientId: quietClientId, ...who });
    const before = receiver.received.length;
    expect((await t.admin.request('DELETE', `${userPath(who.username)}/sessions`)).statusCode).toBe(204);
    await t.outbox.tick();
    expect(receiver.received.length).toBe(before);
    const queued = await t.store.db.query('SELECT 1 FROM outbox WHERE payload->>\'client_id\' = $1', [quietClientId]);
    expect(queued.rows).toHaveLength(0);
  });

  it('counts what it delivered in /metrics', async () => {
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/outbox_delivered_total\{kind="backchannel_logout"\} [1-9]/);
    expect(metrics.body).toMatch(/# TYPE outbox_queued gauge/);
  });
});

describe('back-channel logout delivery: retries, SSRF guard', () => {
  /** How far the deliverer's clock is ahead of the real one. */
  let ahead = 0;
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver('/logout');
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], outbox: { polling: false, clock: () => Date.now() + ahead } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function signedInWith(client: Record<string, unknown>) {
    const realm = await freshRealm(t);
    const setup = await codeFlowSetup(t.admin, realm, { client });
    const who = { username: setup.username, password: setup.password };
    return { realm, clientId: setup.clientId, ...who, ...(await signIn(t, realm, setup.clientId, who)) };
  }

  it('a receiver that fails twice then succeeds gets the same jti once more, and never again', async () => {
    const s = await signedInWith({ backchannel_logout_uri: receiver.url });
    receiver.answer = (number) => (number <= 2 ? 503 : 200);
    await t.admin.request('DELETE', `/realms/${s.realm}/users/${s.username}/sessions`);

    expect(await t.outbox.tick()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    // Not due again before its backoff.
    ahead += backoffMs(1) - 1_000;
    expect(await t.outbox.tick()).toBe(0);
    ahead += 1_000;
    expect(await t.outbox.tick()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    ahead += backoffMs(2);
    expect(await t.outbox.tick()).toBe(1);
    expect(receiver.received).toHaveLength(3);
    // Acknowledged with a 2xx: never sent again, however long after.
    ahead += 3 * 60 * 60_000;
    expect(await t.outbox.tick()).toBe(0);
    expect(receiver.received).toHaveLength(3);

    const tokens = await Promise.all(receiver.received.map((r) => verifiedLogoutToken(t, s.realm, s.clientId, r.body)));
    expect(new Set(tokens.map((token) => token.jti)).size).toBe(1);
    expect(tokens.every((token) => token.sid === s.sid)).toBe(true);
  });

  it('keeps trying for at least an hour, then gives up', async () => {
    ahead = 0; // the retry window counts from when the entry was queued, by the database's clock
    const s = await signedInWith({ backchannel_logout_uri: receiver.url });
    const before = receiver.received.length;
    receiver.answer = () => 500;
    await t.admin.request('DELETE', `/realms/${s.realm}/users/${s.username}/sessions`);
    const start = ahead;
    let tries = 0;
    while (ahead - start < 60 * 60_000) {
      tries += await t.outbox.tick();
      ahead += 60_000;
    }
    // Still due after the hour: one more try, which gives up.
    ahead += 15 * 60_000;
    tries += await t.outbox.tick();
    expect(tries).toBeGreaterThan(5);
    expect(receiver.received.length - before).toBe(tries);
    ahead += 60 * 60_000;
    expect(await t.outbox.tick()).toBe(0);
    const row = await t.store.db.query<{ abandoned: boolean }>(
      'SELECT abandoned_at IS NOT NULL AS abandoned FROM outbox WHERE realm = $1',
      [s.realm],
    );
    expect(row.rows).toEqual([{ abandoned: true }]);
  });

  it('the SSRF guard applies: an internal address not in OUTBOUND_ALLOW is never reached', async () => {
    const guarded = await startTestApp({ outbox: { polling: false } });
    try {
      const realm = await freshRealm(guarded);
      const setup = await codeFlowSetup(guarded.admin, realm, { client: { backchannel_logout_uri: receiver.url } });
      await signIn(guarded, realm, setup.clientId, { username: setup.username, password: setup.password });
      const before = receiver.received.length;
      await guarded.admin.request('DELETE', `/realms/${realm}/users/${setup.username}/sessions`);
      expect(await guarded.outbox.tick()).toBe(1);
      expect(receiver.received.length).toBe(before);
      const row = await guarded.store.db.query<{ last_failure: string; pending: boolean }>(
        'SELECT last_failure, delivered_at IS NULL AS pending FROM outbox WHERE realm = $1',
        [realm],
      );
      expect(row.rows).toEqual([{ last_failure: 'refused_address', pending: true }]);
    } finally {
      await guarded.close();
    }
  });

  it('refuses a logout URI that is not https (http only on loopback) or has a fragment', async () => {
    const realm = await freshRealm(t);
    for (const uri of ['http://logout.example/bc', 'https://app.example/bc#frag', 'javascript:alert(1)', 'not a uri']) {
      const response = await t.admin.request('POST', `/realms/${realm}/clients`, { redirect_uris: [REDIRECT_URI], backchannel_logout_uri: uri });
      expect(response.statusCode, uri).toBe(400);
    }
  });
});
