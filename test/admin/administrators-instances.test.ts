import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { Invalidations } from '../support/invalidations.js';
import { type ServiceClient, basic, postForm, revoke } from '../support/oauth.js';
import { testStoreKind } from '../support/store.js';

/**
 * Admin tokens are judged in the database at each call (CONTRACT.md §14): a disable or a
 * revocation made through one instance refuses the token at the next call on the other, with no
 * delay (nothing about a token is cached); a role taken from a person or a client, likewise. A
 * call with a token costs one statement more than one with ADMIN_TOKEN, reads and changes alike
 * (measured with warm caches: GET /admin/realms/{realm}/clients 1 and 2, GET /admin/realms/{realm}
 * 0 and 1, GET /admin/realms 1 and 2).
 */

const ADMIN_RESOURCE = `${BASE_URL}/admin`;

function adminCall(app: FastifyInstance, token: string, url: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' = 'GET', body?: object): Promise<LightMyRequestResponse> {
  return app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body } : {}) });
}

describe('two instances agree on an administrator\'s disable and revocation', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let client: ServiceClient;

  const personToken = async (username: string): Promise<string> => {
    const response = await postForm(
      instances.a,
      '/oauth2/access_token',
      { grant_type: 'password', username, password: `pw-${username}-0123456789`, resource: ADMIN_RESOURCE },
      { authorization: basic(client.clientId, client.secret) },
    );
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { access_token: string }).access_token;
  };

  beforeAll(async () => {
    instances = await startTwoInstances();
    const { a } = instances;
    const created = await a.inject({
      method: 'POST',
      url: '/admin/realms/root/clients',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { grant_types: ['password'] },
    });
    const body = created.json() as { client_id: string; client_secret: string };
    client = { clientId: body.client_id, secret: body.client_secret };
    expect((await adminCall(a, ADMIN_TOKEN, '/realms/root/roles/realmgate-viewer', 'PUT', {})).statusCode).toBeLessThan(300);
    for (const username of ['frank', 'grace']) {
      const user = await a.inject({
        method: 'POST',
        url: '/admin/realms/root/users',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { username, password: `pw-${username}-0123456789` },
      });
      expect(user.statusCode, user.body).toBe(201);
      expect((await adminCall(a, ADMIN_TOKEN, `/realms/root/users/${username}/roles/realmgate-viewer`, 'PUT')).statusCode).toBeLessThan(300);
    }
  });
  afterAll(async () => {
    await instances?.close();
  });

  it('a person disabled through one instance is refused at the next call on the other', async () => {
    const token = await personToken('frank');
    expect((await adminCall(instances.b, token, '/realms')).statusCode).toBe(200);
    expect((await adminCall(instances.a, ADMIN_TOKEN, '/realms/root/users/frank', 'PATCH', { enabled: false })).statusCode).toBe(200);
    expect((await adminCall(instances.b, token, '/realms')).statusCode).toBe(401);
  });

  it('a person whose role is taken through one instance is refused at the next call on the other', async () => {
    expect((await adminCall(instances.a, ADMIN_TOKEN, '/realms/root/users', 'POST', { username: 'heidi', password: 'pw-heidi-0123456789' })).statusCode).toBe(201);
    expect((await adminCall(instances.a, ADMIN_TOKEN, '/realms/root/users/heidi/roles/realmgate-viewer', 'PUT')).statusCode).toBeLessThan(300);
    const token = await personToken('heidi');
    expect((await adminCall(instances.b, token, '/realms')).statusCode).toBe(200);
    expect((await adminCall(instances.a, ADMIN_TOKEN, '/realms/root/users/heidi/roles/realmgate-viewer', 'DELETE')).statusCode).toBeLessThan(300);
    expect((await adminCall(instances.b, token, '/realms')).statusCode).toBe(401);
  });

  it('a client whose roles are taken through one instance is refused at the next call on the other', async () => {
    const created = await adminCall(instances.a, ADMIN_TOKEN, '/realms/root/clients', 'POST', { grant_types: ['client_credentials'], roles: ['realmgate-viewer'] });
    const service = created.json() as { client_id: string; client_secret: string };
    const answer = await postForm(instances.b, '/oauth2/access_token', { grant_type: 'client_credentials', resource: ADMIN_RESOURCE }, {
      authorization: basic(service.client_id, service.client_secret),
    });
    const token = (answer.json() as { access_token: string }).access_token;
    expect((await adminCall(instances.b, token, '/realms')).statusCode).toBe(200);
    expect((await adminCall(instances.a, ADMIN_TOKEN, `/realms/root/clients/${service.client_id}`, 'PATCH', { roles: [] })).statusCode).toBe(200);
    expect((await adminCall(instances.b, token, '/realms')).statusCode).toBe(401);
  });

  it('a token revoked through one instance is refused at the next call on the other', async () => {
    const token = await personToken('grace');
    expect((await adminCall(instances.a, token, '/realms')).statusCode).toBe(200);
    expect((await revoke(instances.b, 'root', client, token)).statusCode).toBe(200);
    expect((await adminCall(instances.a, token, '/realms')).statusCode).toBe(401);
  });
});

