import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditTrail } from '../../src/audit/audit-trail.js';
import { createLogger } from '../../src/logger.js';
import { deleteExpired } from '../../src/store/cleanup.js';
import { ADMIN_TOKEN, AdminClient, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { clientCredentials, revoke } from '../support/oauth.js';
import { createUser, passwordGrant, passwordTokens } from '../support/users.js';
import { eventsOf, typesOf, unlimitedRealm } from './support.js';

interface AuditLine {
  level: number;
  msg: string;
  audit?: Record<string, unknown>;
}

describe('audit events in the log', () => {
  const output: string[] = [];
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ logger: createLogger('info', { write: (line: string) => void output.push(line) }) });
  });
  afterAll(async () => {
    await t?.close();
  });

  const auditLines = (): AuditLine[] =>
    output.map((line) => JSON.parse(line) as AuditLine).filter((line) => line.audit !== undefined && typeof line.audit === 'object');

  it('writes one structured line per event, at once, with no secret anywhere in the log', async () => {
    const realm = await unlimitedRealm(t);
    const created = await t.admin.createClient(realm, { grant_types: ['password', 'client_credentials', 'refresh_token'], scope: 'openid' });
    const client = { clientId: created.client_id, secret: created.client_secret as string };
    const person = await createUser(t.admin, realm, 'carol', { password: 'carol-password-1234' });
    const wrong = await passwordGrant(t.app, realm, client, { username: 'carol', password: 'carol-typo-password' });
    expect(wrong.statusCode).toBe(400);
    const tokens = await passwordTokens(t.app, realm, client, person, 'openid');
    await revoke(t.app, realm, client, tokens.refresh_token!);
    const service = (await clientCredentials(t.app, realm, client)).json().access_token as string;

    const lines = auditLines().filter((line) => line.audit!.realm === realm);
    // One line for each stored event, in the order they happened: events are ordered by their
    // time (to the millisecond), and the events of one millisecond (here a sign-in and the token
    // it led to) in no defined order, since their rows are written by different statements.
    const stored = (await eventsOf(t.admin, realm, { limit: '1000' })).events.reverse();
    expect(lines.map((line) => line.audit!.type)).toHaveLength(stored.length);
    let position = 0;
    for (const time of [...new Set(stored.map((event) => event.occurred_at))]) {
      const sameTime = stored.filter((event) => event.occurred_at === time).map((event) => event.type);
      const logged = lines.slice(position, position + sameTime.length).map((line) => line.audit!.type as string);
      expect(logged.sort(), `the events of ${time}`).toEqual(sameTime.sort());
      position += sameTime.length;
    }
    for (const line of lines) {
      expect(line.level).toBe(30); // info
      expect(line.msg).toBe(`audit ${line.audit!.type}`);
    }
    const failed = lines.find((line) => line.audit!.type === 'sign_in.failed')!;
    expect(failed.audit).toEqual({
      type: 'sign_in.failed',
      realm,
      client_id: client.clientId,
      address: '127.0.0.1',
      via: 'password_grant',
      step: 'password',
      username: 'carol',
      reason: 'wrong_credentials',
    });
    const revoked = lines.find((line) => line.audit!.type === 'token.revoked')!;
    expect(revoked.audit).toMatchObject({ client_id: client.clientId, user_id: person.sub, token_kind: 'refresh_token', grant_revoked: true });

    const log = output.join('');
    const secrets = [ADMIN_TOKEN, client.secret, 'carol-password-1234', 'carol-typo-password', tokens.access_token, tokens.refresh_token!, service];
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});

