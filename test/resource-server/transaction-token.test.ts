import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT, decodeJwt, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceServer } from '../../src/resource-server/index.js';
import type { ServiceClient } from '../support/oauth.js';
import type { TestClock } from '../support/clock.js';
import { type AuthorizationServer, type Realm, TOKEN_EXCHANGE, createRealm, serviceToken, startAuthorizationServer, tokens } from './support.js';

const TXN_TOKEN = 'urn:ietf:params:oauth:token-type:txn_token';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const TRUST_DOMAIN = 'orders.trust-domain.example';

/**
 * The plugin inside the trust domain (draft-ietf-oauth-transaction-tokens §10): a service that
 * the API gateway calls with a `Txn-Token` header, verified offline with the realm's key set.
 */
describe('resource server: transaction tokens (Txn-Token header)', () => {
  let as: AuthorizationServer & { clock: TestClock };
  let realm: Realm;
  let gateway: ServiceClient;
  let service: FastifyInstance;

  beforeAll(async () => {
    as = await startAuthorizationServer({ clock: true });
    realm = await createRealm(as, { transaction_tokens: { trust_domain: TRUST_DOMAIN, lifetime: 2 } });
    const created = await as.admin.createClient(realm.name, { grant_types: [TOKEN_EXCHANGE], transaction_token_service: true });
    gateway = { clientId: created.client_id, secret: created.client_secret as string };
    service = Fastify();
    await service.register(resourceServer, { issuer: realm.issuer, resource: 'https://orders.internal', transactionTokens: { trustDomain: TRUST_DOMAIN } });
    service.get('/orders', { onRequest: service.requireTransactionToken({ scope: 'orders:read' }) }, async (request) => ({ transaction: request.transaction }));
    service.post('/orders', { onRequest: service.requireTransactionToken({ scope: 'orders:write' }) }, async (request) => ({ transaction: request.transaction }));
    await service.ready();
  });
  afterAll(async () => {
    await service?.close();
    await as?.close();
  });

  /** What the gateway does with a token that reached it: asks the realm for a transaction token of this purpose. */
  const transactionToken = async (scope: string, details: Record<string, unknown> = {}) =>
    (
      await tokens(as, realm, gateway, {
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: TXN_TOKEN,
        subject_token: await serviceToken(as, realm),
        subject_token_type: ACCESS_TOKEN,
        audience: TRUST_DOMAIN,
        scope,
        request_details: JSON.stringify(details),
      })
    ).access_token;

  const call = (headers: Record<string, string | string[]>, method: 'GET' | 'POST' = 'GET') => service.inject({ method, url: '/orders', headers });

  it('lets a request with a transaction token of the purpose through, with its claims', async () => {
    const token = await transactionToken('orders:read', { order: 42 });
    const response = await call({ 'txn-token': token });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().transaction).toMatchObject({ aud: TRUST_DOMAIN, scope: 'orders:read', txn: decodeJwt(token).txn, tctx: { order: 42 }, req_wl: gateway.clientId });
  });

  it('refuses a purpose that does not cover the route with 403 insufficient_scope', async () => {
    const response = await call({ 'txn-token': await transactionToken('orders:read') }, 'POST');
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: 'insufficient_scope' });
  });

  it('refuses no header, two tokens, an access token, a token in Authorization, and a forged one with 401', async () => {
    const token = await transactionToken('orders:read');
    const accessToken = await serviceToken(as, realm);
    const attempts: Array<Record<string, string | string[]>> = [{}, { 'txn-token': [token, token] }, { 'txn-token': accessToken }, { authorization: `Bearer ${token}` }];
    for (const headers of attempts) {
      const response = await call(headers);
      expect(response.statusCode, JSON.stringify(headers).slice(0, 40)).toBe(401);
      expect(response.json()).toMatchObject({ error: 'invalid_token' });
    }
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...decodeJwt(token) }).setProtectedHeader({ alg: 'ES256', typ: 'txntoken+jwt', kid: 'forged' }).sign(privateKey);
    expect((await call({ 'txn-token': forged })).statusCode).toBe(401);
  });

  it('refuses a transaction token of another trust domain', async () => {
    const other = Fastify();
    await other.register(resourceServer, { issuer: realm.issuer, resource: 'https://billing.internal', transactionTokens: { trustDomain: 'billing.trust-domain.example' } });
    other.get('/bills', { onRequest: other.requireTransactionToken() }, async () => ({ ok: true }));
    const response = await other.inject({ method: 'GET', url: '/bills', headers: { 'txn-token': await transactionToken('orders:read') } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error_description).toMatch(/trust domain/);
    await other.close();
  });

  it('refuses an expired transaction token (the realm gives them 2 seconds here)', async () => {
    const token = await transactionToken('orders:read');
    const { exp } = decodeJwt(token);
    // The plugin's default clock tolerance is 5 seconds.
    await as.clock.advanceTo(exp! + 5, 50);
    const response = await call({ 'txn-token': token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error_description).toMatch(/expired/);
  });

  it('needs the transactionTokens option to require one', async () => {
    const plain = Fastify();
    await plain.register(resourceServer, { issuer: realm.issuer, resource: 'https://plain.internal' });
    expect(() => plain.requireTransactionToken()).toThrow(/transactionTokens/);
    await plain.close();
  });
});
