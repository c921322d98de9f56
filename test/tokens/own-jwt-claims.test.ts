import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANT_ID_CLAIM } from '../../src/records/jwt-claims.js';
import { RealmSigner } from '../../src/tokens/signer.js';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, introspect, realmPath } from '../support/oauth.js';

/**
 * The claim checks of a JWT access token signed with the realm's own current key: the
 * signature verifies, so only the checks of its header and claims stand between a token the
 * realm would never mint and `active: true` (CONTRACT.md §5–6, RFC 9068 §4, RFC 7519 §4.1).
 */
describe('JWT access tokens signed by the realm itself, with claims it would not mint', () => {
  let t: TestApp;
  let svc: ServiceClient;
  const issuer = `${BASE_URL}${realmPath('own')}`;

  const active = async (token: string) => (await introspect(t.app, 'own', svc, token)).json() as { active: boolean };
  const now = () => Math.floor(Date.now() / 1000);
  const claimsOf = (overrides: Record<string, unknown>) => ({
    iss: issuer,
    sub: svc.clientId,
    aud: issuer,
    iat: now(),
    exp: now() + 600,
    jti: `test-${Math.random().toString(36).slice(2)}`,
    client_id: svc.clientId,
    scope: '',
    [GRANT_ID_CLAIM]: crypto.randomUUID(),
    ...overrides,
  });
  const signed = (claims: Record<string, unknown>, alg: 'ES256' | 'RS256' = 'ES256', typ = 'at+jwt') =>
    new RealmSigner(t.store.signingKeys, t.encryption).sign('own', alg, claims, typ);

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('own', { stateless_tokens: true });
    svc = await t.admin.serviceClient('own');
  });
  afterAll(() => t.close());

  it('takes a token with every claim the realm mints, by either of its keys', async () => {
    expect(await active(await signed(claimsOf({})))).toMatchObject({ active: true, client_id: svc.clientId });
    expect(await active(await signed(claimsOf({}), 'RS256'))).toMatchObject({ active: true });
    // A minted one reads the same, and says its times as it was signed.
    const minted = await accessToken(t.app, 'own', svc);
    const claims = decodeJwt(minted);
    expect(await active(minted)).toMatchObject({ active: true, iat: claims.iat, exp: claims.exp });
  });

  it('refuses each claim the realm would not mint: issuer, times, required claims', async () => {
    const refused: Array<[string, Record<string, unknown>]> = [
      ['another issuer', { iss: `${issuer}x` }],
      ['no issuer', { iss: undefined }],
      ['expired this second', { exp: now() }],
      ['expired', { exp: now() - 60, iat: now() - 120 }],
      ['no exp', { exp: undefined }],
      ['exp as a string', { exp: String(now() + 600) }],
      ['no iat', { iat: undefined }],
      ['iat as a string', { iat: String(now()) }],
      ['not yet valid (nbf)', { nbf: now() + 60 }],
      ['nbf as a string', { nbf: String(now() - 60) }],
      ['no jti', { jti: undefined }],
      ['no sub', { sub: undefined }],
      ['no client_id', { client_id: undefined }],
      ['no grant id', { [GRANT_ID_CLAIM]: undefined }],
    ];
    for (const [why, overrides] of refused) {
      expect({ why, answer: await active(await signed(claimsOf(overrides))) }).toEqual({ why, answer: { active: false } });
    }
    // A past nbf is fine.
    expect(await active(await signed(claimsOf({ nbf: now() - 60 })))).toMatchObject({ active: true });
  });

  it("refuses another typ, a header alg other than its key's, and a payload that is no JSON object", async () => {
    expect(await active(await signed(claimsOf({}), 'ES256', 'JWT'))).toEqual({ active: false });
    const token = await signed(claimsOf({}));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const rsHeader = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(token), alg: 'RS256' })).toString('base64url');
    const critHeader = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(token), crit: ['b64'], b64: false })).toString('base64url');
    for (const forged of [`${rsHeader}.${payload}.${signature}`, `${critHeader}.${payload}.${signature}`, `${header}.${payload}.${signature}=`, `${header}..${signature}`]) {
      expect(await active(forged)).toEqual({ active: false });
    }
    // Signed by the realm, but an array rather than a claims set.
    const arrayPayload = await new RealmSigner(t.store.signingKeys, t.encryption).sign('own', 'ES256', [claimsOf({})] as unknown as Record<string, unknown>, 'at+jwt');
    expect(await active(arrayPayload)).toEqual({ active: false });
  });
});
