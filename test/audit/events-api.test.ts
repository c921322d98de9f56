import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { createUser, type TestUser } from '../support/users.js';
import { ISO_TIMESTAMP, expectAdminError } from '../admin/helpers.js';
import { type EventView, eventsOf, eventsUrl, requestEvents, unlimitedRealm } from './support.js';

/**
 * GET /admin/realms/{realm}/events: the realm's audit events, newest first, filtered and paged.
 * The events here come from admin calls, which record themselves.
 */
describe('the audit events API', () => {
  let t: TestApp;
  let realm: string;
  let clientA: string;
  let clientB: string;
  let alice: TestUser;
  /** Every event of the realm, newest first, as one page. */
  let all: EventView[];

  beforeAll(async () => {
    t = await startTestApp();
    realm = await unlimitedRealm(t);
    clientA = (await t.admin.createClient(realm, { grant_types: ['client_credentials'] })).client_id;
    clientB = (await t.admin.createClient(realm, { grant_types: ['client_credentials'] })).client_id;
    for (const name of ['A one', 'A two']) await t.admin.request('PATCH', `/realms/${realm}/clients/${clientA}`, { client_name: name });
    await t.admin.request('POST', `/realms/${realm}/clients/${clientB}/secret`);
    alice = await createUser(t.admin, realm, 'alice');
    await t.admin.request('PATCH', `/realms/${realm}/users/alice`, { claims: { email: 'alice@example.com' } });
    await createUser(t.admin, realm, 'bob');
    all = (await eventsOf(t.admin, realm, { limit: '1000' })).events;
  });
  afterAll(async () => {
    await t?.close();
  });

  const typesIn = (events: EventView[]) => events.map((event) => event.type);
  const idsIn = (events: EventView[]) => events.map((event) => event.id);

  it('answers every event of the realm, newest first, in its documented shape', async () => {
    expect(typesIn(all).reverse()).toEqual([
      'realm.created',
      'client.created',
      'client.created',
      'client.updated',
      'client.updated',
      'client.secret_rotated',
      'user.created',
      'user.updated',
      'user.created',
    ]);
    for (const event of all) {
      // All are admin changes, which name their actor (CONTRACT.md §14).
      expect(Object.keys(event).sort()).toEqual(['actor', 'address', 'client_id', 'details', 'id', 'occurred_at', 'realm', 'type', 'user_id']);
      expect(event.actor).toEqual({ admin_token: true });
      expect(event).toMatchObject({ id: expect.stringMatching(/^\d+$/), occurred_at: expect.stringMatching(ISO_TIMESTAMP), realm, address: '127.0.0.1' });
    }
    const times = all.map((event) => Date.parse(event.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all.find((event) => event.type === 'user.created')).toMatchObject({ user_id: expect.any(String), client_id: null });
  });

  it('keeps each realm to its own events', async () => {
    const other = await unlimitedRealm(t);
    await t.admin.createClient(other, { grant_types: ['client_credentials'] });
    const page = await eventsOf(t.admin, other);
    expect(typesIn(page.events)).toEqual(['client.created', 'realm.created']);
    expect(page.events.every((event) => event.realm === other)).toBe(true);
    expect((await eventsOf(t.admin, realm, { limit: '1000' })).events).toEqual(all);
  });

  describe('filters', () => {
    it('by one type, by repeated types and by comma-separated types', async () => {
      expect(typesIn((await eventsOf(t.admin, realm, { type: 'client.created' })).events)).toEqual(['client.created', 'client.created']);
      const repeated = await eventsOf(t.admin, realm, { type: ['client.updated', 'user.created'] });
      const commas = await eventsOf(t.admin, realm, { type: 'client.updated, user.created' });
      expect(typesIn(repeated.events).sort()).toEqual(['client.updated', 'client.updated', 'user.created', 'user.created']);
      expect(commas).toEqual(repeated);
    });

    it('by client', async () => {
      const page = await eventsOf(t.admin, realm, { client_id: clientA });
      expect(typesIn(page.events)).toEqual(['client.updated', 'client.updated', 'client.created']);
      expect(page.events.every((event) => event.client_id === clientA)).toBe(true);
      expect((await eventsOf(t.admin, realm, { client_id: 'nobody' })).events).toEqual([]);
    });

    it('by person, as user_id or username', async () => {
      const byId = await eventsOf(t.admin, realm, { user_id: alice.sub });
      expect(typesIn(byId.events)).toEqual(['user.updated', 'user.created']);
      expect(await eventsOf(t.admin, realm, { username: 'alice' })).toEqual(byId);
      expect(await eventsOf(t.admin, realm, { username: 'alice', user_id: alice.sub })).toEqual(byId);
      // An unknown person, or two filters naming two people, match nothing.
      expect(await eventsOf(t.admin, realm, { username: 'nobody' })).toEqual({ events: [], next: null });
      expect(await eventsOf(t.admin, realm, { username: 'bob', user_id: alice.sub })).toEqual({ events: [], next: null });
    });

    it('by time: since inclusive, until exclusive, with any offset', async () => {
      const middle = all[Math.floor(all.length / 2)]!;
      const at = Date.parse(middle.occurred_at);
      const since = await eventsOf(t.admin, realm, { since: middle.occurred_at, limit: '1000' });
      expect(idsIn(since.events)).toEqual(idsIn(all.filter((event) => Date.parse(event.occurred_at) >= at)));
      expect(idsIn(since.events)).toContain(middle.id);
      const until = await eventsOf(t.admin, realm, { until: middle.occurred_at, limit: '1000' });
      expect(idsIn(until.events)).toEqual(idsIn(all.filter((event) => Date.parse(event.occurred_at) < at)));
      expect(idsIn(until.events)).not.toContain(middle.id);

      // The same instant written in another offset.
      const shifted = new Date(at + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      expect(await eventsOf(t.admin, realm, { since: shifted, limit: '1000' })).toEqual(since);
      const future = new Date(Date.now() + 3600_000).toISOString();
      expect((await eventsOf(t.admin, realm, { since: future })).events).toEqual([]);
      expect((await eventsOf(t.admin, realm, { since: '2000-01-01T00:00:00Z', until: future, limit: '1000' })).events).toEqual(all);
    });

    it('combined: every filter given must hold', async () => {
      const first = all.at(-1)!; // realm.created
      const page = await eventsOf(t.admin, realm, {
        type: ['client.updated', 'client.created'],
        client_id: clientA,
        since: first.occurred_at,
        until: new Date(Date.now() + 60_000).toISOString(),
      });
      expect(typesIn(page.events)).toEqual(['client.updated', 'client.updated', 'client.created']);
      expect((await eventsOf(t.admin, realm, { type: 'client.secret_rotated', client_id: clientA })).events).toEqual([]);
      const rotated = await eventsOf(t.admin, realm, { type: 'client.secret_rotated', client_id: clientB });
      expect(rotated.events).toHaveLength(1);
      expect((await eventsOf(t.admin, realm, { type: 'user.updated', username: 'bob' })).events).toEqual([]);
    });
  });

  describe('pages', () => {
    it('answers `limit` events and the cursor of the next page, until the last page', async () => {
      const seen: EventView[] = [];
      let page = await eventsOf(t.admin, realm, { limit: '2' });
      let pages = 1;
      while (page.next !== null) {
        expect(page.events).toHaveLength(2);
        seen.push(...page.events);
        page = await eventsOf(t.admin, realm, { limit: '2', before: page.next });
        pages++;
      }
      seen.push(...page.events);
      expect(pages).toBe(Math.ceil(all.length / 2));
      expect(idsIn(seen)).toEqual(idsIn(all));
    });

    it('pages a filtered answer with its filters', async () => {
      const first = await eventsOf(t.admin, realm, { type: 'client.updated,client.created', limit: '3' });
      expect(first.events).toHaveLength(3);
      expect(first.next).not.toBeNull();
      const second = await eventsOf(t.admin, realm, { type: 'client.updated,client.created', limit: '3', before: first.next! });
      expect(typesIn(second.events)).toEqual(['client.created']);
      expect(second.next).toBeNull();
    });

    it('answers 100 events unless asked for more, up to 1000', async () => {
      const busy = await unlimitedRealm(t);
      for (let i = 0; i < 110; i++) await t.admin.putScope(busy, `scope-${i}`);
      const page = await eventsOf(t.admin, busy);
      expect(page.events).toHaveLength(100);
      expect(page.events[0]!.details).toEqual({ scope: 'scope-109' });
      expect(page.next).not.toBeNull();
      const rest = await eventsOf(t.admin, busy, { before: page.next! });
      expect(rest.events).toHaveLength(11); // 10 scopes and the realm's creation
      expect(rest.next).toBeNull();
      expect((await eventsOf(t.admin, busy, { limit: '1000' })).events).toHaveLength(111);
    });
  });

  describe('refusals', () => {
    it.each([
      ['an unknown type', { type: 'token.stolen' }, /type/],
      ['an empty type', { type: ',' }, /type/],
      ['an unknown type among known ones', { type: ['token.issued', 'nope'] }, /type/],
      ['a time that is no ISO 8601 instant', { since: 'yesterday' }, /since/],
      ['a date without a time', { until: '2026-01-31' }, /until/],
      ['since after until', { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }, /since/],
      ['a limit of 0', { limit: '0' }, /limit/],
      ['a limit above 1000', { limit: '1001' }, /limit/],
      ['a limit that is no number', { limit: 'ten' }, /limit/],
      ['a cursor that no page answered', { before: 'page-2' }, /before/],
      ['a repeated client_id', { client_id: ['a', 'b'] }, /client_id/],
      ['an empty username', { username: '' }, /username/],
      ['an unknown parameter', { client: 'a' }, /client/],
    ])('%s: 400 invalid_request', async (_name, query, named) => {
      const response = await requestEvents(t.admin, realm, query);
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toMatch(named);
    });

    it('404 for an unknown realm', async () => {
      expectAdminError(await requestEvents(t.admin, 'no-such-realm'), 404, 'not_found');
    });

    it('401 without the admin token, or with another', async () => {
      const url = `/admin${eventsUrl(realm)}`;
      expectAdminError(await t.app.inject({ method: 'GET', url }), 401, 'invalid_token');
      const wrong = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } });
      expectAdminError(wrong, 401, 'invalid_token');
      const right = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(right.statusCode).toBe(200);
    });
  });
});
