import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { type ServiceClient, introspect } from '../support/oauth.js';
import { type TestUser, createUser, tokenRequest } from '../support/users.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const IDP = 'https://idp.example';
const now = () => Math.floor(Date.now() / 1000);

describe('JWT bearer assertion grant (RFC 7523)', () => {
  let t: TestApp;
  let realm: string;
  let idpKey: KeyPair;
  let client: ServiceClient;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t);
    await t.admin.putScope(realm, 'orders:read');
    await t.admin.putScope(realm, 'orders:write');
    idpKey = await keyPair('ES256');
    const created = await t.admin.createClient(realm, {
      grant_types: [JWT_BEARER],
      scope: 'orders:read orders:write',
      introspect_any_token: true,
    });
    client = { clientId: created.client_id, secret: created.client_secret! };
    const trusted = await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, { kind: 'jwt', issuer: IDP, jwks: { keys: [idpKey.publicJwk] } });
    expect(trusted.statusCode).toBe(201);
    alice = await createUser(t.admin, realm, 'alice', { claims: { email: 'alice@example.com' } });
  });
  afterAll(async () => {
    await t.close();
  });

  /** An assertion of the trusted IdP for alice, which `claims` change (undefined removes a claim). */
  function assertion(claims: Record<string, unknown> = {}, key: KeyPair = idpKey, alg = key.alg): Promise<string> {
    const all: Record<string, unknown> = {
      iss: IDP,
      sub: 'alice',
      aud: issuerOf(realm),
      exp: now() + 300,
      iat: now(),
      jti: randomUUID(),
      ...claims,
    };
    for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
    return new SignJWT(all).setProtectedHeader({ alg, kid: key.kid }).sign(key.privateKey);
  }

  const grant = (jwt: string, extra: Record<string, string> = {}, by: ServiceClient = client) =>
    tokenRequest(t.app, realm, by, { grant_type: JWT_BEARER, assertion: jwt, ...extra });

  async function expectRefused(response: LightMyRequestResponse, error = 'invalid_grant') {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toMatchObject({ error });
  }

  it('gives an access token for the person the trusted issuer names, and nothing else', async () => {
    const response = await grant(await assertion(), { scope: 'orders:read' });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'orders:read' });
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
    const described = (await introspect(t.app, realm, client, body.access_token as string)).json();
    expect(described).toMatchObject({ active: true, sub: alice.sub, username: 'alice', client_id: client.clientId, scope: 'orders:read' });
  });

  it('accepts the token endpoint URL as the audience, and the whole client scope by default', async () => {
    const response = await grant(await assertion({ aud: `${issuerOf(realm)}/access_token` }));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ scope: 'orders:read orders:write' });
  });

  it('refuses an aud array, even one naming only this realm (CONTRACT.md §7, audience injection)', async () => {
    for (const aud of [[`${issuerOf(realm)}/access_token`, 'https://other.example'], [issuerOf(realm)]]) {
      await expectRefused(await grant(await assertion({ aud })));
    }
  });

  it('maps the subject by email or by id when the trusted issuer says so', async () => {
    for (const [mapping, sub] of [['email', 'alice@example.com'], ['id', alice.sub]] as const) {
      const issuer = `https://${mapping}.idp.example`;
      await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, { kind: 'jwt', issuer, jwks: { keys: [idpKey.publicJwk] }, subject_mapping: mapping });
      const response = await grant(await assertion({ iss: issuer, sub }));
      expect(response.statusCode, response.body).toBe(200);
      const described = (await introspect(t.app, realm, client, (response.json() as { access_token: string }).access_token)).json();
      expect(described).toMatchObject({ sub: alice.sub });
    }
  });

  it('refuses an issuer the realm does not trust, and a key that is not the issuer\'s', async () => {
    await expectRefused(await grant(await assertion({ iss: 'https://evil.example' })));
    const stranger = await keyPair('ES256', idpKey.kid);
    await expectRefused(await grant(await assertion({}, stranger)));
  });

  it('refuses an assertion tampered with after signing', async () => {
    const [header, payload, signature] = (await assertion()).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'bob' })).toString('base64url');
    await expectRefused(await grant(`${header}.${forged}.${signature}`));
  });

  it('refuses alg none and HMAC', async () => {
    const unsecured = new UnsecuredJWT({ iss: IDP, sub: 'alice', aud: issuerOf(realm), exp: now() + 300, jti: randomUUID() }).encode();
    await expectRefused(await grant(unsecured));
    const hmac = await new SignJWT({ iss: IDP, sub: 'alice', aud: issuerOf(realm), exp: now() + 300, jti: randomUUID() })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
    await expectRefused(await grant(hmac));
  });

  it('refuses a wrong audience, and a missing one', async () => {
    await expectRefused(await grant(await assertion({ aud: 'https://auth.test/oauth2/elsewhere' })));
    await expectRefused(await grant(await assertion({ aud: undefined })));
  });

  it('refuses an expired assertion, one without exp, and one that lives more than an hour', async () => {
    await expectRefused(await grant(await assertion({ exp: now() - 120, iat: now() - 600 })));
    await expectRefused(await grant(await assertion({ exp: undefined })));
    await expectRefused(await grant(await assertion({ exp: now() + 2 * 3600 })));
  });

  it('refuses nbf and iat in the future', async () => {
    await expectRefused(await grant(await assertion({ nbf: now() + 600 })));
    await expectRefused(await grant(await assertion({ iat: now() + 600 })));
  });

  it('refuses an assertion without jti or sub, and a subject that is no user', async () => {
    await expectRefused(await grant(await assertion({ jti: undefined })));
    await expectRefused(await grant(await assertion({ sub: undefined })));
    await expectRefused(await grant(await assertion({ sub: 'nobody' })));
  });

  it('accepts an assertion once: a replay, even concurrent, is refused', async () => {
    const jwt = await assertion();
    expect((await grant(jwt)).statusCode).toBe(200);
    await expectRefused(await grant(jwt));
    const once = await assertion();
    const answers = await Promise.all([grant(once), grant(once), grant(once)]);
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
  });

  it('does not spend the jti of a refused assertion', async () => {
    const jti = randomUUID();
    await expectRefused(await grant(await assertion({ jti, sub: 'nobody' })));
    expect((await grant(await assertion({ jti }))).statusCode).toBe(200);
  });

  it('accepts the issuer\'s assertions only from the clients it names', async () => {
    const issuer = 'https://picky.idp.example';
    await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, { kind: 'jwt', issuer, jwks: { keys: [idpKey.publicJwk] }, client_ids: ['someone-else'] });
    await expectRefused(await grant(await assertion({ iss: issuer })));
  });

  it('refuses a scope beyond the client\'s, a missing assertion, and a client without the grant', async () => {
    await expectRefused(await grant(await assertion(), { scope: 'admin' }), 'invalid_scope');
    await expectRefused(await tokenRequest(t.app, realm, client, { grant_type: JWT_BEARER }), 'invalid_request');
    const other = await t.admin.serviceClient(realm, 'orders:read');
    await expectRefused(await grant(await assertion(), {}, other), 'unauthorized_client');
  });

  it('honours a change of the trusted issuer at once: keys replaced, then the issuer removed', async () => {
    const issuer = 'https://changing.idp.example';
    const created = await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, { kind: 'jwt', issuer, jwks: { keys: [idpKey.publicJwk] } });
    const url = `/realms/${realm}/trusted-issuers/${(created.json() as { id: string }).id}`;
    expect((await grant(await assertion({ iss: issuer }))).statusCode).toBe(200);
    const next = await keyPair('ES256');
    expect((await t.admin.request('PATCH', url, { jwks: { keys: [next.publicJwk] } })).statusCode).toBe(200);
    await expectRefused(await grant(await assertion({ iss: issuer })));
    expect((await grant(await assertion({ iss: issuer }, next))).statusCode).toBe(200);
    expect((await t.admin.request('DELETE', url)).statusCode).toBe(204);
    await expectRefused(await grant(await assertion({ iss: issuer }, next)));
  });

  it('writes no token for a refused assertion', async () => {
    const before = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE realm = $1', [realm]);
    await expectRefused(await grant(await assertion({ aud: 'https://wrong.example' })));
    const after = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE realm = $1', [realm]);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});