describe.skipIf(testStoreKind() !== 'postgres')('statements PostgreSQL receives per admin call', () => {
  let t: TestApp;
  let token: string;
  let personToken: string;
  let recording: string[] | undefined;
  const originalQuery = pg.Client.prototype.query;
  let invalidations: Invalidations;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('counted');
    const created = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles: ['realmgate-viewer:counted'] });
    const response = await postForm(t.app, '/oauth2/access_token', { grant_type: 'client_credentials', resource: ADMIN_RESOURCE }, {
      authorization: basic(created.client_id, created.client_secret as string),
    });
    token = (response.json() as { access_token: string }).access_token;
    // A person of root who holds realmgate-admin, signed in with the password grant: a call that
    // names a person of root also reads that person's realmgate-* roles, in the same statement.
    const passwordClient = await t.admin.createClient('root', { grant_types: ['password'] });
    await t.admin.request('PUT', '/realms/root/roles/realmgate-admin', {});
    for (const username of ['ivy', 'jack']) await t.admin.request('POST', '/realms/root/users', { username, password: `pw-${username}-0123456789` });
    await t.admin.request('PUT', '/realms/root/users/ivy/roles/realmgate-admin');
    const personAnswer = await postForm(t.app, '/oauth2/access_token', { grant_type: 'password', username: 'ivy', password: 'pw-ivy-0123456789', resource: ADMIN_RESOURCE }, {
      authorization: basic(passwordClient.client_id, passwordClient.client_secret as string),
    });
    personToken = (personAnswer.json() as { access_token: string }).access_token;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      recording?.push(typeof config === 'string' ? config : (config.text ?? String(config)));
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
    invalidations = Invalidations.watch();
  });
  afterAll(async () => {
    pg.Client.prototype.query = originalQuery;
    invalidations?.stop();
    await t?.close();
  });

  /**
   * The statements of a call made a second time, with its audit rows. The first call, once its
   * invalidations have arrived, and a read of the same URL warm the caches.
   */
  async function statementsOf(bearer: string, url: string, method: 'GET' | 'PUT' | 'PATCH' = 'GET', body?: object): Promise<string[]> {
    const warm = await adminCall(t.app, bearer, url, method, body);
    expect(warm.statusCode, warm.body).toBeLessThan(300);
    // Otherwise the warm call's own notification may land during the measured call and empty a
    // cache that call has just filled.
    await invalidations.settled(t.store.db);
    const read = await adminCall(t.app, bearer, url);
    expect(read.statusCode, read.body).toBe(200);
    await t.audit.flush();
    const statements: string[] = [];
    recording = statements;
    try {
      const response = await adminCall(t.app, bearer, url, method, body);
      expect(response.statusCode, response.body).toBeLessThan(300);
      await t.audit.flush();
      return statements;
    } finally {
      recording = undefined;
    }
  }

  it.each(['/realms/counted/clients', '/realms/counted', '/realms'])('GET %s costs one statement more with a token than with ADMIN_TOKEN', async (url) => {
    const withAdminToken = await statementsOf(ADMIN_TOKEN, url);
    const withToken = await statementsOf(token, url);
    expect(withToken.length, withToken.join('\n---\n')).toBe(withAdminToken.length + 1);
  });

  it.each([
    ['GET', '/realms/root/users/jack', undefined],
    ['PATCH', '/realms/root/users/jack', { claims: { name: 'Jack' } }],
    ['PUT', '/realms/counted/scopes/orders', { description: 'Orders' }],
    ['PATCH', '/realms/counted', { settings: { code_lifetime: 60 } }],
  ] as const)('%s %s costs a person\'s token one statement more than ADMIN_TOKEN, changes included', async (method, url, body) => {
    const withAdminToken = await statementsOf(ADMIN_TOKEN, url, method, body);
    const withToken = await statementsOf(personToken, url, method, body);
    expect(withToken.length, withToken.join('\n---\n')).toBe(withAdminToken.length + 1);
  });
});
