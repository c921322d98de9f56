import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/outbox/deliverer.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type TestUser, createUser } from '../support/users.js';

const CIBA = 'urn:openid:params:grant-type:ciba';

/** CIBA ping mode (CIBA Core §10.2, CONTRACT.md §12) over HTTP, with a real receiver on 127.0.0.1. */
describe('CIBA ping mode', () => {
  /** How far the deliverer's clock is ahead of the real one. */
  let ahead = 0;
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver('/ciba/notify?tenant=a');
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], outbox: { polling: false, clock: () => Date.now() + ahead } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function setup(client: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, { ciba_poll_interval: 1 });
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const created = await t.admin.createClient(realm, {
      client_name: 'Bank',
      grant_types: [CIBA],
      scope: 'openid profile',
      backchannel_token_delivery_mode: 'ping',
      backchannel_client_notification_endpoint: receiver.url,
      ...client,
    });
    return { realm, user, client: { clientId: created.client_id, secret: created.client_secret! } as ServiceClient };
  }

  const bcAuthorize = (realm: string, client: ServiceClient, form: Record<string, string>) =>
    postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid profile', ...form }, { authorization: basic(client.clientId, client.secret) });

  const poll = (realm: string, client: ServiceClient, authReqId: string) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: CIBA, auth_req_id: authReqId }, { authorization: basic(client.clientId, client.secret) });

  function expectInvalidRequest(response: LightMyRequestResponse, because: RegExp) {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(because) });
  }

  /** The person signs in at /bc-approve and answers the one request waiting. */
  async function decide(realm: string, user: TestUser, decision: 'allow' | 'deny') {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const pageUrl = `${realmPath(realm)}/bc-approve`;
    const loginUrl = location(await browser.get(pageUrl));
    await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
    const page = await browser.get(pageUrl);
    const form = hiddenInputs(page.body.split('<section class="request">')[1]!);
    expect((await browser.post(pageUrl, { ...form, decision })).statusCode).toBe(303);
  }

  async function requested(realm: string, client: ServiceClient, user: TestUser, token: string): Promise<string> {
    const response = await bcAuthorize(realm, client, { login_hint: user.username, client_notification_token: token });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { auth_req_id: string; expires_in: number; interval: number };
    // CIBA Core §7.3: interval is given in poll and ping modes.
    expect(Object.keys(body).sort()).toEqual(['auth_req_id', 'expires_in', 'interval']);
    return body.auth_req_id;
  }

  it('on approval, POSTs {auth_req_id} with the client_notification_token as Bearer token; the client then polls once for its tokens', async () => {
    const { realm, user, client } = await setup();
    const token = `ntf-${randomBytes(16).toString('base64url')}`;
    const authReqId = await requested(realm, client, user, token);
    const before = receiver.received.length;
    // Nothing to tell before the person answers.
    expect(await t.outbox.tick()).toBe(0);

    await decide(realm, user, 'allow');
    expect(await t.outbox.tick()).toBe(1);
    const ping = receiver.received[before]!;
    expect(ping.path).toBe('/ciba/notify?tenant=a');
    expect(ping.headers.authorization).toBe(`Bearer ${token}`);
    expect(ping.headers['content-type']).toBe('application/json');
    expect(JSON.parse(ping.body)).toEqual({ auth_req_id: authReqId });

    const tokens = await poll(realm, client, authReqId);
    expect(tokens.statusCode, tokens.body).toBe(200);
    const discovery = (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
    const jwks = await t.app.inject({ method: 'GET', url: new URL(discovery.jwks_uri as string).pathname });
    const { payload } = await jwtVerify(tokens.json().id_token as string, createLocalJWKSet(jwks.json()), { issuer: issuerOf(realm), audience: client.clientId });
    expect(payload.sub).toBe(user.sub);
    // Acknowledged: never sent again; the tokens went to that one poll.
    expect(await t.outbox.tick()).toBe(0);
    expect(receiver.received.length).toBe(before + 1);
    expect((await poll(realm, client, authReqId)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('on denial, pings too; the poll that follows hears access_denied', async () => {
    const { realm, user, client } = await setup();
    const authReqId = await requested(realm, client, user, 'deny-token');
    const before = receiver.received.length;
    await decide(realm, user, 'deny');
    expect(await t.outbox.tick()).toBe(1);
    expect(receiver.received[before]!.headers.authorization).toBe('Bearer deny-token');
    expect(JSON.parse(receiver.received[before]!.body)).toEqual({ auth_req_id: authReqId });
    const denied = await poll(realm, client, authReqId);
    expect(denied.statusCode).toBe(400);
    expect(denied.json()).toMatchObject({ error: 'access_denied' });
  });

  it('keeps the secrets sealed: the outbox holds the public request id, the request neither auth_req_id nor token in clear', async () => {
    const { realm, user, client } = await setup();
    const token = `sealed-${randomBytes(12).toString('hex')}`;
    const authReqId = await requested(realm, client, user, token);
    await decide(realm, user, 'allow');
    const pending = await t.store.db.query<{ id: string; notification_sealed: Uint8Array }>(
      'SELECT id, notification_sealed FROM pending_authorizations WHERE realm = $1',
      [realm],
    );
    const sealed = Buffer.from(pending.rows[0]!.notification_sealed);
    expect(sealed.includes(Buffer.from(token))).toBe(false);
    expect(sealed.includes(Buffer.from(authReqId))).toBe(false);
    const queued = await t.store.db.query<{ payload: unknown; target: string }>("SELECT payload, target FROM outbox WHERE realm = $1 AND kind = 'ciba_ping'", [realm]);
    expect(queued.rows).toEqual([{ payload: { request: pending.rows[0]!.id }, target: receiver.url }]);
    expect(JSON.stringify(queued.rows)).not.toContain(token);
    expect(JSON.stringify(queued.rows)).not.toContain(authReqId);
    // A sealed value moved to another request does not open: that ping is given up, not sent with another's secrets.
    await t.outbox.tick();
    const other = await setup();
    await requested(other.realm, other.client, other.user, 'other-token');
    await t.store.db.query('UPDATE pending_authorizations SET notification_sealed = $1 WHERE realm = $2', [sealed, other.realm]);
    const before = receiver.received.length;
    await decide(other.realm, other.user, 'allow');
    expect(await t.outbox.tick()).toBe(1);
    expect(receiver.received.length).toBe(before);
    const given = await t.store.db.query("SELECT abandoned_at IS NOT NULL AS given_up FROM outbox WHERE realm = $1 AND kind = 'ciba_ping'", [other.realm]);
    expect(given.rows).toEqual([{ given_up: true }]);
  });

  it('a receiver that fails gets the same ping again after the backoff, and never after a 2xx', async () => {
    const { realm, user, client } = await setup();
    const authReqId = await requested(realm, client, user, 'retry-token');
    await decide(realm, user, 'allow');
    const before = receiver.received.length;
    receiver.answer = (number) => (number === before + 1 ? 503 : 204);
    try {
      expect(await t.outbox.tick()).toBe(1);
      ahead += backoffMs(1);
      expect(await t.outbox.tick()).toBe(1);
      ahead += backoffMs(2);
      expect(await t.outbox.tick()).toBe(0);
    } finally {
      receiver.answer = () => 200;
    }
    const pings = receiver.received.slice(before);
    expect(pings).toHaveLength(2);
    for (const ping of pings) {
      expect(ping.headers.authorization).toBe('Bearer retry-token');
      expect(JSON.parse(ping.body)).toEqual({ auth_req_id: authReqId });
    }
  });

  describe('client_notification_token', () => {
    it('is required of a ping client, and must be a Bearer credential of at most 1024 characters; a refused request stores nothing', async () => {
      const { realm, user, client } = await setup();
      expectInvalidRequest(await bcAuthorize(realm, client, { login_hint: user.username }), /client_notification_token is required/);
      for (const bad of ['a'.repeat(1025), 'two words', 'tök', '=x', '']) {
        expectInvalidRequest(await bcAuthorize(realm, client, { login_hint: user.username, client_notification_token: bad }), /client_notification_token/);
      }
      const rows = await t.store.db.query('SELECT 1 FROM pending_authorizations WHERE realm = $1', [realm]);
      expect(rows.rows).toHaveLength(0);
      expect((await bcAuthorize(realm, client, { login_hint: user.username, client_notification_token: 'a'.repeat(1024) })).statusCode).toBe(200);
    });

    it('of a poll client is ignored, and its answers ping no one', async () => {
      const { realm, user, client } = await setup({ backchannel_token_delivery_mode: 'poll' });
      await requested(realm, client, user, 'unused');
      const before = receiver.received.length;
      await decide(realm, user, 'allow');
      expect(await t.outbox.tick()).toBe(0);
      expect(receiver.received.length).toBe(before);
    });
  });

  describe('the client fields', () => {
    it('are validated by the admin API: ping and push need an https (or loopback http) endpoint', async () => {
      const realm = await freshRealm(t);
      const create = (record: Record<string, unknown>) => t.admin.request('POST', `/realms/${realm}/clients`, { grant_types: [CIBA], scope: 'openid', ...record });
      for (const record of [
        { backchannel_token_delivery_mode: 'ping' },
        { backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://notify.example.com/ping' },
        { backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://notify.example.com/ping#frag' },
        { backchannel_token_delivery_mode: 'push' },
        { backchannel_token_delivery_mode: 'push', backchannel_client_notification_endpoint: 'http://notify.example.com/push' },
        { backchannel_token_delivery_mode: 'long-poll' },
      ]) {
        const response = await create(record);
        expect(response.statusCode, JSON.stringify(record)).toBe(400);
      }
      const created = await create({ backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://notify.example.com/ping' });
      expect(created.statusCode).toBe(201);
      const clientId = created.json().client_id as string;
      const read = await t.admin.request('GET', `/realms/${realm}/clients/${clientId}`);
      expect(read.json()).toMatchObject({ backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://notify.example.com/ping' });
      // The endpoint cannot be cleared while the client pings.
      expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { backchannel_client_notification_endpoint: null })).statusCode).toBe(400);
      const polled = await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { backchannel_token_delivery_mode: 'poll', backchannel_client_notification_endpoint: null });
      expect(polled.statusCode, polled.body).toBe(200);
      expect(polled.json()).not.toHaveProperty('backchannel_client_notification_endpoint');
    });

    it('are registrable (RFC 7591) by the same rules, and echoed', async () => {
      const realm = await freshRealm(t, { open_registration: true, rate_limit_registration: null });
      const register = (body: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, headers: { 'content-type': 'application/json' }, payload: body });
      const refused = await register({ redirect_uris: ['https://app.example.com/cb'], backchannel_token_delivery_mode: 'ping' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/backchannel_client_notification_endpoint/) });
      const insecure = await register({ redirect_uris: ['https://app.example.com/cb'], backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://app.example.com/ping' });
      expect(insecure.statusCode).toBe(400);
      const registered = await register({
        redirect_uris: ['https://app.example.com/cb'],
        backchannel_token_delivery_mode: 'ping',
        backchannel_client_notification_endpoint: 'https://app.example.com/ping',
      });
      expect(registered.statusCode, registered.body).toBe(201);
      expect(registered.json()).toMatchObject({ backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://app.example.com/ping' });
    });

    it('travel with the realm export and import', async () => {
      const { realm, client } = await setup();
      const exported = await t.admin.request('GET', `/realms/${realm}/export`);
      expect(exported.statusCode, exported.body).toBe(200);
      const document = exported.json() as { clients: Array<Record<string, unknown>> };
      const entry = document.clients.find((c) => c.client_id === client.clientId)!;
      expect(entry).toMatchObject({ backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
      const target = await freshRealm(t);
      const imported = await t.admin.request('PUT', `/realms/${target}/import`, document);
      expect(imported.statusCode, imported.body).toBeLessThan(300);
      const read = await t.admin.request('GET', `/realms/${target}/clients/${client.clientId}`);
      expect(read.json()).toMatchObject({ backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
    });

    it('discovery lists the poll, ping and push modes', async () => {
      const discovery = (await t.app.inject({ method: 'GET', url: `${realmPath(await freshRealm(t))}/.well-known/openid-configuration` })).json();
      expect(discovery.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping', 'push']);
    });
  });
});
