import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LightMyRequestResponse } from 'fastify';
import { exportJWK, generateKeyPair } from 'jose';
import { BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { DpopKey, hmacProof, unsignedProof } from '../support/dpop.js';
import { freshRealm } from '../support/flow-helpers.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';

/**
 * RFC 9449 §4.3 at the token endpoint: each check of a DPoP proof, failing alone, is 400
 * `invalid_dpop_proof` and issues nothing; a valid proof binds the access token.
 */
describe('DPoP proofs at the token endpoint (RFC 9449 §4.3, §5)', () => {
  let t: TestApp;
  let realm: string;
  let service: ServiceClient;
  let tokenUrl: string;

  const tokenRequest = (headers: Record<string, string | string[]>, client = service) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
      authorization: basic(client.clientId, client.secret),
      ...(headers as Record<string, string>),
    });
  const issuedTokens = async () =>
    (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE realm = $1', [realm])).rows[0]!.n;

  /** A refusal that issued nothing. */
  async function expectRefused(response: LightMyRequestResponse, description: RegExp, error = 'invalid_dpop_proof') {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error, error_description: expect.stringMatching(description) });
  }

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t, NO_RATE_LIMITS);
    service = await t.admin.serviceClient(realm, 'api');
    tokenUrl = `${BASE_URL}${realmPath(realm)}/access_token`;
  });
  afterAll(() => t.close());
  afterEach(() => vi.useRealTimers());

  it('binds the access token to the proof key: token_type DPoP, and cnf.jkt at introspection', async () => {
    const key = await DpopKey.generate();
    const response = await tokenRequest({ dpop: await key.proof('POST', tokenUrl) });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ token_type: 'DPoP', scope: 'api' });
    const answer = (await introspect(t.app, realm, service, body.access_token)).json();
    expect(answer).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
  });

  it('issues a bearer token, without cnf, to a request without a proof', async () => {
    const response = await tokenRequest({});
    expect(response.json().token_type).toBe('Bearer');
    const answer = (await introspect(t.app, realm, service, response.json().access_token)).json();
    expect(answer).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(answer.cnf).toBeUndefined();
  });

  it('accepts every asymmetric algorithm it advertises, RSA-PSS and Ed25519 among them', async () => {
    // ES512's DER signature is over 127 bytes: its length takes the long form.
    for (const alg of ['ES384', 'ES512', 'PS256', 'RS256', 'EdDSA']) {
      const key = await DpopKey.generate(alg);
      const response = await tokenRequest({ dpop: await key.proof('POST', tokenUrl) });
      expect(response.statusCode, `${alg}: ${response.body}`).toBe(200);
      expect((await introspect(t.app, realm, service, response.json().access_token)).json().cnf).toEqual({ jkt: key.thumbprint });
    }
  });

  it('compares htu without its query and fragment, and after normalizing case and default port (RFC 9449 §4.3 item 9)', async () => {
    const key = await DpopKey.generate();
    const url = new URL(tokenUrl);
    const variants = [`${tokenUrl}?a=1`, `${tokenUrl}#f`, `HTTPS://${url.host.toUpperCase()}:443${url.pathname}`];
    for (const htu of variants) {
      const response = await tokenRequest({ dpop: await key.proof('POST', htu) });
      expect(response.statusCode, `${htu}: ${response.body}`).toBe(200);
    }
  });

  describe('refuses, each check alone, and issues nothing', () => {
    let key: DpopKey;
    let before: number;
    beforeAll(async () => {
      key = await DpopKey.generate();
    });

    const refusal = async (dpop: string | string[], description: RegExp) => {
      before = await issuedTokens();
      await expectRefused(await tokenRequest({ dpop }), description);
      expect(await issuedTokens()).toBe(before);
    };

    it('htm of another method', async () => refusal(await key.proof('GET', tokenUrl), /htm must be POST/));
    it('htu of another endpoint', async () => refusal(await key.proof('POST', `${BASE_URL}${realmPath(realm)}/par`), /htu must be/));
    it('htu of another realm', async () => refusal(await key.proof('POST', `${BASE_URL}/oauth2/access_token`), /htu must be/));
    it('htu of another origin', async () => refusal(await key.proof('POST', tokenUrl.replace('auth.test', 'evil.test')), /htu must be/));
    it('an iat too old', async () => refusal(await key.proof('POST', tokenUrl, { iat: Math.floor(Date.now() / 1000) - 300 }), /too old/));
    it('an iat in the future', async () => refusal(await key.proof('POST', tokenUrl, { iat: Math.floor(Date.now() / 1000) + 300 }), /in the future/));
    it('no iat', async () => refusal(await key.proof('POST', tokenUrl, { claims: { iat: undefined } }), /needs an iat/));
    it('no jti', async () => refusal(await key.proof('POST', tokenUrl, { claims: { jti: undefined } }), /needs a jti/));
    it('another typ', async () => refusal(await key.proof('POST', tokenUrl, { header: { typ: 'JWT' } }), /typ must be dpop\+jwt/));
    it('no typ', async () => refusal(await key.proof('POST', tokenUrl, { header: { typ: undefined } }), /typ must be dpop\+jwt/));
    it('alg none', async () => refusal(unsignedProof(key, 'POST', tokenUrl), /alg must be one of/));
    it('alg HS256', async () => refusal(await hmacProof(key, 'POST', tokenUrl), /alg must be one of/));
    it('no jwk header', async () => refusal(await key.proof('POST', tokenUrl, { header: { jwk: undefined } }), /no jwk header/));
    it('a private key in the jwk header', async () =>
      refusal(await key.proof('POST', tokenUrl, { header: { jwk: key.privateJwk } }), /jwk holds private key members/));
    it('a signature of another key than its jwk', async () => {
      const other = await DpopKey.generate();
      await refusal(await key.proof('POST', tokenUrl, { header: { jwk: other.publicJwk } }), /signature does not verify/);
    });
    it('a jwk of another key type than its alg', async () => {
      const rsa = await generateKeyPair('RS256', { extractable: true });
      await refusal(await key.proof('POST', tokenUrl, { header: { jwk: await exportJWK(rsa.publicKey) } }), /signature does not verify/);
    });
    it('a tampered payload', async () => {
      const [header, , signature] = (await key.proof('POST', tokenUrl)).split('.');
      const payload = Buffer.from(JSON.stringify({ jti: 'x', htm: 'POST', htu: tokenUrl, iat: Math.floor(Date.now() / 1000) })).toString('base64url');
      await refusal(`${header}.${payload}.${signature}`, /signature does not verify/);
    });
    it('no compact JWS', async () => refusal('not-a-proof', /not a compact JWS/));
    it('two DPoP headers', async () => refusal([await key.proof('POST', tokenUrl), await key.proof('POST', tokenUrl)], /more than one DPoP header/));

    it('a proof used before (jti), even with a valid request around it', async () => {
      const proof = await key.proof('POST', tokenUrl);
      expect((await tokenRequest({ dpop: proof })).statusCode).toBe(200);
      await refusal(proof, /used before/);
    });
  });

  it('never lets a proof of one client serve another: a spent jti is spent for every client', async () => {
    const other = await t.admin.serviceClient(realm, 'api');
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', tokenUrl);
    expect((await tokenRequest({ dpop: proof })).statusCode).toBe(200);
    await expectRefused(await tokenRequest({ dpop: proof }, other), /used before/);
  });

  it('checks the proof after the client: a request of an unauthenticated client is invalid_client and spends no jti', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', tokenUrl);
    const refused = await tokenRequest({ dpop: proof }, { clientId: service.clientId, secret: 'wrong' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toBe('invalid_client');
    expect((await tokenRequest({ dpop: proof })).statusCode).toBe(200);
  });

  describe('with dpop_nonce (RFC 9449 §8)', () => {
    let nonceRealm: string;
    let nonceClient: ServiceClient;
    let url: string;
    const request = (dpop: string) =>
      postForm(t.app, `${realmPath(nonceRealm)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
        authorization: basic(nonceClient.clientId, nonceClient.secret),
        dpop,
      });

    beforeAll(async () => {
      nonceRealm = await freshRealm(t, { ...NO_RATE_LIMITS, dpop_nonce: true });
      nonceClient = await t.admin.serviceClient(nonceRealm, 'api');
      url = `${BASE_URL}${realmPath(nonceRealm)}/access_token`;
    });

    it('answers use_dpop_nonce with a DPoP-Nonce to a proof without one, and accepts the retry with it', async () => {
      const key = await DpopKey.generate();
      const first = await request(await key.proof('POST', url));
      await expectRefused(first, /needs a nonce/, 'use_dpop_nonce');
      const nonce = first.headers['dpop-nonce'];
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const retry = await request(await key.proof('POST', url, { nonce: nonce as string }));
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.json().token_type).toBe('DPoP');
      expect(retry.headers['dpop-nonce']).toBe(nonce);
    });

    it('refuses a nonce it did not make, or one of another realm', async () => {
      const key = await DpopKey.generate();
      const other = await freshRealm(t, { ...NO_RATE_LIMITS, dpop_nonce: true });
      const otherClient = await t.admin.serviceClient(other, 'api');
      const otherUrl = `${BASE_URL}${realmPath(other)}/access_token`;
      const otherNonce = (
        await postForm(t.app, `${realmPath(other)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
          authorization: basic(otherClient.clientId, otherClient.secret),
          dpop: await key.proof('POST', otherUrl),
        })
      ).headers['dpop-nonce'] as string;
      expect(otherNonce).toEqual(expect.any(String));
      await expectRefused(await request(await key.proof('POST', url, { nonce: otherNonce })), /stale or not this server's/, 'use_dpop_nonce');
      await expectRefused(await request(await key.proof('POST', url, { nonce: 'made-up-nonce-000000000' })), /stale or not this server's/, 'use_dpop_nonce');
    });

    it('accepts a nonce for one window more, then refuses it as stale', async () => {
      const key = await DpopKey.generate();
      const nonce = (await request(await key.proof('POST', url))).headers['dpop-nonce'] as string;
      const start = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: start + 5 * 60_000 });
      const later = await request(await key.proof('POST', url, { nonce }));
      expect(later.statusCode, later.body).toBe(200);
      expect(later.headers['dpop-nonce']).not.toBe(nonce);
      vi.setSystemTime(start + 11 * 60_000);
      await expectRefused(await request(await key.proof('POST', url, { nonce })), /stale/, 'use_dpop_nonce');
    });

    it('demands no nonce of a request without a proof', async () => {
      const response = await postForm(t.app, `${realmPath(nonceRealm)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
        authorization: basic(nonceClient.clientId, nonceClient.secret),
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().token_type).toBe('Bearer');
    });
  });

  it('discovery lists the algorithms it accepts (dpop_signing_alg_values_supported)', async () => {
    const metadata = (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
    expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA']));
    expect(metadata.dpop_signing_alg_values_supported).not.toContain('HS256');
    expect(metadata.dpop_signing_alg_values_supported).not.toContain('none');
  });
});
