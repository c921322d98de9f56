import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastEvent } from '../audit/support.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { expectAdminError } from './helpers.js';

type Json = Record<string, unknown>;

const ORDERS = 'https://orders.example.com/api';
const BILLING = 'https://billing.example.com/';

/** Registered resources through the admin API (CONTRACT.md §10): `…/resources`, keyed by the identifier. */
describe('admin API: registered resources', () => {
  let t: TestApp;
  const realm = 'acme';

  const url = (identifier?: string, inRealm = realm) => `/realms/${inRealm}/resources${identifier === undefined ? '' : `?identifier=${encodeURIComponent(identifier)}`}`;
  const put = (body: unknown, inRealm = realm) => t.admin.request('PUT', url(undefined, inRealm), body);
  const get = (identifier?: string, inRealm = realm) => t.admin.request('GET', url(identifier, inRealm));
  const rows = async (inRealm = realm) =>
    (await t.store.db.query<Json>('SELECT identifier, name, scopes, updated_at FROM resources WHERE realm = $1 ORDER BY identifier', [inRealm])).rows;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm(realm);
    await t.admin.createRealm('other');
    for (const scope of ['orders:read', 'orders:write', 'billing']) await t.admin.putScope(realm, scope);
  });
  afterAll(() => t.close());

  it('PUT registers a resource (201) and changes it (200): a field left out is kept, null clears it', async () => {
    const created = await put({ identifier: ORDERS, name: 'Orders API', scopes: ['orders:read', 'orders:write'] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ identifier: ORDERS, name: 'Orders API', scopes: ['orders:read', 'orders:write'] });

    const renamed = await put({ identifier: ORDERS, name: 'Orders' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ identifier: ORDERS, name: 'Orders', scopes: ['orders:read', 'orders:write'] });

    const cleared = await put({ identifier: ORDERS, scopes: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toEqual({ identifier: ORDERS, name: 'Orders' });
    expect((await put({ identifier: ORDERS, name: null, scopes: ['orders:read'] })).json()).toEqual({ identifier: ORDERS, scopes: ['orders:read'] });

    const bare = await put({ identifier: BILLING });
    expect(bare.statusCode).toBe(201);
    expect(bare.json()).toEqual({ identifier: BILLING });
  });

  it('GET lists the realm\'s resources by identifier, and with ?identifier= answers one, or 404', async () => {
    const list = await get();
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([{ identifier: BILLING }, { identifier: ORDERS, scopes: ['orders:read'] }]);
    const one = await get(ORDERS);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ identifier: ORDERS, scopes: ['orders:read'] });
    // Compared as written: the identifier without its trailing path is another one.
    expectAdminError(await get('https://orders.example.com/'), 404, 'not_found');
    // Each realm has its own.
    expect((await get(undefined, 'other')).json()).toEqual([]);
    expectAdminError(await get(ORDERS, 'other'), 404, 'not_found');
    expectAdminError(await get(undefined, 'no-such-realm'), 404, 'not_found');
  });

  it('refuses a bad body or query with 400 invalid_request naming the field, and writes nothing', async () => {
    const before = await rows();
    const refusals: Array<[unknown, RegExp]> = [
      [{ identifier: 'orders-api' }, /^identifier: must be an absolute URI without a fragment/],
      [{ identifier: '/api/orders' }, /^identifier: must be an absolute URI/],
      [{ identifier: `${ORDERS}#v1` }, /^identifier: must be an absolute URI without a fragment/],
      [{ identifier: 'https://orders.example.com/a b' }, /^identifier: /],
      [{ identifier: `https://orders.example.com/${'a'.repeat(2100)}` }, /^identifier: /],
      [{ name: 'No identifier' }, /^identifier: /],
      [{ identifier: ORDERS, name: '' }, /^name: /],
      [{ identifier: ORDERS, name: 'Line\nbreak' }, /^name: must hold no control characters/],
      [{ identifier: ORDERS, scopes: 'orders:read' }, /^scopes: /],
      [{ identifier: ORDERS, scopes: ['orders:read', 'orders:read'] }, /^scopes: names a scope twice/],
      [{ identifier: ORDERS, scopes: ['not a scope'] }, /^scopes\.0: /],
      [{ identifier: ORDERS, colour: 'blue' }, /colour/],
      [{ identifier: ORDERS, scopes: ['orders:read', 'payroll'] }, /^scopes: no such scope in the realm: payroll$/],
      [{ identifier: 'https://new.example.com/', scopes: ['payroll'] }, /^scopes: no such scope in the realm: payroll$/],
    ];
    for (const [body, description] of refusals) {
      const response = await put(body);
      expectAdminError(response, 400, 'invalid_request');
      expect((response.json() as Json).error_description, JSON.stringify(body)).toMatch(description);
    }
    expectAdminError(await t.admin.request('GET', `/realms/${realm}/resources?identifier=not-a-uri`), 400, 'invalid_request');
    expectAdminError(await t.admin.request('GET', `/realms/${realm}/resources?name=x`), 400, 'invalid_request');
    expectAdminError(await t.admin.request('GET', `/realms/${realm}/resources?identifier=${encodeURIComponent(ORDERS)}&identifier=${encodeURIComponent(BILLING)}`), 400, 'invalid_request');
    expectAdminError(await t.admin.request('DELETE', `/realms/${realm}/resources`), 400, 'invalid_request');
    expect(await rows()).toEqual(before);
  });

  it('refuses to delete a scope that a resource lists (409), until the resource no longer lists it', async () => {
    expectAdminError(await t.admin.request('DELETE', `/realms/${realm}/scopes/orders:read`), 409, 'conflict');
    expect((await put({ identifier: ORDERS, scopes: ['orders:write'] })).statusCode).toBe(200);
    expect((await t.admin.request('DELETE', `/realms/${realm}/scopes/orders:read`)).statusCode).toBe(204);
  });

  it('DELETE ?identifier= deletes the resource (204), then 404', async () => {
    const deleted = await t.admin.request('DELETE', url(BILLING));
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectAdminError(await t.admin.request('DELETE', url(BILLING)), 404, 'not_found');
    expectAdminError(await get(BILLING), 404, 'not_found');
    expect((await get()).json()).toEqual([{ identifier: ORDERS, scopes: ['orders:write'] }]);
  });

  it('records resource.saved and resource.deleted with the identifier and the fields sent', async () => {
    const identifier = 'urn:example:audited';
    expect((await put({ identifier, name: 'Audited' })).statusCode).toBe(201);
    expect((await lastEvent(t.admin, realm, 'resource.saved')).details).toEqual({ identifier, fields: ['name'] });
    expect((await t.admin.request('DELETE', url(identifier))).statusCode).toBe(204);
    expect((await lastEvent(t.admin, realm, 'resource.deleted')).details).toEqual({ identifier });
  });

  it('goes with its realm: deleting the realm deletes its resources', async () => {
    await t.admin.createRealm('short-lived');
    expect((await put({ identifier: ORDERS }, 'short-lived')).statusCode).toBe(201);
    expect((await t.admin.request('DELETE', '/realms/short-lived')).statusCode).toBe(204);
    expect(await rows('short-lived')).toEqual([]);
  });
});
