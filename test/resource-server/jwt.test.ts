import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClock } from '../support/clock.js';
import {
  type AuthorizationServer,
  type Realm,
  TOKEN_EXCHANGE,
  call,
  challenge,
  createRealm,
  revoke,
  serviceToken,
  sleep,
  startApi,
  startAuthorizationServer,
  tokens,
} from './support.js';
import { freePort } from '../support/app.js';
import { createUser } from '../support/users.js';

/** JWT access tokens (RFC 9068, the realm's `stateless_tokens`) verified offline by the plugin. */
describe('resource server: JWT access tokens', () => {
  let as: AuthorizationServer & { clock: TestClock };
  let realm: Realm;
  let api: FastifyInstance;

  beforeAll(async () => {
    as = await startAuthorizationServer({ clock: true });
    realm = await createRealm(as, { stateless_tokens: true });
    api = await startApi({ issuer: realm.issuer });
  });
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  const expectRefused = (response: Awaited<ReturnType<typeof call>>, description: RegExp) => {
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(description) });
    expect(challenge(response)).toMatchObject({ realm: realm.issuer, error: 'invalid_token' });
  };

  it('accepts a token with the scope the route needs, and puts its claims on the request', async () => {
    const token = await serviceToken(as, realm);
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
    const response = await call(api, token);
    expect(response.statusCode).toBe(200);
    expect(response.json().token).toMatchObject({
      iss: realm.issuer,
      aud: realm.issuer,
      sub: realm.service.clientId,
      client_id: realm.service.clientId,
      scope: 'orders:read orders:write',
      jti: expect.any(String),
    });
    expect((await call(api, token, '/orders', 'POST')).statusCode).toBe(200);
  });

  it('answers 403 insufficient_scope, naming the scope needed, to a token without it', async () => {
    const token = await serviceToken(as, realm, realm.reader);
    expect((await call(api, token)).statusCode).toBe(200);
    const response = await call(api, token, '/orders', 'POST');
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'insufficient_scope', error_description: expect.stringContaining('orders:write') });
    expect(challenge(response)).toMatchObject({ realm: realm.issuer, error: 'insufficient_scope', scope: 'orders:write' });
  });

  it('refuses an expired token, with a few seconds of clock tolerance by default', async () => {
    const brief = await createRealm(as, { stateless_tokens: true, access_token_lifetime: 2 });
    const strict = await startApi({ issuer: brief.issuer, clockTolerance: 0 });
    const tolerant = await startApi({ issuer: brief.issuer });
    try {
      const token = await serviceToken(as, brief);
      expect((await call(strict, token)).statusCode).toBe(200);
      await as.clock.advanceTo(decodeJwt(token).exp!, 50);
      const response = await call(strict, token);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'the token has expired' });
      expect((await call(tolerant, token)).statusCode).toBe(200);
    } finally {
      await strict.close();
      await tolerant.close();
    }
  });

  it("refuses another realm's token: its key is not in this realm's key set, and its issuer is not this realm", async () => {
    const other = await createRealm(as, { stateless_tokens: true });
    const token = await serviceToken(as, other);
    expectRefused(await call(api, token), /key the issuer does not publish/);
    // Even verified with the other realm's keys, the issuer is checked.
    const sharedKeys = await startApi({ issuer: realm.issuer, jwksUri: `${other.issuer}/connect/jwk_uri` });
    try {
      expect((await call(sharedKeys, token)).json().error_description).toBe('the token is from another issuer');
    } finally {
      await sharedKeys.close();
    }
  });

  it('checks the audience: the issuer by default, else the configured ones (a token exchanged for them, RFC 8693)', async () => {
    const person = await tokens(as, realm, realm.app, { grant_type: 'password', username: realm.alice.username, password: realm.alice.password, scope: 'orders:read' });
    const exchanged = await tokens(as, realm, realm.app, {
      grant_type: TOKEN_EXCHANGE,
      subject_token: person.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'orders-api',
    });
    const ordersApi = await startApi({ issuer: realm.issuer, audience: 'orders-api' });
    const either = await startApi({ issuer: realm.issuer, audience: ['orders-api', realm.issuer] });
    try {
      expect((await call(ordersApi, exchanged.access_token)).json().token).toMatchObject({ aud: 'orders-api', sub: realm.alice.sub });
      expectRefused(await call(api, exchanged.access_token), /not meant for this API/);
      expect((await call(ordersApi, person.access_token)).json().error_description).toMatch(/not meant for this API/);
      expect((await call(either, exchanged.access_token)).statusCode).toBe(200);
      expect((await call(either, person.access_token)).statusCode).toBe(200);
    } finally {
      await ordersApi.close();
      await either.close();
    }
  });

  it('refuses an ID token (typ is not at+jwt) and, without introspection, an opaque refresh token', async () => {
    const issued = await tokens(as, realm, realm.app, {
      grant_type: 'password',
      username: realm.alice.username,
      password: realm.alice.password,
      scope: 'openid orders:read',
    });
    expect((await call(api, issued.access_token)).statusCode).toBe(200);
    expectRefused(await call(api, issued.id_token!), /not an access token/);
    expectRefused(await call(api, issued.refresh_token!), /not a JWT access token/);
  });

  it('refuses a token whose signature does not verify, and anything that only looks like a JWT', async () => {
    const token = await serviceToken(as, realm);
    const [header, payload] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), scope: 'orders:read orders:write admin' }));
    expectRefused(await call(api, `${header}.${forged.toString('base64url')}.${token.split('.')[2]}`), /signature/);
    expectRefused(await call(api, 'aaa.bbb.ccc'), /not a valid signed JWT/);
  });

  it('fetches the key set again for the unknown kid of a rotated key, at most once per cooldown', async () => {
    const rotating = await createRealm(as, { stateless_tokens: true });
    const eager = await startApi({ issuer: rotating.issuer, jwks: { cooldown: 0 } });
    const patient = await startApi({ issuer: rotating.issuer, jwks: { cooldown: 60 } });
    try {
      const before = await serviceToken(as, rotating);
      expect((await call(eager, before)).statusCode).toBe(200);
      expect((await call(patient, before)).statusCode).toBe(200);
      const rotated = await as.admin.request('POST', `/realms/${rotating.name}/keys/rotate`);
      expect(rotated.statusCode).toBe(200);
      const after = await serviceToken(as, rotating);
      expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
      expect((await call(eager, after)).statusCode).toBe(200);
      expect((await call(eager, before)).statusCode).toBe(200); // the retired key is still published
      // Within the cooldown of its last fetch, an unknown kid does not make the API fetch again.
      expect((await call(patient, after)).json().error_description).toMatch(/key the issuer does not publish/);
    } finally {
      await eager.close();
      await patient.close();
    }
  });

  it('answers 503 while the key set cannot be read, and verifies once it can', async () => {
    const token = await serviceToken(as, realm);
    const port = await freePort(); // nothing listens there
    const unreachable = await startApi({ issuer: realm.issuer, jwksUri: `http://127.0.0.1:${port}/jwks`, timeout: 1 });
    try {
      const response = await call(unreachable, token);
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
      // The key set comes up (here, a copy of the realm's): the failure was not kept.
      const keys = await (await fetch(`${realm.issuer}/connect/jwk_uri`)).text();
      const jwks = createServer((_request, reply) => reply.writeHead(200, { 'content-type': 'application/json' }).end(keys));
      await new Promise<void>((resolve) => jwks.listen(port, '127.0.0.1', resolve));
      try {
        expect((await call(unreachable, token)).statusCode).toBe(200);
      } finally {
        await new Promise((resolve) => jwks.close(resolve));
      }
    } finally {
      await unreachable.close();
    }
  });

  it('cannot see a revoked JWT offline (valid until its exp); with introspectJwts it is refused once the cache entry expires', async () => {
    const careful = await startApi({
      issuer: realm.issuer,
      introspection: { clientId: realm.api.clientId, clientSecret: realm.api.secret, introspectJwts: true, cacheTtl: 0.5 },
    });
    try {
      const token = await serviceToken(as, realm);
      expect((await call(api, token)).statusCode).toBe(200);
      expect((await call(careful, token)).statusCode).toBe(200);
      await revoke(as, realm, realm.service, token);
      expect((await call(api, token)).statusCode).toBe(200);
      await sleep(600);
      expect((await call(careful, token)).json()).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(/not active/) });
      expect((await call(api, token)).statusCode).toBe(200);
    } finally {
      await careful.close();
    }
  });

  it("with introspectJwts, refuses a person's JWT issued before their password changed, even of a grant that stored nothing (CONTRACT.md §7)", async () => {
    const careful = await startApi({
      issuer: realm.issuer,
      introspection: { clientId: realm.api.clientId, clientSecret: realm.api.secret, introspectJwts: true, cacheTtl: 0.5 },
    });
    try {
      const created = await as.admin.createClient(realm.name, { grant_types: ['password'], scope: 'orders:read' });
      const passwordOnly = { clientId: created.client_id, secret: created.client_secret as string };
      const bob = await createUser(as.admin, realm.name, `bob-${Date.now()}`);
      const grant = (password: string) => tokens(as, realm, passwordOnly, { grant_type: 'password', username: bob.username, password, scope: 'orders:read' });
      const before = await grant(bob.password);
      expect(before.refresh_token).toBeUndefined();
      const changed = await as.admin.request('PATCH', `/realms/${realm.name}/users/${bob.username}`, { password: 'a-new-password-for-bob-42' });
      expect(changed.statusCode).toBe(200);
      expect((await call(careful, before.access_token)).json()).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(/not active/) });
      // Offline, the plugin cannot know (valid until its exp).
      expect((await call(api, before.access_token)).statusCode).toBe(200);
      const after = await grant('a-new-password-for-bob-42');
      expect((await call(careful, after.access_token)).statusCode).toBe(200);
    } finally {
      await careful.close();
    }
  });
});
