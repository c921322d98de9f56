import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, introspect } from '../support/oauth.js';
import { createUser, passwordTokens, verifyIdToken } from '../support/users.js';

const ISSUER = `${BASE_URL}/oauth2/keys`;
const JWKS_URL = '/oauth2/keys/connect/jwk_uri';

/** Key rotation (CONTRACT.md §5): a new key signs at once; what the old one signed keeps verifying. */
describe('signing key rotation', () => {
  let t: TestApp;
  let svc: ServiceClient;

  const jwks = async () => (await t.app.inject({ method: 'GET', url: JWKS_URL })).json() as { keys: Array<{ kid: string; alg: string }> };
  const rotate = async () => {
    const response = await t.admin.request('POST', '/realms/keys/keys/rotate');
    expect(response.statusCode).toBe(200);
    return response.json().keys as Array<{ kid: string; alg: string }>;
  };
  const verify = async (token: string) =>
    jwtVerify(token, createLocalJWKSet(await jwks()), { issuer: ISSUER, audience: ISSUER, typ: 'at+jwt', algorithms: ['ES256'] });

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('keys', { stateless_tokens: true, access_token_lifetime: 600 });
    svc = await t.admin.serviceClient('keys', 'api');
  });
  afterAll(() => t.close());

  it('signs with the new key at once, and keeps tokens of the old one valid while it stays published', async () => {
    const before = await accessToken(t.app, 'keys', svc);
    const oldKid = decodeProtectedHeader(before).kid!;
    expect((await jwks()).keys.map((key) => key.kid)).toContain(oldKid);

    const rotated = await rotate();
    const newKid = rotated.find((key) => key.alg === 'ES256')!.kid;
    expect(newKid).not.toBe(oldKid);

    // The instance that rotated signs with the new key from now on.
    const after = await accessToken(t.app, 'keys', svc);
    expect(decodeProtectedHeader(after).kid).toBe(newKid);

    const published = (await jwks()).keys;
    expect(published.map((key) => key.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(published).toHaveLength(4); // RS256 and ES256, current and previous

    for (const token of [before, after]) {
      expect((await verify(token)).payload.client_id).toBe(svc.clientId);
      expect((await introspect(t.app, 'keys', svc, token)).json()).toMatchObject({ active: true });
    }

    // A second rotation: the first key is still published (its tokens may live), and still verifies.
    await rotate();
    expect((await jwks()).keys).toHaveLength(6);
    expect((await introspect(t.app, 'keys', svc, before)).json()).toMatchObject({ active: true });
  });

  it('rotates the ID token keys too: ID tokens name the new RS256 key and verify', async () => {
    const created = await t.admin.createClient('keys', { grant_types: ['password'], scope: 'openid' });
    const client = { clientId: created.client_id, secret: created.client_secret as string };
    const user = await createUser(t.admin, 'keys', 'rita');
    const [rs256] = (await rotate()).filter((key) => key.alg === 'RS256');
    const tokens = await passwordTokens(t.app, 'keys', client, user, 'openid');
    expect(decodeProtectedHeader(tokens.id_token!)).toMatchObject({ alg: 'RS256', kid: rs256!.kid });
    await verifyIdToken(t.app, 'keys', tokens.id_token!, { issuer: ISSUER, audience: client.clientId });
  });

  it('retires a key once every token it signed has expired: the key leaves the key set and its tokens fail', async () => {
    await t.admin.createRealm('retire', { stateless_tokens: true, access_token_lifetime: 600 });
    const client = await t.admin.serviceClient('retire');
    const token = await accessToken(t.app, 'retire', client);
    const kid = decodeProtectedHeader(token).kid!;
    await t.admin.request('POST', '/realms/retire/keys/rotate');
    const url = '/oauth2/retire/connect/jwk_uri';
    expect((await t.app.inject({ method: 'GET', url })).json().keys.map((key: { kid: string }) => key.kid)).toContain(kid);
    const kept = await t.store.db.query<{ seconds: number }>(
      'SELECT extract(epoch FROM expires_at - retired_at)::int AS seconds FROM signing_keys WHERE realm = $1 AND kid = $2',
      ['retire', kid],
    );
    expect(kept.rows[0]!.seconds).toBe(600 + 300); // the access token lifetime, plus clock skew
    // Introspected while its key is published: an instance that verified it once must not go on trusting it after.
    expect((await introspect(t.app, 'retire', client, token)).json()).toMatchObject({ active: true });

    // As if that time had passed; a rotation (here a second one) makes instances read the keys again.
    await t.store.db.query("UPDATE signing_keys SET expires_at = now() - interval '1 second' WHERE realm = $1 AND kid = $2", ['retire', kid]);
    await t.admin.request('POST', '/realms/retire/keys/rotate');
    expect((await t.app.inject({ method: 'GET', url })).json().keys.map((key: { kid: string }) => key.kid)).not.toContain(kid);
    expect((await introspect(t.app, 'retire', client, token)).json()).toEqual({ active: false });
  });

  it('sends cache headers that make verifiers refetch: a short max-age and an ETag that changes with the keys', async () => {
    const first = await t.app.inject({ method: 'GET', url: JWKS_URL });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers['content-type']).toMatch(/^application\/json/);

    const unchanged = await t.app.inject({ method: 'GET', url: JWKS_URL, headers: { 'if-none-match': etag } });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    expect(unchanged.headers.etag).toBe(etag);
    expect((await t.app.inject({ method: 'GET', url: JWKS_URL, headers: { 'if-none-match': `W/${etag}` } })).statusCode).toBe(304);
    expect((await t.app.inject({ method: 'GET', url: JWKS_URL, headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200);

    await rotate();
    const changed = await t.app.inject({ method: 'GET', url: JWKS_URL, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });
});
