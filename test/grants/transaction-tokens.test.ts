import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { type ServiceClient, accessToken, realmPath, revoke } from '../support/oauth.js';
import { type TestUser, createUser, passwordTokens, tokenRequest } from '../support/users.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TXN_TOKEN = 'urn:ietf:params:oauth:token-type:txn_token';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const TRUST_DOMAIN = 'trust-domain.example';
const now = () => Math.floor(Date.now() / 1000);

function expectRefused(response: LightMyRequestResponse, error: string, description?: RegExp): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.headers['cache-control']).toBe('no-store');
  const body = response.json() as { error: string; error_description: string };
  expect(body.error).toBe(error);
  if (description) expect(body.error_description).toMatch(description);
}

/** Transaction tokens (draft-ietf-oauth-transaction-tokens, CONTRACT.md §15) through the token endpoint. */
describe('transaction tokens', () => {
  let t: TestApp;
  let realm: string;
  /** The API gateway of the trust domain: transaction_token_service. */
  let gateway: ServiceClient;
  /** An application of the realm whose access tokens reach the gateway. */
  let app: ServiceClient;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t, { transaction_tokens: { trust_domain: TRUST_DOMAIN, lifetime: 120 } });
    for (const scope of ['trade.read', 'trade.stocks']) await t.admin.putScope(realm, scope);
    const created = await t.admin.createClient(realm, { grant_types: [TOKEN_EXCHANGE], transaction_token_service: true });
    gateway = { clientId: created.client_id, secret: created.client_secret! };
    const application = await t.admin.createClient(realm, { grant_types: ['password', 'client_credentials'], scope: 'openid trade.read trade.stocks' });
    app = { clientId: application.client_id, secret: application.client_secret! };
    alice = await createUser(t.admin, realm, 'alice');
  });
  afterAll(async () => {
    await t.close();
  });

  const aliceToken = async (scope = 'trade.read trade.stocks') => (await passwordTokens(t.app, realm, app, alice, scope)).access_token;

  const request = async (form: Record<string, string | string[]> = {}, by: ServiceClient = gateway, inRealm = realm) =>
    tokenRequest(t.app, inRealm, by, {
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: TXN_TOKEN,
      subject_token: await aliceToken(),
      subject_token_type: ACCESS_TOKEN,
      audience: TRUST_DOMAIN,
      scope: 'trade.stocks',
      ...form,
    });

  it('trades an access token of the realm for a signed transaction token, verified with jose against jwks_uri', async () => {
    const response = await request({
      request_context: JSON.stringify({ req_ip: '69.151.72.123', authn: 'pwd' }),
      request_details: JSON.stringify({ action: 'BUY', ticker: 'MSFT', quantity: '100' }),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json() as Record<string, unknown>;
    expect(body).toMatchObject({ issued_token_type: TXN_TOKEN, token_type: 'N_A', scope: 'trade.stocks' });
    expect(body.refresh_token).toBeUndefined();
    expect(body.expires_in).toBeLessThanOrEqual(120);

    const discovery = (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json() as { jwks_uri: string };
    const jwks = (await t.app.inject({ method: 'GET', url: new URL(discovery.jwks_uri).pathname })).json();
    const { payload, protectedHeader } = await jwtVerify(body.access_token as string, createLocalJWKSet(jwks), { audience: TRUST_DOMAIN, typ: 'txntoken+jwt' });
    expect(protectedHeader.typ).toBe('txntoken+jwt');
    expect(payload).toMatchObject({
      iss: issuerOf(realm),
      aud: TRUST_DOMAIN,
      sub: alice.sub,
      scope: 'trade.stocks',
      req_wl: gateway.clientId,
      rctx: { req_ip: '69.151.72.123', authn: 'pwd' },
      tctx: { action: 'BUY', ticker: 'MSFT', quantity: '100' },
    });
    expect(payload.txn).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.exp! - payload.iat!).toBe(120);

    const again = decodeJwt((await request()).json().access_token);
    expect(again.txn).not.toBe(payload.txn);
    expect(again).toMatchObject({ tctx: {}, rctx: {} });
  });

  it("takes a service's token too: sub is the client, and no person is behind it", async () => {
    const serviceToken = await accessToken(t.app, realm, app, 'trade.read');
    const response = await request({ subject_token: serviceToken, scope: 'trade.read' });
    expect(response.statusCode, response.body).toBe(200);
    expect(decodeJwt(response.json().access_token)).toMatchObject({ sub: app.clientId, scope: 'trade.read' });
  });

  it("never widens the purpose beyond the subject token's scope (invalid_scope), and requires one (invalid_request)", async () => {
    expectRefused(await request({ subject_token: await aliceToken('trade.read'), scope: 'trade.read trade.stocks' }), 'invalid_scope', /wider than the subject_token's scope: trade.stocks/);
    expectRefused(await request({ scope: [] }), 'invalid_request', /scope is required/);
  });

  it('is only for a client with transaction_token_service (unauthorized_client), and for the trust domain (invalid_target)', async () => {
    const other = await t.admin.createClient(realm, { grant_types: [TOKEN_EXCHANGE], scope: 'trade.stocks' });
    expectRefused(await request({}, { clientId: other.client_id, secret: other.client_secret! }), 'unauthorized_client', /transaction_token_service/);
    expectRefused(await request({ audience: 'elsewhere.example' }), 'invalid_target', /trust domain/);
    expectRefused(await request({ audience: [TRUST_DOMAIN, TRUST_DOMAIN] }), 'invalid_target');
    expectRefused(await request({ audience: [] }), 'invalid_target');
    expectRefused(await request({ resource: 'https://api.example/' }), 'invalid_target', /resource is not used/);
  });

  it('refuses a revoked, unknown or mistyped subject token, an actor, and malformed contexts, with invalid_request', async () => {
    const revoked = await aliceToken();
    expect((await revoke(t.app, realm, app, revoked)).statusCode).toBe(200);
    expectRefused(await request({ subject_token: revoked }), 'invalid_request', /not an active access token/);
    expectRefused(await request({ subject_token: 'not-a-token' }), 'invalid_request');
    const { refresh_token: refreshToken } = await passwordTokens(t.app, realm, app, alice, 'trade.read');
    if (refreshToken) expectRefused(await request({ subject_token: refreshToken, subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }), 'invalid_request', /subject_token_type/);
    expectRefused(await request({ subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }), 'invalid_request', /subject_token_type/);
    expectRefused(await request({ request_context: '[1,2]' }), 'invalid_request', /request_context must be a JSON object/);
    expectRefused(await request({ request_details: '{"a":' }), 'invalid_request', /request_details must be a JSON object/);
    expectRefused(await request({ request_details: `${'{"a":'.repeat(20)}1${'}'.repeat(20)}` }), 'invalid_request', /nests too deeply/);
    expectRefused(await request({ actor_token: await aliceToken(), actor_token_type: ACCESS_TOKEN }), 'invalid_request', /actor_token/);
  });

  it('never outlives its subject token, and records transaction_token.issued without the tokens', async () => {
    const shortRealm = await freshRealm(t, { transaction_tokens: { trust_domain: TRUST_DOMAIN }, access_token_lifetime: 30 });
    await t.admin.putScope(shortRealm, 'trade.read');
    const gw = await t.admin.createClient(shortRealm, { grant_types: [TOKEN_EXCHANGE], transaction_token_service: true });
    const application = await t.admin.createClient(shortRealm, { grant_types: ['client_credentials'], scope: 'trade.read' });
    const subject = await accessToken(t.app, shortRealm, { clientId: application.client_id, secret: application.client_secret! }, 'trade.read');
    const response = await request({ subject_token: subject, scope: 'trade.read' }, { clientId: gw.client_id, secret: gw.client_secret! }, shortRealm);
    expect(response.statusCode, response.body).toBe(200);
    const claims = decodeJwt(response.json().access_token);
    expect(claims.exp! - now()).toBeLessThanOrEqual(30);

    const events = (await t.admin.request('GET', `/realms/${shortRealm}/events?type=transaction_token.issued`)).json() as { events: Array<Record<string, unknown>> };
    expect(events.events[0]).toMatchObject({ client_id: gw.client_id, details: { txn: claims.txn, scope: 'trade.read', trust_domain: TRUST_DOMAIN, subject_client_id: application.client_id } });
    expect(JSON.stringify(events)).not.toContain(subject);
  });

  it('is refused in a realm without the setting, and the setting holds lifetimes of at most 300 seconds', async () => {
    const plainRealm = await freshRealm(t);
    await t.admin.putScope(plainRealm, 'trade.read');
    const gw = await t.admin.createClient(plainRealm, { grant_types: [TOKEN_EXCHANGE], transaction_token_service: true });
    const application = await t.admin.createClient(plainRealm, { grant_types: ['client_credentials'], scope: 'trade.read' });
    const subject = await accessToken(t.app, plainRealm, { clientId: application.client_id, secret: application.client_secret! }, 'trade.read');
    expectRefused(await request({ subject_token: subject, scope: 'trade.read' }, { clientId: gw.client_id, secret: gw.client_secret! }, plainRealm), 'invalid_request', /transaction_tokens setting/);

    const tooLong = await t.admin.request('PATCH', `/realms/${plainRealm}`, { settings: { transaction_tokens: { trust_domain: TRUST_DOMAIN, lifetime: 301 } } });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error_description).toContain('transaction_tokens');
    const noDomain = await t.admin.request('PATCH', `/realms/${plainRealm}`, { settings: { transaction_tokens: { lifetime: 60 } } });
    expect(noDomain.statusCode).toBe(400);
    const set = await t.admin.request('PATCH', `/realms/${plainRealm}`, { settings: { transaction_tokens: { trust_domain: TRUST_DOMAIN, lifetime: 300 } } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().settings.transaction_tokens).toEqual({ trust_domain: TRUST_DOMAIN, lifetime: 300 });
  });

  it("is an admin privilege, refused on a public client, and goes with the realm's export", async () => {
    const publicClient = await t.admin.request('POST', `/realms/${realm}/clients`, {
      client_type: 'public',
      redirect_uris: ['https://app.example/callback'],
      transaction_token_service: true,
    });
    expect(publicClient.statusCode).toBe(400);
    expect(publicClient.json().error_description).toContain('transaction_token_service');
    const exported = (await t.admin.request('GET', `/realms/${realm}/export`)).json();
    expect(exported.settings.transaction_tokens).toEqual({ trust_domain: TRUST_DOMAIN, lifetime: 120 });
    expect(exported.clients.find((client: { client_id: string }) => client.client_id === gateway.clientId)).toMatchObject({ transaction_token_service: true });

    // Imported into another realm, the document brings them along.
    const copy = `${realm}-copy`;
    const imported = await t.admin.request('PUT', `/realms/${copy}/import`, exported);
    expect(imported.statusCode, imported.body).toBeLessThan(300);
    expect((await t.admin.request('GET', `/realms/${copy}`)).json().settings.transaction_tokens).toEqual({ trust_domain: TRUST_DOMAIN, lifetime: 120 });
    expect((await t.admin.request('GET', `/realms/${copy}/clients/${gateway.clientId}`)).json()).toMatchObject({ transaction_token_service: true });
  });
});
