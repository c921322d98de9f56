import { randomUUID, webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DpopKey } from '../support/dpop.js';
import { BUDGET, type HostileFixture, encoded, expectAnswer, formBytes, hostileJwt, hostileProperty, hostileText, send, startHostileApp } from '../support/hostile.js';
import { basic } from '../support/oauth.js';

/**
 * Hostile DPoP headers at the token endpoint and UserInfo: garbage, unsigned and forged proofs,
 * proofs signed by a real key around odd headers and claims. Each is refused in the RFC's shape
 * (or, when it happens to be a valid proof, accepted), never a 500, never with internal detail.
 */
describe('hostile DPoP proofs', () => {
  let f: HostileFixture;
  let key: DpopKey;
  let tokenUrl: string;
  let userinfoUrl: string;
  let boundToken: string;

  const now = () => Math.floor(Date.now() / 1000);
  /** An ES256 JWS by `key` over whatever header and payload, which jose would refuse to make. */
  const signed = async (header: unknown, payload: unknown): Promise<string> => {
    const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload) ?? 'null').toString('base64url')}`;
    const signature = await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, Buffer.from(input));
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  };
  const tokenRequest = (dpop: string) =>
    send(f.app, {
      method: 'POST',
      url: `${f.path}/access_token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(f.service.clientId, f.service.secret), dpop },
      body: formBytes(encoded({ grant_type: 'client_credentials', scope: 'api' })),
    });

  /** Proofs signed by `key`, whose header or claims are anything at all. */
  const signedOddities = (url: string, accessToken?: string): fc.Arbitrary<Promise<string>> => {
    const oddJwk = fc.oneof(
      fc.anything(),
      fc.record({ kty: fc.constantFrom('EC', 'RSA', 'OKP', 'oct', 'AKP', ''), crv: fc.option(hostileText), x: fc.option(hostileText), y: fc.option(hostileText) }),
      fc.constant({ kty: 'RSA', n: 'A'.repeat(20_000), e: 'AQAB' }),
      fc.constant({ __proto__: { kty: 'EC' } }),
    );
    const header = fc.record({ typ: fc.oneof(fc.constant('dpop+jwt'), hostileText), jwk: oddJwk, crit: fc.option(fc.constantFrom(['exp'], ['b64'], 'x')) });
    const claims = fc.record({
      jti: fc.oneof(fc.constant(randomUUID()), fc.anything(), fc.string({ minLength: 250, maxLength: 300 })),
      htm: fc.oneof(fc.constant('POST'), fc.constant('GET'), fc.anything()),
      htu: fc.oneof(fc.constant(url), hostileText, fc.anything(), fc.constant(`${url}/../../admin`), fc.constant('javascript:alert(1)')),
      iat: fc.oneof(fc.constant(now()), fc.double(), fc.constant(1e308), fc.constant(-1e308), fc.constant('now'), fc.anything()),
      ath: fc.oneof(fc.constant(undefined), hostileText, fc.anything()),
      nonce: fc.oneof(fc.constant(undefined), hostileText),
    });
    return fc.oneof(
      header.map((h) => signed({ ...h, alg: 'ES256' }, { jti: randomUUID(), htm: 'POST', htu: url, iat: now() })),
      claims.map((c) => signed({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk }, c)),
      fc.anything().map((payload) => signed({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk }, payload)),
      fc.constant(null).map(async () => key.proof('GET', url, accessToken === undefined ? {} : { accessToken })),
    );
  };

  const dpopClaims = (url: string) => () => ({ jti: randomUUID(), htm: 'POST', htu: url, iat: now() });

  beforeAll(async () => {
    f = await startHostileApp();
    key = await DpopKey.generate();
    tokenUrl = `${f.issuer}/access_token`;
    userinfoUrl = `${f.issuer}/userinfo`;
    const granted = await send(f.app, {
      method: 'POST',
      url: `${f.path}/access_token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(f.service.clientId, f.service.secret), dpop: await key.proof('POST', tokenUrl) },
      body: formBytes(encoded({ grant_type: 'password', username: f.user.username, password: f.user.password, scope: 'openid' })),
    });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json().token_type).toBe('DPoP');
    boundToken = granted.json().access_token;
  });
  afterAll(() => f.t.close());

  it('at the token endpoint: garbage, unsigned and forged proofs are 400', async () => {
    await hostileProperty(f, BUDGET.jwt, fc.oneof(hostileJwt(dpopClaims(tokenUrl)), hostileText), async (proof) =>
      expectAnswer(f, await tokenRequest(proof), { kind: 'oauth' }),
    );
  });

  it('at the token endpoint: signed proofs around odd headers and claims are refused, or accepted when valid', async () => {
    await hostileProperty(f, BUDGET.jwt, signedOddities(tokenUrl), async (proof) =>
      expectAnswer(f, await tokenRequest(await proof), { kind: 'oauth', allow: [200] }),
    );
  });

  it('at UserInfo: the same, with a bound token', async () => {
    const userinfo = async (proof: string) =>
      send(f.app, { method: 'GET', url: `${f.path}/userinfo`, headers: { authorization: `DPoP ${boundToken}`, dpop: proof } });
    await hostileProperty(
      f,
      BUDGET.jwt,
      fc.oneof(hostileJwt(dpopClaims(userinfoUrl)), signedOddities(userinfoUrl, boundToken).map(async (proof) => proof)),
      async (proof) => expectAnswer(f, await userinfo(typeof proof === 'string' ? proof : await proof), { kind: 'oauth', allow: [200] }),
    );
  });
});
