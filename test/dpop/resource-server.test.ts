import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DpopReplayStore } from '../../src/resource-server/index.js';
import { DpopKey } from '../support/dpop.js';
import { realmPath } from '../support/oauth.js';
import { type AuthorizationServer, type Realm, createRealm, startApi, startAuthorizationServer, tokens } from '../resource-server/support.js';

const API = 'https://api.example';

/**
 * RFC 9449 §7 at an API protected by realmgate/resource-server: a DPoP-bound token (JWT or
 * introspected) is accepted with the DPoP scheme and a proof of its key made for the request,
 * carrying the token's hash, used once; never as a bearer token.
 */
describe('resource-server plugin: DPoP-bound tokens (RFC 9449 §7)', () => {
  let as: AuthorizationServer;
  let jwtRealm: Realm;
  let opaqueRealm: Realm;
  let api: FastifyInstance;
  let introspectingApi: FastifyInstance;
  let key: DpopKey;

  /** A client credentials token of the realm, bound to `bound`'s key. */
  const boundToken = async (realm: Realm, bound: DpopKey, scope = 'orders:read') =>
    (
      await tokens(as, realm, realm.service, { grant_type: 'client_credentials', scope }, {
        dpop: await bound.proof('POST', `${as.baseUrl}${realmPath(realm.name)}/access_token`),
      })
    ).access_token;
  const call = (target: FastifyInstance, headers: Record<string, string>, url = '/orders', method: 'GET' | 'POST' = 'GET') =>
    target.inject({ method, url, headers });
  const proved = async (token: string, url = '/orders', method = 'GET', by = key) => ({
    authorization: `DPoP ${token}`,
    dpop: await by.proof(method, `${API}${url}`, { accessToken: token }),
  });

  function expectRefusal(response: LightMyRequestResponse, error: string, description: RegExp, status = 401) {
    expect(response.statusCode, response.body).toBe(status);
    const header = response.headers['www-authenticate'] as string;
    expect(header).toMatch(/^DPoP realm="[^"]+", /);
    expect(header).toContain(`error="${error}"`);
    expect(header).toMatch(/algs="[^"]*ES256[^"]*"$/);
    expect(response.json()).toEqual({ error, error_description: expect.stringMatching(description) });
  }

  beforeAll(async () => {
    as = await startAuthorizationServer();
    jwtRealm = await createRealm(as, { stateless_tokens: true });
    opaqueRealm = await createRealm(as);
    api = await startApi({ issuer: jwtRealm.issuer, dpop: { origin: API } });
    introspectingApi = await startApi({
      issuer: opaqueRealm.issuer,
      introspection: { clientId: opaqueRealm.api.clientId, clientSecret: opaqueRealm.api.secret },
      dpop: { origin: API },
    });
    key = await DpopKey.generate();
  });
  afterAll(async () => {
    await api?.close();
    await introspectingApi?.close();
    await as?.close();
  });

  it('accepts a bound JWT with the DPoP scheme and a proof of its key; the claims carry cnf.jkt', async () => {
    const token = await boundToken(jwtRealm, key);
    const response = await call(api, await proved(token));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().token.cnf).toEqual({ jkt: key.thumbprint });
  });

  it('accepts an introspected bound token (token_type DPoP) the same way', async () => {
    const token = await boundToken(opaqueRealm, key);
    const response = await call(introspectingApi, await proved(token));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().token).toMatchObject({ token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
    expectRefusal(await call(introspectingApi, { authorization: `Bearer ${token}` }), 'invalid_token', /bound to a DPoP key/);
  });

  it('refuses a bound token presented as a bearer token', async () => {
    const token = await boundToken(jwtRealm, key);
    expectRefusal(await call(api, { authorization: `Bearer ${token}` }), 'invalid_token', /bound to a DPoP key/);
  });

  it('refuses the DPoP scheme without a proof, or with two', async () => {
    const token = await boundToken(jwtRealm, key);
    expectRefusal(await call(api, { authorization: `DPoP ${token}` }), 'invalid_dpop_proof', /proof is required/);
    const one = await key.proof('GET', `${API}/orders`, { accessToken: token });
    const two = await key.proof('GET', `${API}/orders`, { accessToken: token });
    const response = await api.inject({ method: 'GET', url: '/orders', headers: { authorization: `DPoP ${token}`, dpop: [one, two] as unknown as string } });
    expectRefusal(response, 'invalid_dpop_proof', /more than one DPoP header/);
  });

  it('refuses a proof used before, in this process', async () => {
    const token = await boundToken(jwtRealm, key);
    const headers = await proved(token);
    expect((await call(api, headers)).statusCode).toBe(200);
    expectRefusal(await call(api, headers), 'invalid_dpop_proof', /used before/);
  });

  it("refuses a proof of another key, another token's hash, another method or URL", async () => {
    const token = await boundToken(jwtRealm, key);
    const other = await DpopKey.generate();
    expectRefusal(await call(api, await proved(token, '/orders', 'GET', other)), 'invalid_token', /another DPoP key/);
    const otherToken = await boundToken(jwtRealm, key);
    expectRefusal(
      await call(api, { authorization: `DPoP ${token}`, dpop: await key.proof('GET', `${API}/orders`, { accessToken: otherToken }) }),
      'invalid_dpop_proof',
      /ath does not match/,
    );
    expectRefusal(await call(api, await proved(token, '/orders', 'POST')), 'invalid_dpop_proof', /htm must be GET/);
    expectRefusal(await call(api, await proved(token, '/me')), 'invalid_dpop_proof', /htu must be https:\/\/api.example\/orders/);
    expectRefusal(
      await call(api, { authorization: `DPoP ${token}`, dpop: await key.proof('GET', 'https://other.example/orders', { accessToken: token }) }),
      'invalid_dpop_proof',
      /htu must be/,
    );
  });

  it('refuses an unbound token sent with the DPoP scheme, and challenges other refusals in that scheme', async () => {
    const plain = (await tokens(as, jwtRealm, jwtRealm.service, { grant_type: 'client_credentials', scope: 'orders:read' })).access_token;
    expectRefusal(await call(api, await proved(plain)), 'invalid_token', /not bound to a DPoP key/);
    expectRefusal(await call(api, await proved('not-a-jwt')), 'invalid_token', /not a JWT access token/);
    const token = await boundToken(jwtRealm, key);
    const insufficient = await call(api, await proved(token, '/orders', 'POST'), '/orders', 'POST');
    expectRefusal(insufficient, 'insufficient_scope', /lacks the scope/, 403);
    expect(insufficient.headers['www-authenticate']).toContain('scope="orders:write"');
  });

  it('spends proofs in the store it is given (one shared by every process)', async () => {
    const spent: Array<[string, string, Date]> = [];
    const replay: DpopReplayStore = {
      use: async (thumbprint, jti, expiresAt) => {
        const fresh = !spent.some(([t, j]) => t === thumbprint && j === jti);
        spent.push([thumbprint, jti, expiresAt]);
        return fresh;
      },
    };
    const shared = await startApi({ issuer: jwtRealm.issuer, dpop: { origin: API, replay } });
    const again = await startApi({ issuer: jwtRealm.issuer, dpop: { origin: API, replay } });
    try {
      const token = await boundToken(jwtRealm, key);
      const headers = await proved(token);
      expect((await call(shared, headers)).statusCode).toBe(200);
      expectRefusal(await call(again, headers), 'invalid_dpop_proof', /used before/);
      expect(spent[0]![0]).toBe(key.thumbprint);
      // Kept until the proof could no longer be accepted: 60 s of life and 60 s of skew.
      expect(spent[0]![2].getTime()).toBeGreaterThan(Date.now() + 60_000);
      expect(spent[0]![2].getTime()).toBeLessThanOrEqual(Date.now() + 121_000);
    } finally {
      await shared.close();
      await again.close();
    }
  });

  it("without an origin, takes the request's protocol and Host header for htu", async () => {
    const hosted = await startApi({ issuer: jwtRealm.issuer });
    try {
      const token = await boundToken(jwtRealm, key);
      const headers = { host: 'orders.internal:8080', authorization: `DPoP ${token}` };
      const accepted = await hosted.inject({ method: 'GET', url: '/me?x=1', headers: { ...headers, dpop: await key.proof('GET', 'http://orders.internal:8080/me', { accessToken: token }) } });
      expect(accepted.statusCode, accepted.body).toBe(200);
      const refused = await hosted.inject({ method: 'GET', url: '/me', headers: { ...headers, dpop: await key.proof('GET', `${API}/me`, { accessToken: token }) } });
      expectRefusal(refused, 'invalid_dpop_proof', /htu must be http:\/\/orders.internal:8080\/me/);
    } finally {
      await hosted.close();
    }
  });

  it('refuses options it cannot use at registration', async () => {
    await expect(startApi({ issuer: jwtRealm.issuer, dpop: { origin: 'https://api.example/v1' } })).rejects.toThrow(/dpop.origin/);
    await expect(startApi({ issuer: jwtRealm.issuer, dpop: { replay: {} as DpopReplayStore } })).rejects.toThrow(/dpop.replay/);
  });
});
