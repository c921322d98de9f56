import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { expectAdminError } from './helpers.js';

/** The admin API's authentication and the request-level errors every admin call shares (CONTRACT.md §5). */
describe('admin API: authentication and request errors', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: string,
  ): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const realmNames = async (): Promise<string[]> =>
    ((await t.admin.request('GET', '/realms')).json() as Array<{ name: string }>).map((realm) => realm.name);

  describe('admin token', () => {
    it('answers a call without Authorization with 401 invalid_token and a Bearer challenge', async () => {
      const response = await call('GET', '/admin/realms', {});
      expectAdminError(response, 401, 'invalid_token');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer( |$)/);
    });

    it('answers a wrong token with 401 invalid_token and a Bearer challenge', async () => {
      const response = await call('GET', '/admin/realms', bearer('not-the-admin-token'));
      expectAdminError(response, 401, 'invalid_token');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
    });

    it('refuses a token that only starts or ends with the admin token', async () => {
      expectAdminError(await call('GET', '/admin/realms', bearer(`${ADMIN_TOKEN}x`)), 401, 'invalid_token');
      expectAdminError(await call('GET', '/admin/realms', bearer(ADMIN_TOKEN.slice(0, -1))), 401, 'invalid_token');
      expectAdminError(await call('GET', '/admin/realms', bearer(`${ADMIN_TOKEN} ${ADMIN_TOKEN}`)), 401, 'invalid_token');
    });

    it('refuses the admin token presented with another scheme than Bearer', async () => {
      const basic = `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`;
      expectAdminError(await call('GET', '/admin/realms', { authorization: basic }), 401, 'invalid_token');
      expectAdminError(await call('GET', '/admin/realms', { authorization: `Token ${ADMIN_TOKEN}` }), 401, 'invalid_token');
      expectAdminError(await call('GET', '/admin/realms', { authorization: ADMIN_TOKEN }), 401, 'invalid_token');
      expectAdminError(await call('GET', '/admin/realms', { authorization: 'Bearer' }), 401, 'invalid_token');
    });

    it('accepts the admin token as a Bearer token', async () => {
      const response = await call('GET', '/admin/realms', bearer(ADMIN_TOKEN));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'root' })]));
    });

    it('accepts the Bearer scheme in any case (RFC 7235 §2.1)', async () => {
      const response = await call('GET', '/admin/realms', { authorization: `bearer ${ADMIN_TOKEN}` });
      expect(response.statusCode).toBe(200);
    });

    it('checks the token before anything else: an unknown realm or a bad body without a token is 401', async () => {
      expectAdminError(await call('GET', '/admin/realms/nowhere/clients', {}), 401, 'invalid_token');
      expectAdminError(await call('DELETE', '/admin/realms/root/clients/anything', bearer('wrong')), 401, 'invalid_token');
      expectAdminError(
        await call('POST', '/admin/realms', { 'content-type': 'application/json' }, '{not json'),
        401,
        'invalid_token',
      );
    });

    it('changes nothing for an unauthenticated call', async () => {
      const create = await call('POST', '/admin/realms', { 'content-type': 'application/json', ...bearer('wrong') }, '{"name":"sneaky"}');
      expectAdminError(create, 401, 'invalid_token');
      const remove = await call('DELETE', '/admin/realms/root/scopes/profile', {});
      expectAdminError(remove, 401, 'invalid_token');

      expect(await realmNames()).not.toContain('sneaky');
      expect((await t.admin.request('GET', '/realms/sneaky')).statusCode).toBe(404);
    });
  });

  describe('request bodies', () => {
    const authorized = (contentType: string) => ({ 'content-type': contentType, ...bearer(ADMIN_TOKEN) });

    it('answers malformed JSON with 400 invalid_request and creates nothing', async () => {
      const response = await call('POST', '/admin/realms', authorized('application/json'), '{"name": "broken",');
      expectAdminError(response, 400, 'invalid_request');
      expect(await realmNames()).not.toContain('broken');
    });

    it('answers an empty JSON body with 400 invalid_request', async () => {
      expectAdminError(await call('POST', '/admin/realms', authorized('application/json'), ''), 400, 'invalid_request');
    });

    it('answers JSON that is not an object with 400 invalid_request', async () => {
      for (const payload of ['[]', '"alpha"', '42', 'null']) {
        expectAdminError(await call('POST', '/admin/realms', authorized('application/json'), payload), 400, 'invalid_request');
      }
    });

    it('answers a non-JSON content type with 415 in the same JSON error shape, and creates nothing', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await call('POST', '/admin/realms', authorized(contentType), 'name=formrealm');
        expectAdminError(response, 415, 'invalid_request');
      }
      expect(await realmNames()).not.toContain('formrealm');
    });

    it('accepts JSON with a charset parameter', async () => {
      const response = await call('POST', '/admin/realms', authorized('application/json; charset=utf-8'), '{"name":"charset"}');
      expect(response.statusCode).toBe(201);
    });

    it('answers an unknown admin path with 404 not_found in the same shape', async () => {
      expectAdminError(await t.admin.request('GET', '/nothing-here'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', '/realms/root/nothing-here'), 404, 'not_found');
    });
  });
});
