import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { expectAdminError, sha256 } from './helpers.js';

const DAY = 86_400;

describe('admin API: initial access tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
  });
  afterAll(() => t.close());

  const issue = (body?: unknown, realm = 'alpha') => t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, body);

  async function storedRow(token: string) {
    const result = await t.store.db.query<{ realm: string; lifetime: number; used_at: Date | null }>(
      `SELECT realm, round(extract(epoch FROM expires_at - created_at))::int AS lifetime, used_at
         FROM initial_access_tokens WHERE token_hash = $1`,
      [sha256(token)],
    );
    return result.rows[0];
  }

  it('issues a 256-bit token valid a day by default, shown once and stored as SHA-256', async () => {
    const response = await issue();
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json() as { token: string; expires_in: number };
    expect(body).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: DAY });
    expect(Buffer.from(body.token, 'base64url')).toHaveLength(32);
    expect(await storedRow(body.token)).toEqual({ realm: 'alpha', lifetime: DAY, used_at: null });

    // Nothing but the hash is kept.
    const dump = await t.store.db.query<{ row: string }>(`SELECT row_to_json(i)::text AS row FROM initial_access_tokens i`);
    expect(dump.rows.map((row) => row.row).join('\n')).not.toContain(body.token);
  });

  it('takes expires_in in whole seconds, up to 30 days', async () => {
    for (const seconds of [1, 60, 30 * DAY]) {
      const response = await issue({ expires_in: seconds });
      expect(response.statusCode).toBe(201);
      expect(response.json().expires_in).toBe(seconds);
      expect((await storedRow(response.json().token))?.lifetime).toBe(seconds);
    }
  });

  it('gives a different token each time', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) tokens.add((await issue()).json().token);
    expect(tokens.size).toBe(5);
  });

  it('refuses a lifetime that is not a positive whole number of seconds within 30 days, and unknown fields', async () => {
    for (const body of [
      { expires_in: 0 },
      { expires_in: -60 },
      { expires_in: 1.5 },
      { expires_in: '60' },
      { expires_in: null },
      { expires_in: 30 * DAY + 1 },
      { expires_in: 1e308 },
      { expires_in: 60, uses: 10 },
      [60],
    ]) {
      expectAdminError(await issue(body), 400, 'invalid_request');
    }
  });

  it('keeps the grant_types and scope that widen the registration policy, each scope once', async () => {
    const response = await issue({ grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'], scope: 'orders:read orders:read orders:write' });
    expect(response.statusCode, response.body).toBe(201);
    const stored = await t.store.db.query<{ allowance: unknown }>('SELECT allowance FROM initial_access_tokens WHERE token_hash = $1', [sha256(response.json().token)]);
    expect(stored.rows[0]?.allowance).toEqual({ grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'], scope: 'orders:read orders:write' });
    const plain = await issue({ grant_types: [], scope: '' });
    const none = await t.store.db.query<{ allowance: unknown }>('SELECT allowance FROM initial_access_tokens WHERE token_hash = $1', [sha256(plain.json().token)]);
    expect(none.rows[0]?.allowance).toBeNull();
  });

  it('refuses grant_types and scope that are not grant types and scope names', async () => {
    for (const body of [
      { grant_types: ['implicit'] },
      { grant_types: ['client_credentials', 'client_credentials'] },
      { grant_types: 'client_credentials' },
      { grant_types: [null] },
      { scope: ['orders:read'] },
      { scope: 'orders:read  orders:write' },
      { scope: 'a"b' },
      { scope: 'x'.repeat(4001) },
    ]) {
      expectAdminError(await issue(body), 400, 'invalid_request');
    }
  });

  it('answers 404 for an unknown realm and 401 without the admin token', async () => {
    expectAdminError(await issue({}, 'nowhere'), 404, 'not_found');
    const anonymous = await t.app.inject({ method: 'POST', url: '/admin/realms/alpha/initial-access-tokens', payload: {} });
    expectAdminError(anonymous, 401, 'invalid_token');
  });
});
