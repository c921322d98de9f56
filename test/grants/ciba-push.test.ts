import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/outbox/deliverer.js';
import { AdminClient, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { issuerOf } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type TestUser, createUser, verifyIdToken } from '../support/users.js';

const CIBA = 'urn:openid:params:grant-type:ciba';

/** OIDC Core §3.1.3.6 / CIBA Core §10.3.1: the left half of the token's SHA-256, base64url. */
const halfHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

interface Pushed {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  error?: string;
  auth_req_id: string;
}

/** A realm, a person and a push-mode client of app `app`, notified at `receiver`. */
async function pushSetup(app: FastifyInstance, receiver: Receiver, client: Record<string, unknown> = {}) {
  const admin = new AdminClient(app);
  const realm = `r-${randomBytes(5).toString('hex')}`;
  await admin.createRealm(realm, { ciba_poll_interval: 1 });
  const user = await createUser(admin, realm, `u-${randomBytes(4).toString('hex')}`);
  const created = await admin.createClient(realm, {
    client_name: 'Bank',
    grant_types: [CIBA, 'refresh_token'],
    scope: 'openid profile',
    backchannel_token_delivery_mode: 'push',
    backchannel_client_notification_endpoint: receiver.url,
    ...client,
  });
  return { realm, user, client: { clientId: created.client_id, secret: created.client_secret! } as ServiceClient };
}

