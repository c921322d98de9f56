import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { basic, postForm } from '../support/oauth.js';

/** PostgreSQL cannot store a NUL character; wherever one arrives, the request is malformed, not a fault. */
describe('input holding a NUL character', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
  });
  afterAll(() => t.close());

  const expectMalformed = (response: { statusCode: number; json(): unknown }) => {
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  };

  it('is invalid_request in a path: realm, client, user, scope', async () => {
    expectMalformed(await t.app.inject({ method: 'GET', url: '/oauth2/a%00b/.well-known/openid-configuration' }));
    for (const path of ['/realms/a%00b', '/realms/alpha/users/a%00b', '/realms/alpha/clients/a%00b', '/realms/alpha/scopes/a%00b']) {
      expectMalformed(await t.admin.request('GET', path));
    }
  });

  it('is invalid_request in client credentials, in the body or the Basic header', async () => {
    const url = '/oauth2/alpha/access_token';
    expectMalformed(await postForm(t.app, url, { grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' }));
    expectMalformed(await postForm(t.app, url, { grant_type: 'client_credentials', client_id: 'a\u0000b' }));
    expectMalformed(await postForm(t.app, url, { grant_type: 'client_credentials' }, { authorization: basic('a\u0000b', 'x') }));
  });

  it('is invalid_request in an admin body, and nothing is written', async () => {
    expectMalformed(await t.admin.request('POST', '/realms/alpha/users', { username: 'bob', password: 'long enough', claims: { name: 'a\u0000b' } }));
    expect((await t.admin.request('GET', '/realms/alpha/users/bob')).statusCode).toBe(404);
    expectMalformed(await t.admin.request('PUT', '/realms/alpha/scopes/notes', { description: 'a\u0000b' }));
    expect((await t.admin.request('GET', '/realms/alpha/scopes/notes')).statusCode).toBe(404);
    const before = (await t.admin.request('GET', '/realms/alpha/clients')).json() as unknown[];
    expectMalformed(await t.admin.request('POST', '/realms/alpha/clients', { grant_types: ['client_credentials'], client_name: 'a\u0000b' }));
    expect((await t.admin.request('GET', '/realms/alpha/clients')).json()).toHaveLength(before.length);
  });
});
