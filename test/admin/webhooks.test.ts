import { spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, freePort, startTestApp, startTwoInstances } from '../support/app.js';
import { readDoc } from '../docs/support.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { ADMIN_TOKEN } from '../support/app.js';
import { expectAdminError } from './helpers.js';

/**
 * Webhooks for audit events (CONTRACT.md §16): kept without their secret, refused at PUT for a
 * URL the outbound guard refuses, each matching event POSTed through the outbox signed
 * `t=…,v1=HMAC-SHA256("<t>.<body>")` (checked here as a receiver would), retried after a 500,
 * never sent again after a 2xx, and sent once by two instances.
 */

const SECRET = 'whsec-0123456789abcdef-receiver';

/** What a receiver does: recompute the HMAC, compare in constant time, refuse a stale timestamp. */
function verifySignature(header: string | undefined, body: string, secret: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1!, 'hex'));
}

describe('webhooks', () => {
  let t: TestApp;
  let receiver: Receiver;
  let ahead = 0;
  let realmNumber = 0;
  let realm: string;

  beforeAll(async () => {
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], outbox: { polling: false, clock: () => Date.now() + ahead } });
  }, 180_000);
  afterAll(() => t?.close());
  beforeEach(async () => {
    ahead = 0;
    receiver = await startReceiver('/hooks/realmgate');
    realm = `hooks-${++realmNumber}`;
    await t.admin.createRealm(realm);
  });
  afterEach(() => receiver.close());

  const put = (body: Record<string, unknown>, name = 'siem', app = t.app) =>
    app.inject({ method: 'PUT', url: `/admin/realms/${realm}/webhooks/${name}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body });
  /** Every due delivery tried once, after the audit rows written so far are stored. */
  const deliver = async () => {
    await t.audit.flush();
    return t.outbox.tick();
  };

  it('is created, read, listed, replaced and deleted; its secret is never answered', async () => {
    const created = await put({ url: receiver.url, events: ['user.created'], secret: SECRET });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ name: 'siem', url: receiver.url, events: ['user.created'], created_at: expect.any(String), updated_at: expect.any(String) });
    expect(created.headers['cache-control']).toBe('no-store');
    const replaced = await put({ url: receiver.url, events: ['user.created', 'user.deleted'], secret: `${SECRET}-2` });
    expect(replaced.statusCode).toBe(200);
    const read = await t.admin.request('GET', `/realms/${realm}/webhooks/siem`);
    expect(read.json().events).toEqual(['user.created', 'user.deleted']);
    const listed = await t.admin.request('GET', `/realms/${realm}/webhooks`);
    expect(listed.json().webhooks.map((hook: { name: string }) => hook.name)).toEqual(['siem']);
    for (const body of [created.body, replaced.body, read.body, listed.body]) expect(body).not.toContain(SECRET);
    const stored = await t.store.webhooks.get(realm, 'siem');
    expect(stored!.secretSealed.toString('latin1')).not.toContain(SECRET);
    const saved = (await t.admin.request('GET', `/realms/${realm}/events?type=webhook.saved`)).body;
    expect(saved).not.toContain(SECRET);
    expect(saved).not.toContain('/hooks/realmgate');

    expect((await t.admin.request('DELETE', `/realms/${realm}/webhooks/siem`)).statusCode).toBe(204);
    expectAdminError(await t.admin.request('GET', `/realms/${realm}/webhooks/siem`), 404, 'not_found');
    expectAdminError(await t.admin.request('DELETE', `/realms/${realm}/webhooks/siem`), 404, 'not_found');
  });

  it('refuses unknown event types, a short secret, a bad name, a non-https URL and an internal address, storing nothing', async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ url: receiver.url, events: ['sign_in.won'], secret: SECRET }, 'events'],
      [{ url: receiver.url, events: [], secret: SECRET }, 'events'],
      [{ url: receiver.url, events: ['user.created'], secret: 'short' }, 'secret'],
      [{ url: receiver.url, events: ['user.created'] }, 'secret'],
      [{ url: 'http://hooks.example.com/x', events: ['user.created'], secret: SECRET }, 'url'],
      [{ url: 'https://10.1.2.3/x', events: ['user.created'], secret: SECRET }, 'url'],
      [{ url: 'https://[::1]/x', events: ['user.created'], secret: SECRET }, 'url'],
      [{ url: 'https://metadata.internal/x', events: ['user.created'], secret: SECRET }, 'url'],
      [{ url: receiver.url, events: ['user.created'], secret: SECRET, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of refusals) {
      const response = await put(body);
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description, JSON.stringify(body)).toContain(field);
      expect(response.body).not.toContain(SECRET);
    }
    expectAdminError(await put({ url: receiver.url, events: ['user.created'], secret: SECRET }, '-bad'), 400, 'invalid_request');
    expect((await t.admin.request('GET', `/realms/${realm}/webhooks`)).json().webhooks).toEqual([]);
  });

  it('refuses a loopback URL where OUTBOUND_ALLOW does not list it', async () => {
    const guarded = await startTestApp();
    try {
      await guarded.admin.createRealm(realm);
      const response = await put({ url: receiver.url, events: ['user.created'], secret: SECRET }, 'siem', guarded.app);
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toContain('internal address');
    } finally {
      await guarded.close();
    }
  }, 180_000);

  it('POSTs each matching event, signed so that a receiver can check it, and only matching ones', async () => {
    expect((await put({ url: receiver.url, events: ['user.created'], secret: SECRET })).statusCode).toBe(201);
    await t.admin.createClient(realm, { grant_types: ['client_credentials'] }); // client.created: not wanted
    const user = (await t.admin.request('POST', `/realms/${realm}/users`, { username: 'alice', password: 'a long passphrase of hers' })).json();
    expect(await deliver()).toBe(1);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.path).toBe('/hooks/realmgate');
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(verifySignature(delivery!.headers['realmgate-signature'] as string, delivery!.body, SECRET)).toBe(true);
    expect(verifySignature(delivery!.headers['realmgate-signature'] as string, delivery!.body, 'another secret of sixteen')).toBe(false);
    expect(verifySignature(delivery!.headers['realmgate-signature'] as string, delivery!.body.replace('alice', 'mallory'), SECRET)).toBe(false);
    const event = JSON.parse(delivery!.body);
    expect(event).toMatchObject({ type: 'user.created', realm, user_id: user.sub, details: { username: 'alice' }, actor: { admin_token: true } });
    expect(event.id).toEqual(expect.any(String));
    expect(await deliver()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('retries after a 500 with backoff, and never sends again after a 2xx', async () => {
    receiver.answer = (n) => (n === 1 ? 500 : 200);
    await put({ url: receiver.url, events: ['user.created'], secret: SECRET });
    await t.admin.request('POST', `/realms/${realm}/users`, { username: 'bob', password: 'a long passphrase of his' });
    expect(await deliver()).toBe(1);
    expect(await deliver(), 'not due again before its backoff').toBe(0);
    ahead = 6_000;
    expect(await deliver()).toBe(1);
    const [first, second] = await receiver.waitFor(2);
    expect(JSON.parse(second!.body).id).toBe(JSON.parse(first!.body).id);
    expect(verifySignature(second!.headers['realmgate-signature'] as string, second!.body, SECRET, 3600)).toBe(true);
    ahead = 2 * 60 * 60_000;
    expect(await deliver()).toBe(0);
    expect(receiver.received).toHaveLength(2);
  });

  it('is checked by the receiver of docs/webhooks.md, which refuses a forged delivery', async () => {
    const code = /```js\n([\s\S]*?)```/.exec(readDoc('docs/webhooks.md'))![1]!;
    const dir = await mkdtemp(join(tmpdir(), 'webhook-receiver-'));
    await writeFile(join(dir, 'receiver.mjs'), code);
    const port = await freePort();
    const child = spawn(process.execPath, [join(dir, 'receiver.mjs')], { env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: String(port) } });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const until = async (text: string) => {
      for (let waited = 0; !output.includes(text); waited += 50) {
        if (waited > 10_000) throw new Error(`the receiver did not print ${text}: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await until('listening');
      const url = `http://127.0.0.1:${port}/hook`;
      const forged = await fetch(url, { method: 'POST', headers: { 'realmgate-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }, body: '{"type":"user.created"}' });
      expect(forged.status).toBe(401);
      await put({ url, events: ['user.created'], secret: SECRET });
      await t.admin.request('POST', `/realms/${realm}/users`, { username: 'dora', password: 'a long passphrase of hers' });
      expect(await deliver()).toBe(1);
      await until('verified user.created');
      expect(await deliver(), 'the 204 settled it').toBe(0);
    } finally {
      child.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sends the deliveries still owed to a webhook to its new URL once it is replaced', async () => {
    receiver.answer = () => 503;
    await put({ url: receiver.url, events: ['user.created'], secret: SECRET });
    await t.admin.request('POST', `/realms/${realm}/users`, { username: 'erik', password: 'a long passphrase of his' });
    expect(await deliver()).toBe(1);
    const moved = await startReceiver('/moved');
    try {
      const secret = `${SECRET}-rotated`;
      expect((await put({ url: moved.url, events: ['user.created'], secret })).statusCode).toBe(200);
      ahead = 6_000;
      expect(await deliver()).toBe(1);
      const [delivery] = await moved.waitFor(1);
      expect(JSON.parse(delivery!.body).details.username).toBe('erik');
      expect(verifySignature(delivery!.headers['realmgate-signature'] as string, delivery!.body, secret)).toBe(true);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await moved.close();
    }
  });

  it('drops the deliveries still owed to a webhook deleted before they went', async () => {
    receiver.answer = () => 503;
    await put({ url: receiver.url, events: ['user.created'], secret: SECRET });
    await t.admin.request('POST', `/realms/${realm}/users`, { username: 'carol', password: 'a long passphrase of hers' });
    expect(await deliver()).toBe(1);
    await t.admin.request('DELETE', `/realms/${realm}/webhooks/siem`);
    ahead = 6_000;
    expect(await deliver()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('webhooks on two instances', () => {
  it('deliver each event once, whichever instance tries', async () => {
    const receiver = await startReceiver();
    const { a, b, services, close } = await startTwoInstances({ outboundAllow: ['127.0.0.1'] });
    try {
      const admin = (app: typeof a, method: 'POST' | 'PUT', url: string, payload: object) =>
        app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload });
      await admin(a, 'POST', '/realms', { name: 'pair' });
      expect((await admin(b, 'PUT', '/realms/pair/webhooks/siem', { url: receiver.url, events: ['user.created'], secret: SECRET })).statusCode).toBe(201);
      for (const name of ['ann', 'ben', 'cat', 'dan']) {
        await admin(name < 'c' ? a : b, 'POST', '/realms/pair/users', { username: name, password: 'a long passphrase of theirs' });
      }
      await Promise.all([services.a.audit.flush(), services.b.audit.flush()]);
      // Both claim at once: each entry is taken by one of them (a tick of one instance is one claim).
      const [byA, byB] = await Promise.all([services.a.outbox.tick(), services.b.outbox.tick()]);
      expect(byA + byB).toBe(4);
      await receiver.waitFor(4);
      expect(await services.a.outbox.tick()).toBe(0);
      expect(await services.b.outbox.tick()).toBe(0);
      expect(receiver.received).toHaveLength(4);
      const names = receiver.received.map((delivery) => JSON.parse(delivery.body).details.username).sort();
      expect(names).toEqual(['ann', 'ben', 'cat', 'dan']);
    } finally {
      await close();
      await receiver.close();
    }
  }, 180_000);
});