describe('audit event retention', () => {
  let t: TestApp & { clock: TestClock };

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Seconds between each stored event of the realm and its expiry, oldest first. */
  async function lifetimesOf(realm: string): Promise<number[]> {
    await eventsOf(t.admin, realm); // the rows this instance recorded are stored before it answers
    const rows = await t.store.db.query<{ seconds: number }>(
      'SELECT extract(epoch FROM expires_at - occurred_at)::int AS seconds FROM audit_events WHERE realm = $1 ORDER BY id',
      [realm],
    );
    return rows.rows.map((row) => row.seconds);
  }

  it("keeps events for the realm's audit_event_lifetime, 90 days unless set, as it is when each event happens", async () => {
    const defaults = await unlimitedRealm(t);
    expect(await lifetimesOf(defaults)).toEqual([90 * 24 * 3600]);

    const realm = await unlimitedRealm(t, { audit_event_lifetime: 3600 });
    await t.admin.putScope(realm, 'before');
    await t.admin.request('PATCH', `/realms/${realm}`, { settings: { audit_event_lifetime: 7200 } });
    await t.admin.putScope(realm, 'after');
    const lifetimes = await lifetimesOf(realm);
    expect(lifetimes.slice(0, 2)).toEqual([3600, 3600]);
    expect(lifetimes.at(-1)).toBe(7200);
  });

  it('leaves expired events out of the API, and the cleanup deletes them', async () => {
    const kept = await unlimitedRealm(t);
    const realm = await unlimitedRealm(t, { audit_event_lifetime: 1 });
    await t.admin.putScope(realm, 'short-lived');
    expect(await typesOf(t.admin, realm)).toEqual(['realm.created', 'scope.saved']);
    await t.clock.advance(1100);

    expect((await eventsOf(t.admin, realm)).events).toEqual([]);
    const count = async (name: string) =>
      (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events WHERE realm = $1', [name])).rows[0]!.n;
    expect(await count(realm)).toBe(2);
    const deleted = await deleteExpired(t.store.db, { batchSize: 500, pauseMs: 0 });
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect(await count(realm)).toBe(0);
    expect(await count(kept)).toBe(1);
    expect(await typesOf(t.admin, kept)).toEqual(['realm.created']);
  });
});

describe('audit events at a graceful stop', () => {
  it('are all stored before the instance closes', async () => {
    const instances = await startTwoInstances();
    try {
      const a = new AdminClient(instances.a);
      const b = new AdminClient(instances.b);
      const realm = await unlimitedRealm({ admin: b });
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => b.request('PUT', `/realms/${realm}/scopes/s${i}`, { description: 'd' })));
      expect(answers.every((answer) => answer.statusCode === 201)).toBe(true);
      await instances.b.close();
      const page = await eventsOf(a, realm, { limit: '1000' });
      expect(page.events.filter((event) => event.type === 'scope.saved')).toHaveLength(40);
    } finally {
      await instances.close();
    }
  });
});

describe('the audit trail when the database fails it', () => {
  const logger = () => {
    const lines: Array<{ level: string; fields: unknown; msg?: string }> = [];
    const at = (level: string) => (fields: unknown, msg?: string) => void lines.push({ level, fields, msg });
    return { lines, logger: { info: at('info'), warn: at('warn') } as never };
  };
  const realms = { get: async () => undefined };

  it('logs a row it could not store, and never throws to the request', async () => {
    const { lines, logger: log } = logger();
    const trail = new AuditTrail({ events: { append: () => Promise.reject(new Error('database down')) }, realms, logger: log });
    expect(() => trail.record({ realm: 'r', type: 'client.created', clientId: 'c' })).not.toThrow();
    await trail.flush();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ['info', 'audit client.created'],
      ['warn', 'audit event not stored'],
    ]);
  });

  it('drops rows beyond what may wait for the database, but not their log lines', async () => {
    const { lines, logger: log } = logger();
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const stored: string[] = [];
    const events = { append: async (event: { clientId: string | undefined }) => (await blocked, void stored.push(event.clientId!)) };
    const trail = new AuditTrail({ events, realms, logger: log, maxPending: 3 });
    for (let i = 0; i < 5; i++) trail.record({ realm: 'r', type: 'client.created', clientId: `c${i}` });
    release();
    await trail.flush();
    expect(stored).toEqual(['c0', 'c1', 'c2']);
    expect(lines.filter((line) => line.msg === 'audit client.created')).toHaveLength(5);
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
  });

  it("stores the rows but writes no line when the logger's level is above info", async () => {
    const stored: string[] = [];
    const events = { append: async (event: { type: string }) => void stored.push(event.type) };
    for (const [level, lines] of [['warn', 0], ['info', 1], ['debug', 1]] as const) {
      const { lines: written, logger: log } = logger();
      const trail = new AuditTrail({ events, realms, logger: Object.assign(log as object, { level }) as never });
      trail.record({ realm: 'r', type: 'client.created', clientId: 'c' });
      const prepared = trail.prepare({ realm: 'r', type: 'token.issued', clientId: 'c' }, 60);
      prepared.committed();
      await trail.flush();
      expect(written, level).toHaveLength(2 * lines);
      expect(prepared.row).toMatchObject({ realm: 'r', type: 'token.issued', clientId: 'c' });
    }
    expect(stored).toEqual(['client.created', 'client.created', 'client.created']);
  });

  it('censors secret-named details and makes text storable', async () => {
    const stored: Array<Record<string, unknown>> = [];
    const trail = new AuditTrail({
      events: { append: async (event) => void stored.push(event.details as Record<string, unknown>) },
      realms,
      logger: logger().logger,
    });
    trail.record({ realm: 'r', type: 'sign_in.failed', details: { username: `a\u0000b\ud800${'x'.repeat(600)}`, password: 'p', nested: { client_secret: 's' } } });
    await trail.flush();
    expect(stored[0]).toEqual({ username: `a\ufffdb\ufffd${'x'.repeat(508)}…`, password: '[redacted]', nested: { client_secret: '[redacted]' } });
  });
});
