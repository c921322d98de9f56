import { type KeyObject, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { type JWK, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { DpopKey } from '../support/dpop.js';
import { freshRealm } from '../support/flow-helpers.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';

/**
 * A client-credentials request spends its DPoP proof's jti in the statement that writes its
 * token (src/store/tokens.ts insertAllSpending): once, whatever arrives at the same moment, and
 * only with a token written. Opaque tokens (a row) and stateless JWTs (their audit event alone)
 * alike. Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL.
 */
describe('DPoP jti spent with the token (RFC 9449 §11.1)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function realmWith(settings: Record<string, unknown>) {
    const realm = await freshRealm(t, { ...NO_RATE_LIMITS, ...settings });
    const service = await t.admin.serviceClient(realm, 'api');
    const url = `${BASE_URL}${realmPath(realm)}/access_token`;
    const request = (dpop: string, client: ServiceClient = service, scope = 'api') =>
      postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials', scope }, {
        authorization: basic(client.clientId, client.secret),
        dpop,
      });
    const count = async (sql: string) => (await t.store.db.query<{ n: number }>(sql, [realm])).rows[0]!.n;
    const issued = async () => {
      await t.audit.flush();
      return {
        tokens: await count('SELECT count(*)::int AS n FROM tokens WHERE realm = $1'),
        events: await count("SELECT count(*)::int AS n FROM audit_events WHERE realm = $1 AND type = 'token.issued'"),
      };
    };
    return { realm, service, url, request, issued };
  }

  for (const stateless of [false, true]) {
    describe(stateless ? 'stateless (JWT) access tokens' : 'opaque access tokens', () => {
      let r: Awaited<ReturnType<typeof realmWith>>;
      beforeAll(async () => {
        r = await realmWith({ stateless_tokens: stateless });
      });

      it('refuses a replay, and writes nothing for it: no token, no event', async () => {
        const key = await DpopKey.generate();
        const proof = await key.proof('POST', r.url);
        const first = await r.request(proof);
        expect(first.statusCode, first.body).toBe(200);
        expect(first.json().token_type).toBe('DPoP');
        const before = await r.issued();
        const replay = await r.request(proof);
        expect(replay.statusCode).toBe(400);
        expect(replay.json()).toEqual({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(/used before/) });
        expect(await r.issued()).toEqual(before);
      });

      it('of 20 requests with one proof at once, exactly one gets a token', async () => {
        const key = await DpopKey.generate();
        const proof = await key.proof('POST', r.url);
        const before = await r.issued();
        const answers = await Promise.all(Array.from({ length: 20 }, () => r.request(proof)));
        const statuses = answers.map((answer) => answer.statusCode);
        expect(statuses.filter((status) => status === 200), answers.map((answer) => answer.body).join('\n')).toHaveLength(1);
        expect(statuses.filter((status) => status === 400)).toHaveLength(19);
        for (const answer of answers.filter((a) => a.statusCode === 400)) expect(answer.json().error).toBe('invalid_dpop_proof');
        const after = await r.issued();
        expect(after.tokens - before.tokens).toBe(stateless ? 0 : 1);
        expect(after.events - before.events).toBe(1);
      });

      it('20 different proofs of one key at once all get tokens: a batch spends each jti on its own', async () => {
        const key = await DpopKey.generate();
        const proofs = await Promise.all(Array.from({ length: 20 }, () => key.proof('POST', r.url)));
        const answers = await Promise.all(proofs.map((proof) => r.request(proof)));
        expect(answers.map((answer) => answer.statusCode)).toEqual(Array(20).fill(200));
        const again = await Promise.all(proofs.map((proof) => r.request(proof)));
        expect(again.map((answer) => answer.statusCode)).toEqual(Array(20).fill(400));
      });

      it('a proof whose request the grant refuses is not spent: the same proof then gets a token', async () => {
        const key = await DpopKey.generate();
        const proof = await key.proof('POST', r.url);
        const refused = await r.request(proof, r.service, 'not-the-clients-scope');
        expect(refused.statusCode).toBe(400);
        expect(refused.json().error).toBe('invalid_scope');
        const accepted = await r.request(proof);
        expect(accepted.statusCode, accepted.body).toBe(200);
        expect(accepted.json().token_type).toBe('DPoP');
      });
    });
  }

  describe('the key cache never stands in for a check of the proof', () => {
    let r: Awaited<ReturnType<typeof realmWith>>;
    const refusedAs = async (proof: string, description: RegExp) => {
      const response = await r.request(proof);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(description) });
    };
    beforeAll(async () => {
      r = await realmWith({});
    });

    it('a cached key does not verify a signature of another key', async () => {
      const key = await DpopKey.generate();
      const other = await DpopKey.generate();
      expect((await r.request(await key.proof('POST', r.url))).statusCode).toBe(200); // key is cached now
      await refusedAs(await other.proof('POST', r.url, { header: { jwk: key.publicJwk } }), /signature does not verify/);
    });

    it('a jwk whose alg, use or key_ops disagree with the signature', async () => {
      const key = await DpopKey.generate();
      expect((await r.request(await key.proof('POST', r.url))).statusCode).toBe(200);
      for (const extra of [{ alg: 'ES384' }, { use: 'enc' }, { key_ops: ['encrypt'] }, { key_ops: 'verify' }]) {
        await refusedAs(await key.proof('POST', r.url, { header: { jwk: { ...key.publicJwk, ...extra } } }), /not a key for this signature/);
      }
      const declared = await key.proof('POST', r.url, { header: { jwk: { ...key.publicJwk, alg: 'ES256', use: 'sig', key_ops: ['verify'] } } });
      expect((await r.request(declared)).statusCode).toBe(200);
    });

    it('critical header parameters (crit): b64 false, or an extension it does not know', async () => {
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = (await exportJWK(key.publicKey)) as JWK;
      expect((await r.request(signedAs(key.privateKey, 'ES256', jwk, r.url))).statusCode).toBe(200);
      await refusedAs(signedAs(key.privateKey, 'ES256', jwk, r.url, { crit: ['b64'], b64: false }), /crit/);
      await refusedAs(signedAs(key.privateKey, 'ES256', jwk, r.url, { crit: ['urn:example:ext'], 'urn:example:ext': 1 }), /crit/);
    });

    it('a key of another curve than the alg names, and an RSA key under 2048 bits, though the signature is good', async () => {
      const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
      await refusedAs(signedAs(p384.privateKey, 'ES256', (await exportJWK(p384.publicKey)) as JWK, r.url), /signature does not verify/);
      const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
      await refusedAs(signedAs(small.privateKey, 'RS256', (await exportJWK(small.publicKey)) as JWK, r.url), /signature does not verify/);
    });
  });
});

/** A proof for `url` that `privateKey` signs with SHA-256 (ECDSA in JWS form, or PKCS #1), labelled `alg`, naming `publicJwk`, with more `header`. */
function signedAs(privateKey: KeyObject, alg: string, publicJwk: JWK, url: string, header: Record<string, unknown> = {}): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ typ: 'dpop+jwt', alg, jwk: publicJwk, ...header })}.${encode({ jti: randomUUID(), htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000) })}`;
  const signature = sign('sha256', Buffer.from(input), privateKey.asymmetricKeyType === 'ec' ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey);
  return `${input}.${signature.toString('base64url')}`;
}
