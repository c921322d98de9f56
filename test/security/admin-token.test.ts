import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { accessToken } from '../support/oauth.js';
import { type Route, routeTable, securityRealm } from './support.js';

/** A value for each path parameter of the admin routes: what a call names does not matter before the token is checked. */
const PARAMETERS: Record<string, string> = {
  realm: 'root',
  client_id: 'some-client',
  username: 'alice',
  name: 'openid',
  id: '00000000-0000-4000-8000-000000000000',
  journey: 'default',
  alias: 'upstream',
  role: 'auditor',
  group: 'staff',
  passkey: '00000000-0000-4000-8000-000000000000',
  webhook: 'audit-sink',
  locale: 'de',
};

function concrete(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const value = PARAMETERS[name];
    if (value === undefined) throw new Error(`no value for the path parameter ${name} of ${path}: add one`);
    return value;
  });
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * The admin API answers only its token (CONTRACT.md §5): every route under /admin, read from
 * the route table (so that a route added later is covered), answers 401 `invalid_token` with a
 * Bearer challenge to a call without the token, with a wrong one, with the token in a Basic
 * header, a query or a cookie, and with tokens of other kinds that the server issues; and
 * such a call changes nothing.
 */
describe('the admin API answers only with its token', () => {
  let t: TestApp;
  let routes: Route[];
  const presented: Array<[string, Record<string, string>, string?]> = [];

  beforeAll(async () => {
    t = await startTestApp();
    const realm = await securityRealm(t, { open_registration: false });
    const service = await t.admin.serviceClient(realm, 'api');
    const access = await accessToken(t.app, realm, service, 'api');
    const initial = (await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, { grant_types: ['client_credentials'] })).json() as { token: string };
    const registered = await t.app.inject({
      method: 'POST',
      url: `/oauth2/${realm}/connect/register`,
      headers: { authorization: `Bearer ${initial.token}` },
      payload: { grant_types: ['client_credentials'] },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const { registration_access_token: registrationToken } = registered.json() as { registration_access_token: string };
    const storedHash = createHash('sha256').update(ADMIN_TOKEN).digest('base64url');

    presented.push(
      ['no Authorization header', {}],
      ['an empty Authorization header', { authorization: '' }],
      ['Bearer without a token', { authorization: 'Bearer ' }],
      ['a wrong token', { authorization: 'Bearer not-the-admin-token' }],
      ['the token with a character changed', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}${ADMIN_TOKEN.endsWith('x') ? 'y' : 'x'}` }],
      ['a prefix of the token', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
      ['the token and more', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
      ['the token then another word', { authorization: `Bearer ${ADMIN_TOKEN} ${ADMIN_TOKEN}` }],
      ['the token in upper case', { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` }],
      ['the token as a Basic password', { authorization: basic('admin', ADMIN_TOKEN) }],
      ['the token as a Basic user', { authorization: basic(ADMIN_TOKEN, '') }],
      ['the token under the Basic scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
      ['the token under another scheme', { authorization: `Token ${ADMIN_TOKEN}` }],
      ['the token without a scheme', { authorization: ADMIN_TOKEN }],
      ['the token in a cookie', { cookie: `admin_token=${ADMIN_TOKEN}; token=${ADMIN_TOKEN}` }],
      ['the token in the query', {}, `access_token=${ADMIN_TOKEN}&token=${ADMIN_TOKEN}`],
      ['the token in another header', { 'x-admin-token': ADMIN_TOKEN, 'x-api-key': ADMIN_TOKEN }],
      ['the SHA-256 of the token, as the database keeps a generated one', { authorization: `Bearer ${storedHash}` }],
      ["a realm's access token", { authorization: `Bearer ${access}` }],
      ["a client's secret", { authorization: `Bearer ${service.secret}` }],
      ['an initial access token', { authorization: `Bearer ${initial.token}` }],
      ['a registration access token', { authorization: `Bearer ${registrationToken}` }],
    );
    // The admin console's page and files hold no data and must load before it asks for the token:
    // they are served without it (test/admin/console.test.ts checks they are only those files).
    routes = routeTable(t.app).filter(({ path }) => (path === '/admin' || path.startsWith('/admin/')) && !/^\/admin\/console(\/|$)/.test(path));
  });
  afterAll(async () => {
    await t?.close();
  });

  function call(method: string, path: string, headers: Record<string, string>, search?: string): Promise<LightMyRequestResponse> {
    const body = ['POST', 'PUT', 'PATCH'].includes(method) ? { payload: { name: 'made-by-nobody', username: 'nobody', password: 'x', settings: {} } } : {};
    return t.app.inject({
      method: method as 'GET',
      url: `${concrete(path)}${search ? `?${search}` : ''}`,
      headers: { ...(body.payload ? { 'content-type': 'application/json' } : {}), ...headers },
      ...body,
    });
  }

  it('reads the admin routes from the route table: realms and everything below them', () => {
    const paths = routes.map(({ path }) => path);
    for (const expected of ['/admin/realms', '/admin/realms/:realm', '/admin/realms/:realm/clients/:client_id/secret', '/admin/realms/:realm/users/:username/totp', '/admin/realms/:realm/keys/rotate', '/admin/realms/:realm/initial-access-tokens']) {
      expect(paths).toContain(expected);
    }
    expect(routes.flatMap(({ methods }) => methods).length).toBeGreaterThanOrEqual(30);
  });

  it('answers every method of every admin route with 401 invalid_token and a Bearer challenge, however the token is missing or wrong', async () => {
    let calls = 0;
    for (const { path, methods } of routes) {
      for (const method of methods) {
        for (const [what, headers, search] of presented) {
          const response = await call(method, path, headers, search);
          const where = `${method} ${path} with ${what}`;
          calls++;
          expect(response.statusCode, `${where}: ${response.body}`).toBe(401);
          expect(String(response.headers['www-authenticate']), where).toMatch(/^Bearer realm="admin"/);
          if (method !== 'HEAD') {
            expect(response.json(), where).toMatchObject({ error: 'invalid_token', error_description: expect.any(String) });
            expect(response.body, where).not.toContain(ADMIN_TOKEN);
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(500);
  });

  it('changed nothing for the refused calls: no realm, user or client was made, deleted or changed', async () => {
    const realms = (await t.admin.request('GET', '/realms')).json() as Array<{ name: string }> | { realms: Array<{ name: string }> };
    const names = (Array.isArray(realms) ? realms : realms.realms).map((realm) => realm.name);
    expect(names).toContain('root');
    expect(names).not.toContain('made-by-nobody');
    expect((await t.admin.request('GET', '/realms/root/users/nobody')).statusCode).toBe(404);
    expect((await t.admin.request('GET', '/realms/root/scopes/openid')).statusCode).toBe(200);
    expect((await t.admin.request('GET', '/realms/root/clients/some-client')).statusCode).toBe(404);
  });

  it('answers every admin route with the token (so the calls above were refused for the token alone)', async () => {
    for (const { path, methods } of routes) {
      for (const method of methods.filter((m) => m === 'GET' || m === 'HEAD')) {
        const response = await call(method, path, { authorization: `Bearer ${ADMIN_TOKEN}` });
        expect(response.statusCode, `${method} ${path}`).not.toBe(401);
      }
    }
  });
});