function bcAuthorize(app: FastifyInstance, realm: string, client: ServiceClient, form: Record<string, string>) {
  return postForm(app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid profile', ...form }, { authorization: basic(client.clientId, client.secret) });
}

async function requested(app: FastifyInstance, realm: string, client: ServiceClient, user: TestUser, token: string): Promise<string> {
  const response = await bcAuthorize(app, realm, client, { login_hint: user.username, client_notification_token: token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { auth_req_id: string };
  // CIBA Core §7.3: no interval for a client that never polls.
  expect(Object.keys(body).sort()).toEqual(['auth_req_id', 'expires_in']);
  return body.auth_req_id;
}

/** The person signs in at /bc-approve (of app `app`) and answers the one request waiting. */
async function decide(app: FastifyInstance, realm: string, user: TestUser, decision: 'allow' | 'deny') {
  const browser = new TestBrowser(app, BASE_URL);
  const pageUrl = `${realmPath(realm)}/bc-approve`;
  const loginUrl = location(await browser.get(pageUrl));
  await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
  const page = await browser.get(pageUrl);
  const form = hiddenInputs(page.body.split('<section class="request">')[1]!);
  expect((await browser.post(pageUrl, { ...form, decision })).statusCode).toBe(303);
}

/** CIBA push mode (CIBA Core §10.3, CONTRACT.md §12) over HTTP, with a real receiver on 127.0.0.1. */
describe('CIBA push mode', () => {
  /** How far the deliverer's clock is ahead of the real one. */
  let ahead = 0;
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver('/ciba/push');
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], outbox: { polling: false, clock: () => Date.now() + ahead } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const poll = (realm: string, client: ServiceClient, authReqId: string) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: CIBA, auth_req_id: authReqId }, { authorization: basic(client.clientId, client.secret) });

  it('on approval, POSTs the token response with auth_req_id and the Bearer client_notification_token; the tokens work, the ID token names the request', async () => {
    const { realm, user, client } = await pushSetup(t.app, receiver);
    const token = `push-${randomBytes(16).toString('base64url')}`;
    const authReqId = await requested(t.app, realm, client, user, token);
    const before = receiver.received.length;
    // Its entry waits for the answer (or the expiry): nothing is due yet.
    expect(await t.outbox.tick()).toBe(0);

    await decide(t.app, realm, user, 'allow');
    expect(await t.outbox.tick()).toBe(1);
    const push = receiver.received[before]!;
    expect(push.path).toBe('/ciba/push');
    expect(push.headers.authorization).toBe(`Bearer ${token}`);
    expect(push.headers['content-type']).toBe('application/json');
    const body = JSON.parse(push.body) as Pushed;
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      refresh_token: expect.any(String),
      id_token: expect.any(String),
      scope: 'openid profile',
      auth_req_id: authReqId,
    });

    const { payload } = await verifyIdToken(t.app, realm, body.id_token!, { issuer: issuerOf(realm), audience: client.clientId });
    expect(payload.sub).toBe(user.sub);
    expect(payload['urn:openid:params:jwt:claim:auth_req_id']).toBe(authReqId);
    expect(payload.at_hash).toBe(halfHash(body.access_token!));
    expect(payload['urn:openid:params:jwt:claim:rt_hash']).toBe(halfHash(body.refresh_token!));

    const active = await introspect(t.app, realm, client, body.access_token!);
    expect(active.json()).toMatchObject({ active: true, client_id: client.clientId, sub: user.sub });
    const refreshed = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: body.refresh_token! }, { authorization: basic(client.clientId, client.secret) });
    expect(refreshed.statusCode, refreshed.body).toBe(200);

    // CIBA Core §10.3: a push client does not poll; its auth_req_id gets nothing at the token endpoint.
    const polled = await poll(realm, client, authReqId);
    expect(polled.statusCode).toBe(400);
    expect(polled.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/push/) });
    // Acknowledged: never sent again.
    expect(await t.outbox.tick()).toBe(0);
    expect(receiver.received.length).toBe(before + 1);
  });

  it('a poll before the answer is refused too, and changes nothing: the push still carries the tokens', async () => {
    const { realm, user, client } = await pushSetup(t.app, receiver);
    const authReqId = await requested(t.app, realm, client, user, 'early');
    expect((await poll(realm, client, authReqId)).json()).toMatchObject({ error: 'invalid_grant' });
    await decide(t.app, realm, user, 'allow');
    expect((await poll(realm, client, authReqId)).json()).toMatchObject({ error: 'invalid_grant' });
    const before = receiver.received.length;
    expect(await t.outbox.tick()).toBe(1);
    expect(JSON.parse(receiver.received[before]!.body)).toMatchObject({ access_token: expect.any(String), auth_req_id: authReqId });
  });

  it('on denial, POSTs access_denied with auth_req_id, and no tokens', async () => {
    const { realm, user, client } = await pushSetup(t.app, receiver);
    const authReqId = await requested(t.app, realm, client, user, 'deny-token');
    const before = receiver.received.length;
    await decide(t.app, realm, user, 'deny');
    expect(await t.outbox.tick()).toBe(1);
    expect(receiver.received[before]!.headers.authorization).toBe('Bearer deny-token');
    expect(JSON.parse(receiver.received[before]!.body)).toEqual({ error: 'access_denied', error_description: expect.any(String), auth_req_id: authReqId });
    const tokens = await t.store.db.query("SELECT 1 FROM tokens WHERE realm = $1 AND kind = 'access_token'", [realm]);
    expect(tokens.rows).toHaveLength(0);
  });

  it('at expiry without an answer, POSTs expired_token with auth_req_id', async () => {
    const { realm, user, client } = await pushSetup(t.app, receiver);
    const authReqId = await requested(t.app, realm, client, user, 'late-token');
    const before = receiver.received.length;
    await t.store.db.query("UPDATE pending_authorizations SET expires_at = now() - interval '1 second' WHERE realm = $1", [realm]);
    ahead += 700_000; // past the request's expiry (ciba_lifetime 600 s), as the outbox's clock sees it
    try {
      expect(await t.outbox.tick()).toBeGreaterThanOrEqual(1);
    } finally {
      ahead -= 700_000;
    }
    const told = receiver.received.slice(before).map((entry) => JSON.parse(entry.body) as Pushed);
    expect(told).toEqual([{ error: 'expired_token', error_description: expect.any(String), auth_req_id: authReqId }]);
  });

  it('a receiver that answers 500 gets the same token response again after the backoff (minted once), and never after a 2xx', async () => {
    const { realm, user, client } = await pushSetup(t.app, receiver);
    const authReqId = await requested(t.app, realm, client, user, 'retry-token');
    await decide(t.app, realm, user, 'allow');
    const before = receiver.received.length;
    receiver.answer = (number) => (number === before + 1 ? 500 : 204);
    try {
      expect(await t.outbox.tick()).toBe(1);
      expect(await t.outbox.tick()).toBe(0); // not before the backoff
      ahead += backoffMs(1);
      expect(await t.outbox.tick()).toBe(1);
      ahead += backoffMs(2);
      expect(await t.outbox.tick()).toBe(0);
    } finally {
      receiver.answer = () => 200;
    }
    const pushes = receiver.received.slice(before);
    expect(pushes).toHaveLength(2);
    expect(pushes[1]!.body).toBe(pushes[0]!.body);
    expect(pushes[1]!.headers.authorization).toBe('Bearer retry-token');
    expect((JSON.parse(pushes[0]!.body) as Pushed).auth_req_id).toBe(authReqId);
    const minted = await t.store.db.query("SELECT 1 FROM tokens WHERE realm = $1 AND kind = 'access_token'", [realm]);
    expect(minted.rows).toHaveLength(1);
  });

  it('keeps the token response sealed at rest: neither the request row nor the outbox holds a token in clear', async () => {
    const { realm, user, client } = await pushSetup(t.app, receiver);
    const authReqId = await requested(t.app, realm, client, user, 'sealed-token');
    await decide(t.app, realm, user, 'allow');
    const before = receiver.received.length;
    receiver.answer = () => 503;
    try {
      expect(await t.outbox.tick()).toBe(1);
    } finally {
      receiver.answer = () => 200;
    }
    const body = JSON.parse(receiver.received[before]!.body) as Pushed;
    const row = await t.store.db.query<{ push_response_sealed: Uint8Array }>('SELECT push_response_sealed FROM pending_authorizations WHERE realm = $1', [realm]);
    const sealed = Buffer.from(row.rows[0]!.push_response_sealed);
    for (const secret of [body.access_token!, body.refresh_token!, body.id_token!, authReqId]) expect(sealed.includes(Buffer.from(secret))).toBe(false);
    const queued = await t.store.db.query("SELECT payload::text AS payload, last_failure FROM outbox WHERE realm = $1 AND kind = 'ciba_push'", [realm]);
    expect(queued.rows).toHaveLength(1);
    expect(JSON.stringify(queued.rows)).not.toContain(body.access_token!);
    expect(JSON.stringify(queued.rows)).not.toContain(authReqId);
  });

  describe('the client fields', () => {
    it('client_notification_token is required of a push client; a refused request stores nothing', async () => {
      const { realm, user, client } = await pushSetup(t.app, receiver);
      const refused = await bcAuthorize(t.app, realm, client, { login_hint: user.username });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/client_notification_token is required.*push/) });
      const bad = await bcAuthorize(t.app, realm, client, { login_hint: user.username, client_notification_token: 'two words' });
      expect(bad.statusCode).toBe(400);
      const rows = await t.store.db.query('SELECT 1 FROM pending_authorizations WHERE realm = $1', [realm]);
      expect(rows.rows).toHaveLength(0);
      const queued = await t.store.db.query('SELECT 1 FROM outbox WHERE realm = $1', [realm]);
      expect(queued.rows).toHaveLength(0);
    });

    it('are registrable (RFC 7591): push needs an https (or loopback http) notification endpoint; echoed, exported and imported', async () => {
      const admin = new AdminClient(t.app);
      const realm = `r-${randomBytes(5).toString('hex')}`;
      await admin.createRealm(realm, { open_registration: true, rate_limit_registration: null });
      const register = (body: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, headers: { 'content-type': 'application/json' }, payload: body });
      const base = { redirect_uris: ['https://app.example.com/cb'], backchannel_token_delivery_mode: 'push' };
      const missing = await register(base);
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/backchannel_client_notification_endpoint/) });
      expect((await register({ ...base, backchannel_client_notification_endpoint: 'http://app.example.com/push' })).statusCode).toBe(400);
      const registered = await register({ ...base, backchannel_client_notification_endpoint: 'https://app.example.com/push' });
      expect(registered.statusCode, registered.body).toBe(201);
      expect(registered.json()).toMatchObject({ backchannel_token_delivery_mode: 'push', backchannel_client_notification_endpoint: 'https://app.example.com/push' });

      const exported = (await admin.request('GET', `/realms/${realm}/export`)).json() as { clients: Array<Record<string, unknown>> };
      const clientId = registered.json().client_id as string;
      expect(exported.clients.find((c) => c.client_id === clientId)).toMatchObject({ backchannel_token_delivery_mode: 'push' });
      const target = `r-${randomBytes(5).toString('hex')}`;
      await admin.createRealm(target);
      expect((await admin.request('PUT', `/realms/${target}/import`, exported)).statusCode).toBeLessThan(300);
      expect((await admin.request('GET', `/realms/${target}/clients/${clientId}`)).json()).toMatchObject({
        backchannel_token_delivery_mode: 'push',
        backchannel_client_notification_endpoint: 'https://app.example.com/push',
      });
    });
  });
});

describe('CIBA push mode on two instances', () => {
  it('two instances delivering at once mint once and push once', async () => {
    const receiver = await startReceiver('/ciba/push');
    const instances = await startTwoInstances({ outboundAllow: ['127.0.0.1'] });
    try {
      const { a, b } = instances;
      const { realm, user, client } = await pushSetup(a, receiver);
      const authReqId = await requested(a, realm, client, user, 'twice');
      await decide(b, realm, user, 'allow');
      const ticks = await Promise.all([instances.services.a.outbox.tick(), instances.services.b.outbox.tick()]);
      expect(ticks.sort()).toEqual([0, 1]);
      expect(receiver.received).toHaveLength(1);
      const body = JSON.parse(receiver.received[0]!.body) as Pushed;
      expect(body.auth_req_id).toBe(authReqId);
      // The token minted on one instance is known to the other.
      const active = await introspect(a, realm, client, body.access_token!);
      expect(active.json()).toMatchObject({ active: true });
      expect(await instances.services.a.outbox.tick()).toBe(0);
      expect(await instances.services.b.outbox.tick()).toBe(0);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await instances.close();
      await receiver.close();
    }
  }, 120_000);
});
