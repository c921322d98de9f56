import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';

/**
 * `/admin/realms/{realm}/identity-providers` (CONTRACT.md §10): the client secret is
 * write-only (stored encrypted, never answered), an alias is unique in its realm, PATCH
 * merges, and the changes are audit events.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.admin.createRealm('acme');
});

afterAll(async () => {
  await t?.close();
});

const SECRET = 'the-upstream-secret-0123456789';
const CORP = { alias: 'corp', kind: 'oidc', issuer: 'https://login.corp.example', client_id: 'realmgate', client_secret: SECRET };
const path = (suffix = '') => `/realms/acme/identity-providers${suffix}`;

const storedSecret = async (alias: string) =>
  (await t.store.db.query<{ client_secret: Uint8Array; record: object }>('SELECT client_secret, record FROM identity_providers WHERE realm = $1 AND alias = $2', ['acme', alias])).rows[0]!;

describe('an identity provider', () => {
  it('is created with its defaults, and the answer never holds the secret', async () => {
    const created = await t.admin.request('POST', path(), CORP);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({
      alias: 'corp',
      kind: 'oidc',
      issuer: 'https://login.corp.example',
      client_id: 'realmgate',
      scope: 'openid email profile',
      username_claim: 'preferred_username',
      link_by_verified_email: false,
      redirect_uri: 'https://auth.test/oauth2/acme/broker/corp/callback',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.body).not.toContain(SECRET);
  });

  it('keeps the secret encrypted at rest', async () => {
    const row = await storedSecret('corp');
    expect(Buffer.from(row.client_secret).toString('utf8')).not.toContain(SECRET);
    expect(Buffer.from(row.client_secret).length).toBeGreaterThan(SECRET.length);
    expect(JSON.stringify(row.record)).not.toContain(SECRET);
  });

  it('is listed and read, without the secret', async () => {
    const list = await t.admin.request('GET', path());
    expect(list.statusCode).toBe(200);
    expect((list.json() as Array<{ alias: string }>).map((provider) => provider.alias)).toEqual(['corp']);
    const read = await t.admin.request('GET', path('/corp'));
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('client_secret');
    expect(list.body + read.body).not.toContain(SECRET);
  });

  it('is a conflict when its alias is taken in the realm', async () => {
    const again = await t.admin.request('POST', path(), { ...CORP, issuer: 'https://other.example' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', error_description: expect.any(String) });
  });

  it('changes by PATCH only in the fields sent; a new secret replaces the stored one, unseen', async () => {
    const before = await storedSecret('corp');
    const named = await t.admin.request('PATCH', path('/corp'), { display_name: 'Corp account', link_by_verified_email: true });
    expect(named.statusCode, named.body).toBe(200);
    expect(named.json()).toMatchObject({ display_name: 'Corp account', link_by_verified_email: true, issuer: CORP.issuer, scope: 'openid email profile' });
    expect(Buffer.compare(Buffer.from((await storedSecret('corp')).client_secret), Buffer.from(before.client_secret))).toBe(0);

    const rotated = await t.admin.request('PATCH', path('/corp'), { client_secret: 'a-new-secret-9876543210', display_name: null });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json()).not.toHaveProperty('display_name');
    expect(rotated.body).not.toContain('a-new-secret');
    expect(Buffer.compare(Buffer.from((await storedSecret('corp')).client_secret), Buffer.from(before.client_secret))).not.toBe(0);
  });

  it('is 404 when unknown, to GET, PATCH and DELETE', async () => {
    expect((await t.admin.request('GET', path('/nobody'))).statusCode).toBe(404);
    expect((await t.admin.request('PATCH', path('/nobody'), { display_name: 'x' })).statusCode).toBe(404);
    expect((await t.admin.request('DELETE', path('/nobody'))).statusCode).toBe(404);
    expect((await t.admin.request('GET', '/realms/no-such-realm/identity-providers')).statusCode).toBe(404);
  });

  it.each([
    ['an http issuer off loopback', { ...CORP, alias: 'x', issuer: 'http://login.corp.example' }, /issuer/],
    ['an issuer with a query', { ...CORP, alias: 'x', issuer: 'https://login.corp.example/?a=b' }, /issuer/],
    ['a scope without openid', { ...CORP, alias: 'x', scope: 'email profile' }, /scope/],
    ['another kind', { ...CORP, alias: 'x', kind: 'saml' }, /kind/],
    ['an alias that is no path segment', { ...CORP, alias: 'Corp/1' }, /alias/],
    ['no secret', { ...CORP, alias: 'x', client_secret: undefined }, /client_secret/],
    ['an unknown field', { ...CORP, alias: 'x', secret: 'y' }, /secret/],
  ])('refuses %s with 400', async (_name, body, problem) => {
    const refused = await t.admin.request('POST', path(), body);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(problem) });
  });

  it('refuses to change its alias or kind', async () => {
    expect((await t.admin.request('PATCH', path('/corp'), { alias: 'other' })).statusCode).toBe(400);
    expect((await t.admin.request('PATCH', path('/corp'), { kind: 'oidc' })).statusCode).toBe(400);
  });

  it('is deleted, and its changes are audit events that never hold the secret', async () => {
    expect((await t.admin.request('DELETE', path('/corp'))).statusCode).toBe(204);
    expect((await t.admin.request('GET', path('/corp'))).statusCode).toBe(404);
    const events = await t.admin.request('GET', '/realms/acme/events?limit=50');
    const types = (events.json() as { events: Array<{ type: string }> }).events.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['identity_provider.created', 'identity_provider.updated', 'identity_provider.deleted']));
    expect(events.body).not.toContain(SECRET);
  });
});
