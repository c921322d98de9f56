import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationDetailsOf, resourceServer } from '@realmgate/resource-server';
import { ACCOUNTS, PAYMENT, PAYMENT_TYPES } from '../support/authorization-details.js';
import { type AuthorizationServer, type Realm, call, createRealm, startAuthorizationServer, tokens, withResource } from './support.js';

/**
 * RFC 9396 §9 at the API: the plugin hands the route the authorization details the token was
 * granted, from a JWT access token and from introspection alike, and none from a token without.
 */
describe('resource server: authorization details', () => {
  let as: AuthorizationServer;
  const apis: FastifyInstance[] = [];

  /** An API whose `/pay` route answers the payments its token grants, as the plugin hands them over. */
  async function payApi(options: Parameters<typeof withResource>[0]): Promise<FastifyInstance> {
    const api = Fastify();
    await api.register(resourceServer, withResource(options));
    api.get('/pay', { onRequest: api.requireToken() }, async (request) => ({ payments: authorizationDetailsOf(request.token, 'payment_initiation'), all: authorizationDetailsOf(request.token) }));
    await api.ready();
    apis.push(api);
    return api;
  }

  async function payingRealm(settings: Record<string, unknown>): Promise<{ realm: Realm; token: (details?: unknown[]) => Promise<string> }> {
    const realm = await createRealm(as, { ...settings, authorization_details_types: PAYMENT_TYPES });
    const payer = await as.admin.serviceClient(realm.name, '', { authorization_details_types: ['payment_initiation', 'account_information'] });
    const token = async (details?: unknown[]) =>
      (await tokens(as, realm, payer, { grant_type: 'client_credentials', ...(details ? { authorization_details: JSON.stringify(details) } : {}) })).access_token;
    return { realm, token };
  }

  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    for (const api of apis) await api.close();
    await as?.close();
  });

  it('hands the route the granted details of an introspected token, by type', async () => {
    const { realm, token } = await payingRealm({});
    const api = await payApi({ issuer: realm.issuer, introspection: { clientId: realm.api.clientId, clientSecret: realm.api.secret } });
    const response = await call(api, await token([PAYMENT, ACCOUNTS]), '/pay');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ payments: [PAYMENT], all: [PAYMENT, ACCOUNTS] });
    const none = await call(api, await token(), '/pay');
    expect(none.json()).toEqual({ payments: [], all: [] });
  });

  it('hands the route the granted details of a JWT access token', async () => {
    const { realm, token } = await payingRealm({ stateless_tokens: true });
    const api = await payApi({ issuer: realm.issuer });
    const response = await call(api, await token([PAYMENT]), '/pay');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ payments: [PAYMENT], all: [PAYMENT] });
  });

  it('leaves out what is not an entry', () => {
    expect(authorizationDetailsOf({ authorization_details: [PAYMENT, 'x', null, [], { type: 5 }] })).toEqual([PAYMENT]);
    expect(authorizationDetailsOf({ authorization_details: { type: 'payment_initiation' } })).toEqual([]);
    expect(authorizationDetailsOf(null)).toEqual([]);
  });
});
