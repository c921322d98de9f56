import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAdminError } from '../admin/helpers.js';
import { type TestApp, startTestApp } from '../support/app.js';
import type { ServiceClient } from '../support/oauth.js';
import { passwordGrant } from '../support/users.js';

describe('password policy (CONTRACT.md §9), as the admin API applies it', () => {
  let t: TestApp;
  let client: ServiceClient;
  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('policy');
    await t.admin.createRealm('strict', { password_min_length: 12 });
    client = await t.admin.serviceClient('policy', '', { grant_types: ['password'] });
  });
  afterAll(() => t.close());

  const create = (realm: string, username: string, password: string, claims?: Record<string, unknown>) =>
    t.admin.request('POST', `/realms/${realm}/users`, { username, password, ...(claims ? { claims } : {}) });
  const patch = (realm: string, username: string, body: Record<string, unknown>) =>
    t.admin.request('PATCH', `/realms/${realm}/users/${encodeURIComponent(username)}`, body);
  const signIn = (username: string, password: string) => passwordGrant(t.app, 'policy', client, { username, password });

  /** 400 invalid_request with exactly `{error, error_description}` and this description: nothing repeats the password. */
  function expectRefused(response: LightMyRequestResponse, description: string): void {
    expectAdminError(response, 400, 'invalid_request');
    expect(response.json().error_description).toBe(`password: ${description}`);
  }

  it('needs the realm\'s password_min_length in characters, 8 unless set', async () => {
    expectRefused(await create('policy', 'short', 'k2#b9!q'), 'must be at least 8 characters');
    expect((await create('policy', 'short', 'k2#b9!qz')).statusCode).toBe(201);
    expectRefused(await create('strict', 'short', 'k2#b9!qz-x4'), 'must be at least 12 characters');
    expect((await create('strict', 'short', 'k2#b9!qz-x4w')).statusCode).toBe(201);
    // Characters as a person counts them: each of these takes two UTF-16 code units.
    expectRefused(await create('policy', 'keys', '🔑'.repeat(7)), 'must be at least 8 characters');
    expect((await create('policy', 'keys', '🔑'.repeat(8))).statusCode).toBe(201);
  });

  it('follows a change of password_min_length at once', async () => {
    await t.admin.createRealm('lenient');
    expectRefused(await create('lenient', 'pin', 'k9#w'), 'must be at least 8 characters');
    expect((await t.admin.request('PATCH', '/realms/lenient', { settings: { password_min_length: 4 } })).statusCode).toBe(200);
    expect((await create('lenient', 'pin', 'k9#w')).statusCode).toBe(201);
  });

  it.each(['password', 'Password1', 'QWERTY123', 'iloveyou', 'Monkey123', '123456789', 'P@ssw0rd', 'dragon1!', 'trustno1', 'letmein!', 'Liverpool1', 'zaq12wsx'])(
    'refuses the common password %s whatever its case, and stores nothing',
    async (common) => {
      expectRefused(await create('policy', 'commoner', common), 'is one of the most common passwords: choose another');
      expectAdminError(await t.admin.request('GET', '/realms/policy/users/commoner'), 404, 'not_found');
    },
  );

  it('refuses the username or the email address as the password, whatever their case', async () => {
    expectRefused(await create('policy', 'margaret.h', 'MARGARET.H'), 'must not be the username');
    const email = { email: 'meg.hamilton@example.com' };
    expectRefused(await create('policy', 'margaret.h', 'Meg.Hamilton@Example.com', email), 'must not be the email address');
    expect((await create('policy', 'margaret.h', 'meg.hamilton@example.org', email)).statusCode).toBe(201);
  });

  it('checks a new password of PATCH the same way, and a refused one changes nothing', async () => {
    expect((await create('policy', 'nora', 'first-k2#b9!qz', { email: 'nora@example.com' })).statusCode).toBe(201);
    expectRefused(await patch('policy', 'nora', { password: 'sunshine' }), 'is one of the most common passwords: choose another');
    expectRefused(await patch('policy', 'nora', { password: 'short' }), 'must be at least 8 characters');
    expectRefused(await patch('policy', 'nora', { password: 'Nora@Example.com' }), 'must not be the email address');
    // The email address the person will have counts: the one sent with the password, or none once removed.
    const withEmail = await patch('policy', 'nora', { password: 'nora@example.net', claims: { email: 'nora@example.net' } });
    expectRefused(withEmail, 'must not be the email address');
    expect((await t.admin.request('GET', '/realms/policy/users/nora')).json().claims).toEqual({ email: 'nora@example.com' });
    expect((await signIn('nora', 'first-k2#b9!qz')).statusCode).toBe(200);

    const changed = await patch('policy', 'nora', { password: 'nora@example.com', claims: { email: null } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await signIn('nora', 'first-k2#b9!qz')).statusCode).toBe(400);
    expect((await signIn('nora', 'nora@example.com')).statusCode).toBe(200);
  });

  it('refuses the username as a new password in PATCH, however the path spells it', async () => {
    expect((await create('policy', 'theodora', 'theodora-k2#b9!qz')).statusCode).toBe(201);
    expectRefused(await patch('policy', 'THEODORA', { password: 'Theodora' }), 'must not be the username');
  });

  it('answers an unknown person 404 before judging the password', async () => {
    expectAdminError(await patch('policy', 'nobody', { password: 'password' }), 404, 'not_found');
  });
});
