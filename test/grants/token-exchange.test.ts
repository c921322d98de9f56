import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { type JWTPayload, SignJWT, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { type ServiceClient, accessToken, introspect, postForm, realmPath, revoke } from '../support/oauth.js';
import { type TestUser, createUser, passwordGrant, tokenRequest } from '../support/users.js';

/** Token exchange (RFC 8693) through the token endpoint, as a client calls it. */

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TYPE = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  refreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  saml2: 'urn:ietf:params:oauth:token-type:saml2',
} as const;

/** The identity systems the realms of these tests trust (kind `jwt`). */
const IDP = 'https://idp.example.com';
const MAIL_IDP = 'https://mail-idp.example.com';
const PARTNER_IDP = 'https://partner.example.com';

/** What the exchanging client may ask for with `audience` or `resource` (CONTRACT.md §5 `allowed_audiences`). */
const EXCHANGER_AUDIENCES = [
  'orders-api',
  'billing-api',
  'https://orders.example.com/',
  'https://orders.example.com/api',
  'urn:example:ledger',
  'https://billing.example.com/',
];

const now = (): number => Math.floor(Date.now() / 1000);

type Form = Record<string, string | string[]>;

/** A realm set up for exchanges, with the people, clients and trusted issuers the tests use. */
interface World {
  realm: string;
  issuer: string;
  alice: TestUser;
  bob: TestUser;
  /**
   * Gets people's tokens (password grant), scope `openid profile a b c`; may name the exchanger
   * in their `aud` (CONTRACT.md §7: only then may the exchanger trade them).
   */
  login: ServiceClient;
  /** Exchanges tokens, scope `openid profile a b`; may introspect any token of the realm. */
  exchanger: ServiceClient;
  /** A service of the client credentials grant, scope `a`: no person behind its tokens; may name the exchanger in `aud`. */
  service: ServiceClient;
  /** A client that does not list the token exchange grant. */
  noGrant: ServiceClient;
  /** The signing key of IDP (username mapping, every client) and MAIL_IDP (email mapping). */
  idpKey: KeyPair;
  /** The signing key of PARTNER_IDP, which admits the login client only. */
  partnerKey: KeyPair;
}

describe('token exchange (RFC 8693)', () => {
  let t: TestApp & { clock: TestClock };

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
  });
  afterAll(() => t.close());

  const client = async (realm: string, record: Record<string, unknown>): Promise<ServiceClient> => {
    const created = await t.admin.createClient(realm, record);
    return { clientId: created.client_id, secret: created.client_secret as string };
  };

  const trustIssuer = async (realm: string, record: Record<string, unknown>) => {
    const response = await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, { kind: 'jwt', ...record });
    if (response.statusCode !== 201) throw new Error(`trusted issuer: ${response.statusCode} ${response.body}`);
  };

  async function world(settings: Record<string, unknown> = {}): Promise<World> {
    const realm = await freshRealm(t, { access_token_lifetime: 600, ...settings });
    for (const name of ['a', 'b', 'c']) await t.admin.putScope(realm, name);
    const alice = await createUser(t.admin, realm, 'alice', { claims: { email: 'alice@example.com', name: 'Alice Liddell' } });
    const bob = await createUser(t.admin, realm, 'bob', { claims: { email: 'bob@example.com' } });
    const exchanger = await client(realm, {
      grant_types: [GRANT],
      scope: 'openid profile a b',
      introspect_any_token: true,
      allowed_audiences: EXCHANGER_AUDIENCES,
    });
    const login = await client(realm, { grant_types: ['password'], scope: 'openid profile a b c', allowed_audiences: [exchanger.clientId] });
    const service = await client(realm, { grant_types: ['client_credentials'], scope: 'a', allowed_audiences: [exchanger.clientId] });
    const noGrant = await client(realm, { grant_types: ['password'], scope: 'openid profile a b' });
    const idpKey = await keyPair('ES256');
    const partnerKey = await keyPair('RS256');
    await trustIssuer(realm, { issuer: IDP, jwks: { keys: [idpKey.publicJwk] } });
    await trustIssuer(realm, { issuer: MAIL_IDP, jwks: { keys: [idpKey.publicJwk] }, subject_mapping: 'email' });
    await trustIssuer(realm, { issuer: PARTNER_IDP, jwks: { keys: [partnerKey.publicJwk] }, client_ids: [login.clientId] });
    return { realm, issuer: issuerOf(realm), alice, bob, login, exchanger, service, noGrant, idpKey, partnerKey };
  }

  /**
   * A JWT of a trusted issuer: IDP's by default, for the realm of `w` (its issuer in `aud`), valid
   * for five minutes; `claims` add or override.
   */
  function externalJwt(w: World, key: KeyPair, claims: JWTPayload, header: { alg?: string; typ?: string } = {}): Promise<string> {
    return new SignJWT({ iss: IDP, aud: w.issuer, iat: now(), exp: now() + 300, ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
      .sign(key.privateKey);
  }

  const exchange = (w: World, form: Form, by: ServiceClient = w.exchanger) => tokenRequest(t.app, w.realm, by, { grant_type: GRANT, ...form });

  /** A person's access token of this realm (password grant, login client), for the exchanger: its `aud` names it. */
  async function personToken(w: World, user: TestUser, scope?: string, audience: string | null = w.exchanger.clientId): Promise<string> {
    const form = { ...(scope === undefined ? {} : { scope }), ...(audience === null ? {} : { audience }) };
    const response = await passwordGrant(t.app, w.realm, w.login, user, form);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { access_token: string }).access_token;
  }

  /** A token of the service (client credentials) for the exchanger: its `aud` names it. */
  async function serviceToken(w: World, scope = 'a'): Promise<string> {
    const response = await tokenRequest(t.app, w.realm, w.service, { grant_type: 'client_credentials', scope, audience: w.exchanger.clientId });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { access_token: string }).access_token;
  }

  /** The form of an exchange of this realm's access token. */
  const ofAccessToken = (token: string, extra: Form = {}): Form => ({ subject_token: token, subject_token_type: TYPE.accessToken, ...extra });

  /** A successful exchange: the RFC 8693 §2.2.1 response, no refresh token, not cached. */
  function issued(response: LightMyRequestResponse, expected: { scope: string; expiresIn?: number }): string {
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: expected.expiresIn ?? 600,
      scope: expected.scope,
      issued_token_type: TYPE.accessToken,
    });
    return (response.json() as { access_token: string }).access_token;
  }

  /** An RFC 6749 §5.2 error. */
  function refused(response: LightMyRequestResponse, error: string, status = 400): void {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toMatchObject({ error, error_description: expect.any(String) });
    expect(response.json().access_token).toBeUndefined();
  }

  /** Introspection by the exchanging client (which may introspect any token of the realm). */
  async function described(w: World, token: string): Promise<Record<string, unknown>> {
    const response = await introspect(t.app, w.realm, w.exchanger, token);
    expect(response.statusCode).toBe(200);
    return response.json() as Record<string, unknown>;
  }

  /** The exchanged token is the person's, for the exchanging client. */
  async function expectPersonToken(w: World, token: string, user: TestUser, scope: string): Promise<Record<string, unknown>> {
    const body = await described(w, token);
    expect(body).toMatchObject({
      active: true,
      scope,
      client_id: w.exchanger.clientId,
      username: user.username,
      sub: user.sub,
      token_type: 'Bearer',
      iss: w.issuer,
      realm: w.realm,
    });
    expect((body.exp as number) - (body.iat as number)).toBe(600);
    return body;
  }

  describe("this realm's opaque access tokens", () => {
    let w: World;
    beforeAll(async () => {
      w = await world();
    });

    it("issues an access token for the subject token's person, with issued_token_type and no refresh token", async () => {
      const subject = await personToken(w, w.alice);
      const token = issued(await exchange(w, ofAccessToken(subject)), { scope: 'openid profile a b' });
      expect(token).not.toBe(subject);
      const body = await expectPersonToken(w, token, w.alice, 'openid profile a b');
      expect(body.act).toBeUndefined();
      expect(body.aud).toBeUndefined();
      // The subject token lives on.
      expect((await described(w, subject)).active).toBe(true);
    });

    it('accepts requested_token_type access_token', async () => {
      const subject = await personToken(w, w.alice, 'a');
      issued(await exchange(w, ofAccessToken(subject, { requested_token_type: TYPE.accessToken })), { scope: 'a' });
    });

    it('refuses any other requested_token_type with invalid_request', async () => {
      const subject = await personToken(w, w.alice, 'a');
      for (const type of [TYPE.refreshToken, TYPE.idToken, TYPE.jwt, TYPE.saml2, 'urn:example:token']) {
        refused(await exchange(w, ofAccessToken(subject, { requested_token_type: type })), 'invalid_request');
      }
    });

    it("defaults to the subject token's scope within the client's", async () => {
      // The subject token has c, which the exchanging client lacks.
      const subject = await personToken(w, w.alice, 'openid a c');
      const token = issued(await exchange(w, ofAccessToken(subject)), { scope: 'openid a' });
      await expectPersonToken(w, token, w.alice, 'openid a');
    });

    it("narrows the subject token's scope", async () => {
      const subject = await personToken(w, w.alice, 'a b');
      const token = issued(await exchange(w, ofAccessToken(subject, { scope: 'a' })), { scope: 'a' });
      await expectPersonToken(w, token, w.alice, 'a');
    });

    it("never widens the subject token's scope, nor goes beyond the client's", async () => {
      const narrow = await personToken(w, w.alice, 'a b');
      refused(await exchange(w, ofAccessToken(narrow, { scope: 'a c' })), 'invalid_scope');
      refused(await exchange(w, ofAccessToken(narrow, { scope: 'openid' })), 'invalid_scope');
      // c is in the subject token but not the exchanging client's scope.
      const wide = await personToken(w, w.alice, 'a c');
      refused(await exchange(w, ofAccessToken(wide, { scope: 'c' })), 'invalid_scope');
      refused(await exchange(w, ofAccessToken(wide, { scope: 'a c' })), 'invalid_scope');
      // An unknown scope is no wider than allowed either.
      refused(await exchange(w, ofAccessToken(wide, { scope: 'a nope' })), 'invalid_scope');
    });

    it('works at /userinfo when the scope has openid', async () => {
      const subject = await personToken(w, w.alice, 'openid profile a');
      const token = issued(await exchange(w, ofAccessToken(subject, { scope: 'openid profile' })), { scope: 'openid profile' });
      const response = await t.app.inject({ method: 'GET', url: `${realmPath(w.realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ sub: w.alice.sub, preferred_username: 'alice', name: 'Alice Liddell' });
    });

    it("exchanges a service's token (client credentials) naming the exchanger, keeping its sub and no username", async () => {
      const subject = await serviceToken(w);
      const token = issued(await exchange(w, ofAccessToken(subject)), { scope: 'a' });
      const body = await described(w, token);
      expect(body).toMatchObject({ active: true, scope: 'a', client_id: w.exchanger.clientId, sub: w.service.clientId, token_type: 'Bearer' });
      expect(body.username).toBeUndefined();
    });

    it('refuses a revoked, unknown or refresh subject token with invalid_request (RFC 8693 §2.2.2)', async () => {
      const subject = await personToken(w, w.alice, 'a');
      expect((await revoke(t.app, w.realm, w.login, subject)).statusCode).toBe(200);
      refused(await exchange(w, ofAccessToken(subject)), 'invalid_request');
      refused(await exchange(w, ofAccessToken(randomBytes(32).toString('base64url'))), 'invalid_request');
      refused(await exchange(w, ofAccessToken('not.a.token')), 'invalid_request');
    });

    it('refuses a refresh token presented as an access token', async () => {
      // Its grant names the exchanger, so that only its kind refuses it.
      const withRefresh = await client(w.realm, { grant_types: ['password', 'refresh_token'], scope: 'a', allowed_audiences: [w.exchanger.clientId] });
      const response = await passwordGrant(t.app, w.realm, withRefresh, w.alice, { audience: w.exchanger.clientId });
      const tokens = response.json() as { refresh_token?: string };
      expect(tokens.refresh_token).toEqual(expect.any(String));
      refused(await exchange(w, ofAccessToken(tokens.refresh_token!)), 'invalid_request');
      refused(await exchange(w, { subject_token: tokens.refresh_token!, subject_token_type: TYPE.refreshToken }), 'invalid_request');
    });

    it("refuses another realm's access token (CONTRACT.md §2)", async () => {
      const other = await world();
      const theirs = await personToken(other, other.alice, 'a');
      refused(await exchange(w, ofAccessToken(theirs)), 'invalid_request');
      // It works in its own realm.
      issued(await exchange(other, ofAccessToken(theirs)), { scope: 'a' });
    });

    it('refuses unsupported or missing subject token types and missing subject tokens with invalid_request', async () => {
      const subject = await personToken(w, w.alice, 'a');
      for (const type of [TYPE.refreshToken, TYPE.saml2, 'urn:ietf:params:oauth:token-type:saml1', 'access_token']) {
        refused(await exchange(w, { subject_token: subject, subject_token_type: type }), 'invalid_request');
      }
      refused(await exchange(w, { subject_token: subject }), 'invalid_request');
      refused(await exchange(w, { subject_token_type: TYPE.accessToken }), 'invalid_request');
      refused(await exchange(w, { subject_token: '', subject_token_type: TYPE.accessToken }), 'invalid_request');
    });

    it("refuses a deleted person's token with invalid_request", async () => {
      const carol = await createUser(t.admin, w.realm, 'carol');
      const subject = await personToken(w, carol, 'a');
      issued(await exchange(w, ofAccessToken(subject)), { scope: 'a' });
      expect((await t.admin.request('DELETE', `/realms/${w.realm}/users/carol`)).statusCode).toBe(204);
      refused(await exchange(w, ofAccessToken(subject)), 'invalid_request');
    });

    it('refuses a repeated subject_token with invalid_request', async () => {
      const subject = await personToken(w, w.alice, 'a');
      refused(await exchange(w, { subject_token: [subject, subject], subject_token_type: TYPE.accessToken }), 'invalid_request');
    });

    it('refuses a client whose record does not list the grant with unauthorized_client', async () => {
      const subject = await personToken(w, w.alice, 'a');
      refused(await exchange(w, ofAccessToken(subject), w.noGrant), 'unauthorized_client');
    });

    it('refuses a client that fails to authenticate with invalid_client', async () => {
      const subject = await personToken(w, w.alice, 'a');
      refused(await exchange(w, ofAccessToken(subject), { ...w.exchanger, secret: 'wrong-secret' }), 'invalid_client', 401);
    });

    it('refuses a public client, even one whose record lists the grant', async () => {
      const created = await t.admin.createClient(w.realm, { client_type: 'public', grant_types: [GRANT], scope: 'a b' });
      const subject = await personToken(w, w.alice, 'a b');
      const response = await postForm(t.app, `${realmPath(w.realm)}/access_token`, {
        grant_type: GRANT,
        client_id: created.client_id,
        ...ofAccessToken(subject, { scope: 'a' }),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'unauthorized_client' });
    });

    describe('actors (RFC 8693 §4.1)', () => {
      it('names the actor in act: a service of this realm, without iss', async () => {
        const subject = await personToken(w, w.alice, 'a b');
        const actor = await serviceToken(w);
        const token = issued(await exchange(w, ofAccessToken(subject, { actor_token: actor, actor_token_type: TYPE.accessToken })), {
          scope: 'a b',
        });
        const body = await expectPersonToken(w, token, w.alice, 'a b');
        expect(body.act).toEqual({ sub: w.service.clientId });
      });

      it('nests the new actor over the subject token\'s act', async () => {
        const subject = await personToken(w, w.alice, 'a b');
        const serviceActor = await serviceToken(w);
        const first = issued(await exchange(w, ofAccessToken(subject, { actor_token: serviceActor, actor_token_type: TYPE.accessToken })), {
          scope: 'a b',
        });
        // Bob acts for Alice, through the service.
        const bobToken = await personToken(w, w.bob, 'a');
        const second = issued(
          await exchange(w, ofAccessToken(first, { scope: 'a', actor_token: bobToken, actor_token_type: TYPE.accessToken })),
          { scope: 'a' },
        );
        const body = await expectPersonToken(w, second, w.alice, 'a');
        expect(body.act).toEqual({ sub: w.bob.sub, act: { sub: w.service.clientId } });
        // Without a new actor, the earlier act carries over.
        const third = issued(await exchange(w, ofAccessToken(second)), { scope: 'a' });
        expect((await described(w, third)).act).toEqual({ sub: w.bob.sub, act: { sub: w.service.clientId } });
      });

      it('names an actor of a trusted issuer with its iss', async () => {
        const subject = await personToken(w, w.alice, 'a');
        const actor = await externalJwt(w, w.idpKey, { sub: 'bob' });
        const token = issued(await exchange(w, ofAccessToken(subject, { actor_token: actor, actor_token_type: TYPE.jwt })), { scope: 'a' });
        expect((await described(w, token)).act).toEqual({ sub: 'bob', iss: IDP });
      });

      it('refuses actor_token without actor_token_type, and the other way round, with invalid_request', async () => {
        const subject = await personToken(w, w.alice, 'a');
        const actor = await serviceToken(w);
        refused(await exchange(w, ofAccessToken(subject, { actor_token: actor })), 'invalid_request');
        refused(await exchange(w, ofAccessToken(subject, { actor_token_type: TYPE.accessToken })), 'invalid_request');
      });

      it("refuses an actor token not meant for the exchanger (not issued to it, its aud not naming it) with invalid_request", async () => {
        const subject = await personToken(w, w.alice, 'a');
        // Tokens the exchanger came across: the service's own, a person's of the login client.
        const notForExchanger = [await accessToken(t.app, w.realm, w.service, 'a'), await personToken(w, w.bob, 'a', null)];
        for (const actor of notForExchanger) {
          const response = await exchange(w, ofAccessToken(subject, { actor_token: actor, actor_token_type: TYPE.accessToken }));
          refused(response, 'invalid_request');
          expect(response.json().error_description).toBe('the actor_token is not accepted: it was not issued to this client, and its aud does not name this client');
        }
        // A trusted issuer's token meant for another realm.
        const elsewhere = await externalJwt(w, w.idpKey, { sub: 'bob', aud: 'https://elsewhere.example.com' });
        refused(await exchange(w, ofAccessToken(subject, { actor_token: elsewhere, actor_token_type: TYPE.jwt })), 'invalid_request');
        // The same service's token naming the exchanger in aud acts.
        const token = issued(await exchange(w, ofAccessToken(subject, { actor_token: await serviceToken(w), actor_token_type: TYPE.accessToken })), { scope: 'a' });
        expect((await described(w, token)).act).toEqual({ sub: w.service.clientId });
      });

      it('refuses an unacceptable actor token with invalid_request', async () => {
        const subject = await personToken(w, w.alice, 'a');
        const actor = await serviceToken(w);
        expect((await revoke(t.app, w.realm, w.service, actor)).statusCode).toBe(200);
        refused(await exchange(w, ofAccessToken(subject, { actor_token: actor, actor_token_type: TYPE.accessToken })), 'invalid_request');
        const fresh = await serviceToken(w);
        refused(await exchange(w, ofAccessToken(subject, { actor_token: fresh, actor_token_type: TYPE.saml2 })), 'invalid_request');
      });
    });

    describe('audience and resource (RFC 8693 §2.1, RFC 8707)', () => {
      it('makes one audience the token\'s aud, as a string', async () => {
        const subject = await personToken(w, w.alice, 'a');
        const token = issued(await exchange(w, ofAccessToken(subject, { audience: 'orders-api' })), { scope: 'a' });
        expect((await described(w, token)).aud).toBe('orders-api');
      });

      it('makes several audiences and resources the token\'s aud, as an array', async () => {
        const subject = await personToken(w, w.alice, 'a');
        const response = await exchange(
          w,
          ofAccessToken(subject, {
            audience: ['orders-api', 'billing-api'],
            resource: ['https://orders.example.com/', 'urn:example:ledger'],
          }),
        );
        const token = issued(response, { scope: 'a' });
        const aud = (await described(w, token)).aud;
        expect(Array.isArray(aud)).toBe(true);
        expect([...(aud as string[])].sort()).toEqual(['billing-api', 'https://orders.example.com/', 'orders-api', 'urn:example:ledger'].sort());
      });

      it('makes one resource the token\'s aud', async () => {
        const subject = await personToken(w, w.alice, 'a');
        const token = issued(await exchange(w, ofAccessToken(subject, { resource: 'https://orders.example.com/api' })), { scope: 'a' });
        expect((await described(w, token)).aud).toBe('https://orders.example.com/api');
      });

      it('refuses a resource that is not an absolute URI, or has a fragment, with invalid_target', async () => {
        const subject = await personToken(w, w.alice, 'a');
        for (const resource of ['orders-api', '/api/orders', 'https://orders.example.com/#part']) {
          refused(await exchange(w, ofAccessToken(subject, { resource })), 'invalid_target');
        }
        refused(await exchange(w, ofAccessToken(subject, { resource: ['https://orders.example.com/', 'relative'] })), 'invalid_target');
      });

      it("refuses an audience or resource beyond the client's allowed_audiences with invalid_target", async () => {
        const subject = await personToken(w, w.alice, 'a');
        refused(await exchange(w, ofAccessToken(subject, { audience: 'payroll-api' })), 'invalid_target');
        refused(await exchange(w, ofAccessToken(subject, { audience: ['orders-api', 'payroll-api'] })), 'invalid_target');
        refused(await exchange(w, ofAccessToken(subject, { resource: 'https://payroll.example.com/' })), 'invalid_target');
        // The refusal spent nothing: the subject token still exchanges.
        issued(await exchange(w, ofAccessToken(subject, { audience: 'orders-api' })), { scope: 'a' });
      });
    });
  });

  describe('JWTs and ID tokens of trusted issuers', () => {
    let w: World;
    beforeAll(async () => {
      w = await world();
    });

    const ofJwt = (token: string, extra: Form = {}, type: string = TYPE.jwt): Form => ({ subject_token: token, subject_token_type: type, ...extra });

    it("exchanges a trusted issuer's JWT for the user its sub names (by username)", async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a b c' });
      // The JWT's scope within the client's.
      const token = issued(await exchange(w, ofJwt(subject)), { scope: 'a b' });
      const body = await expectPersonToken(w, token, w.alice, 'a b');
      expect(body.act).toBeUndefined();
    });

    it("defaults to the client's scope when the JWT has none", async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'alice' });
      const token = issued(await exchange(w, ofJwt(subject)), { scope: 'openid profile a b' });
      await expectPersonToken(w, token, w.alice, 'openid profile a b');
    });

    it("narrows, but never widens, the JWT's scope", async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a' });
      issued(await exchange(w, ofJwt(subject, { scope: 'a' })), { scope: 'a' });
      refused(await exchange(w, ofJwt(subject, { scope: 'a b' })), 'invalid_scope');
    });

    it('exchanges an ID token of a trusted issuer that names this realm among its audiences', async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'bob', aud: ['some-rp', w.issuer], nonce: 'n-1' });
      const token = issued(await exchange(w, ofJwt(subject, { scope: 'openid' }, TYPE.idToken)), { scope: 'openid' });
      await expectPersonToken(w, token, w.bob, 'openid');
      // One meant for its relying party alone is not this realm's to exchange.
      const elsewhere = await externalJwt(w, w.idpKey, { sub: 'bob', aud: 'some-rp', nonce: 'n-1' });
      refused(await exchange(w, ofJwt(elsewhere, { scope: 'openid' }, TYPE.idToken)), 'invalid_request');
    });

    it('maps the subject by email with subject_mapping email', async () => {
      const subject = await new SignJWT({ iss: MAIL_IDP, sub: 'Alice@Example.com', aud: w.issuer, exp: now() + 300 })
        .setProtectedHeader({ alg: w.idpKey.alg, kid: w.idpKey.kid })
        .sign(w.idpKey.privateKey);
      const token = issued(await exchange(w, ofJwt(subject, { scope: 'a' })), { scope: 'a' });
      await expectPersonToken(w, token, w.alice, 'a');
      // A username is no email.
      const byUsername = await new SignJWT({ iss: MAIL_IDP, sub: 'alice', aud: w.issuer, exp: now() + 300 })
        .setProtectedHeader({ alg: w.idpKey.alg, kid: w.idpKey.kid })
        .sign(w.idpKey.privateKey);
      refused(await exchange(w, ofJwt(byUsername)), 'invalid_request');
    });

    it('refuses a JWT whose subject is no user of the realm with invalid_request', async () => {
      refused(await exchange(w, ofJwt(await externalJwt(w, w.idpKey, { sub: 'mallory' }))), 'invalid_request');
      refused(await exchange(w, ofJwt(await externalJwt(w, w.idpKey, { sub: w.alice.sub }))), 'invalid_request'); // an id, not a username
      refused(await exchange(w, ofJwt(await externalJwt(w, w.idpKey, {}))), 'invalid_request'); // no sub
    });

    it('refuses a JWT of an issuer the realm does not trust with invalid_request', async () => {
      const subject = await externalJwt(w, w.idpKey, { iss: 'https://evil.example.com', sub: 'alice' });
      refused(await exchange(w, ofJwt(subject)), 'invalid_request');
      // Nor does another realm's trust carry over.
      const other = await freshRealm(t);
      await createUser(t.admin, other, 'alice');
      const otherExchanger = await client(other, { grant_types: [GRANT], scope: 'openid' });
      refused(
        await tokenRequest(t.app, other, otherExchanger, { grant_type: GRANT, ...ofJwt(await externalJwt(w, w.idpKey, { sub: 'alice', aud: issuerOf(other) })) }),
        'invalid_request',
      );
    });

    it("refuses a JWT signed by a key other than the issuer's with invalid_request", async () => {
      const impostor = await keyPair('ES256', w.idpKey.kid); // the same kid, another key
      refused(await exchange(w, ofJwt(await externalJwt(w, impostor, { sub: 'alice' }))), 'invalid_request');
      const unknownKid = await keyPair('ES256');
      refused(await exchange(w, ofJwt(await externalJwt(w, unknownKid, { sub: 'alice' }))), 'invalid_request');
    });

    it('refuses an expired JWT, and one without exp, with invalid_request', async () => {
      const expired = await externalJwt(w, w.idpKey, { sub: 'alice', iat: now() - 900, exp: now() - 600 });
      refused(await exchange(w, ofJwt(expired)), 'invalid_request');
      const noExp = await new SignJWT({ iss: IDP, sub: 'alice', aud: w.issuer })
        .setProtectedHeader({ alg: w.idpKey.alg, kid: w.idpKey.kid })
        .sign(w.idpKey.privateKey);
      refused(await exchange(w, ofJwt(noExp)), 'invalid_request');
    });

    it('refuses alg none and HS256 with invalid_request', async () => {
      const claims = { iss: IDP, sub: 'alice', aud: w.issuer, iat: now(), exp: now() + 300 };
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const unsecured = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
      refused(await exchange(w, ofJwt(unsecured)), 'invalid_request');
      // HMAC keyed with the issuer's public key material, the classic confusion (RFC 8725 §2.1).
      const secret = new TextEncoder().encode(JSON.stringify(w.idpKey.publicJwk));
      const hmac = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: w.idpKey.kid }).sign(secret);
      refused(await exchange(w, ofJwt(hmac)), 'invalid_request');
      refused(await exchange(w, ofJwt('not-a-jwt')), 'invalid_request');
    });

    it("refuses a client not among the issuer's client_ids with invalid_request", async () => {
      const subject = await externalJwt(w, w.partnerKey, { iss: PARTNER_IDP, sub: 'alice' });
      refused(await exchange(w, ofJwt(subject)), 'invalid_request');
      // The login client is admitted; given the grant, it may exchange the same JWT.
      const response = await t.admin.request('PATCH', `/realms/${w.realm}/clients/${w.login.clientId}`, { grant_types: ['password', GRANT] });
      expect(response.statusCode, response.body).toBe(200);
      issued(await exchange(w, ofJwt(subject, { scope: 'a' }), w.login), { scope: 'a' });
    });

    it("carries the JWT's act over, and nests a new actor over it", async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', act: { sub: 'gateway', iss: IDP } });
      const carried = issued(await exchange(w, ofJwt(subject)), { scope: 'a' });
      expect((await described(w, carried)).act).toEqual({ sub: 'gateway', iss: IDP });
      const actor = await serviceToken(w);
      const nested = issued(await exchange(w, ofJwt(subject, { actor_token: actor, actor_token_type: TYPE.accessToken })), { scope: 'a' });
      expect((await described(w, nested)).act).toEqual({ sub: w.service.clientId, act: { sub: 'gateway', iss: IDP } });
    });

    describe('may_act (RFC 8693 §4.4)', () => {
      it('lets the actor may_act names act', async () => {
        const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: { sub: w.service.clientId } });
        const actor = await serviceToken(w);
        const token = issued(await exchange(w, ofJwt(subject, { actor_token: actor, actor_token_type: TYPE.accessToken })), { scope: 'a' });
        expect((await described(w, token)).act).toEqual({ sub: w.service.clientId });
      });

      it('checks the iss of may_act too', async () => {
        const actor = await externalJwt(w, w.idpKey, { sub: 'bob' });
        const allowed = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: { sub: 'bob', iss: IDP } });
        const token = issued(await exchange(w, ofJwt(allowed, { actor_token: actor, actor_token_type: TYPE.jwt })), { scope: 'a' });
        expect((await described(w, token)).act).toEqual({ sub: 'bob', iss: IDP });
        const otherIss = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: { sub: 'bob', iss: 'https://elsewhere.example.com' } });
        refused(await exchange(w, ofJwt(otherIss, { actor_token: actor, actor_token_type: TYPE.jwt })), 'invalid_request');
        // This realm's own actor, named with the realm's issuer.
        const service = await serviceToken(w);
        const ownIss = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: { sub: w.service.clientId, iss: w.issuer } });
        issued(await exchange(w, ofJwt(ownIss, { actor_token: service, actor_token_type: TYPE.accessToken })), { scope: 'a' });
      });

      it('refuses another actor with invalid_request', async () => {
        const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: { sub: 'someone-else' } });
        const actor = await serviceToken(w);
        refused(await exchange(w, ofJwt(subject, { actor_token: actor, actor_token_type: TYPE.accessToken })), 'invalid_request');
        const bob = await externalJwt(w, w.idpKey, { sub: 'bob' });
        refused(await exchange(w, ofJwt(subject, { actor_token: bob, actor_token_type: TYPE.jwt })), 'invalid_request');
      });

      it('is no obstacle without an actor', async () => {
        const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: { sub: 'someone-else' } });
        const token = issued(await exchange(w, ofJwt(subject)), { scope: 'a' });
        expect((await described(w, token)).act).toBeUndefined();
      });
    });
  });

  describe('stateless realm (RFC 9068 JWT access tokens)', () => {
    let w: World;
    let verify: (token: string) => Promise<{ payload: JWTPayload }>;
    beforeAll(async () => {
      w = await world({ stateless_tokens: true });
      const jwks = await t.app.inject({ method: 'GET', url: `${realmPath(w.realm)}/connect/jwk_uri` });
      const keys = createLocalJWKSet(jwks.json());
      verify = (token) => jwtVerify(token, keys, { issuer: w.issuer, typ: 'at+jwt' });
    });

    it('exchanges a JWT access token for a JWT naming the person, its actor and audience', async () => {
      const subject = await personToken(w, w.alice, 'a b');
      expect(subject.split('.')).toHaveLength(3);
      const actor = await serviceToken(w);
      const token = issued(
        await exchange(w, ofAccessToken(subject, { scope: 'a', actor_token: actor, actor_token_type: TYPE.accessToken, audience: 'orders-api' })),
        { scope: 'a' },
      );
      expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
      const { payload } = await verify(token);
      expect(payload).toMatchObject({
        sub: w.alice.sub,
        client_id: w.exchanger.clientId,
        scope: 'a',
        aud: 'orders-api',
        act: { sub: w.service.clientId },
      });
      expect(payload.exp! - payload.iat!).toBe(600);
      const body = await expectPersonToken(w, token, w.alice, 'a');
      expect(body.aud).toBe('orders-api');
      expect(body.act).toEqual({ sub: w.service.clientId });
    });

    it('names several audiences as an array in the JWT and at introspection', async () => {
      const subject = await personToken(w, w.alice, 'a');
      const token = issued(await exchange(w, ofAccessToken(subject, { audience: 'orders-api', resource: 'https://billing.example.com/' })), {
        scope: 'a',
      });
      const { payload } = await verify(token);
      expect([...(payload.aud as string[])].sort()).toEqual(['https://billing.example.com/', 'orders-api']);
      expect([...((await described(w, token)).aud as string[])].sort()).toEqual(['https://billing.example.com/', 'orders-api']);
    });

    it("has the realm's issuer as aud, and no aud at introspection, without audience or resource", async () => {
      const subject = await personToken(w, w.alice, 'a');
      const token = issued(await exchange(w, ofAccessToken(subject)), { scope: 'a' });
      const { payload } = await verify(token);
      expect(payload.aud).toBe(w.issuer);
      expect(payload.act).toBeUndefined();
      const body = await expectPersonToken(w, token, w.alice, 'a');
      expect(body.aud).toBeUndefined();
      expect(body.act).toBeUndefined();
    });

    it('nests actors over an exchanged JWT', async () => {
      const subject = await personToken(w, w.alice, 'a');
      const serviceActor = await serviceToken(w);
      const first = issued(await exchange(w, ofAccessToken(subject, { actor_token: serviceActor, actor_token_type: TYPE.accessToken })), {
        scope: 'a',
      });
      const bobToken = await personToken(w, w.bob, 'a');
      const second = issued(await exchange(w, ofAccessToken(first, { actor_token: bobToken, actor_token_type: TYPE.accessToken })), {
        scope: 'a',
      });
      const expected = { sub: w.bob.sub, act: { sub: w.service.clientId } };
      expect((await verify(second)).payload.act).toEqual(expected);
      expect((await described(w, second)).act).toEqual(expected);
    });

    it('exchanges a trusted JWT into a JWT access token', async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'bob', scope: 'a b' });
      const token = issued(await exchange(w, { subject_token: subject, subject_token_type: TYPE.jwt }), { scope: 'a b' });
      expect((await verify(token)).payload).toMatchObject({ sub: w.bob.sub, client_id: w.exchanger.clientId });
      await expectPersonToken(w, token, w.bob, 'a b');
    });

    it('works at /userinfo', async () => {
      const subject = await personToken(w, w.alice, 'openid profile');
      const token = issued(await exchange(w, ofAccessToken(subject)), { scope: 'openid profile' });
      const response = await t.app.inject({ method: 'GET', url: `${realmPath(w.realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ sub: w.alice.sub, preferred_username: 'alice' });
    });

    it('refuses a revoked JWT subject token with invalid_request', async () => {
      const subject = await personToken(w, w.alice, 'a');
      expect((await revoke(t.app, w.realm, w.login, subject)).statusCode).toBe(200);
      refused(await exchange(w, ofAccessToken(subject)), 'invalid_request');
    });

    it("exchanges a service's JWT (client credentials) naming the exchanger, keeping its sub: no person behind it", async () => {
      const subject = await serviceToken(w);
      expect(subject.split('.')).toHaveLength(3);
      expect((await verify(subject)).payload.aud).toBe(w.exchanger.clientId);
      const token = issued(await exchange(w, ofAccessToken(subject)), { scope: 'a' });
      expect((await verify(token)).payload).toMatchObject({ sub: w.service.clientId, client_id: w.exchanger.clientId, aud: w.issuer });
      const body = await described(w, token);
      expect(body).toMatchObject({ active: true, sub: w.service.clientId, client_id: w.exchanger.clientId });
      expect(body.username).toBeUndefined();
      // Nobody signed in behind it: UserInfo has no person to describe.
      const userinfo = await t.app.inject({ method: 'GET', url: `${realmPath(w.realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });
      expect(userinfo.statusCode).toBe(401);
    });

    it("refuses another realm's JWT access token, and a forged one, with invalid_request", async () => {
      const other = await world({ stateless_tokens: true });
      const theirs = await personToken(other, other.alice, 'a');
      refused(await exchange(w, ofAccessToken(theirs)), 'invalid_request');
      // A JWT naming this realm's issuer and a user of it, signed by a key of nobody's.
      const forger = await keyPair('ES256');
      const forged = await new SignJWT({
        iss: w.issuer,
        sub: w.alice.sub,
        aud: w.issuer,
        client_id: w.login.clientId,
        scope: 'a',
        jti: 'j-1',
        grant_id: 'g-1',
        iat: now(),
        exp: now() + 300,
      })
        .setProtectedHeader({ alg: 'ES256', kid: forger.kid, typ: 'at+jwt' })
        .sign(forger.privateKey);
      refused(await exchange(w, ofAccessToken(forged)), 'invalid_request');
    });
  });

  describe('whose tokens a client may exchange (CONTRACT.md §7)', () => {
    for (const stateless of [false, true]) {
      describe(stateless ? 'stateless realm' : 'opaque tokens', () => {
        let w: World;
        /** Another client that exchanges tokens. */
        let bystander: ServiceClient;
        /** A service whose tokens may name the bystander, the exchanger, or both. */
        let caller: ServiceClient;
        beforeAll(async () => {
          w = await world({ stateless_tokens: stateless });
          bystander = await client(w.realm, { grant_types: [GRANT], scope: 'a', introspect_any_token: true });
          caller = await client(w.realm, {
            grant_types: ['client_credentials'],
            scope: 'a',
            allowed_audiences: [bystander.clientId, w.exchanger.clientId],
          });
        });
        const callerToken = async (audience: string[]) => {
          const response = await tokenRequest(t.app, w.realm, caller, { grant_type: 'client_credentials', scope: 'a', audience });
          expect(response.statusCode, response.body).toBe(200);
          return (response.json() as { access_token: string }).access_token;
        };

        it("refuses another client's token that does not name the exchanger in aud with invalid_request", async () => {
          // A person's token of the login client, asked without an audience.
          refused(await exchange(w, ofAccessToken(await personToken(w, w.alice, 'a', null))), 'invalid_request');
          // A service's token without an audience.
          refused(await exchange(w, ofAccessToken(await accessToken(t.app, w.realm, w.service, 'a'))), 'invalid_request');
          // A token meant for another client: that one may exchange it, the exchanger may not.
          const forBystander = await callerToken([bystander.clientId]);
          refused(await exchange(w, ofAccessToken(forBystander)), 'invalid_request');
          issued(await exchange(w, ofAccessToken(forBystander), bystander), { scope: 'a' });
        });

        it('accepts a token whose aud names the exchanger, alone or among others, and keeps its sub', async () => {
          const alone = issued(await exchange(w, ofAccessToken(await personToken(w, w.alice, 'a'))), { scope: 'a' });
          await expectPersonToken(w, alone, w.alice, 'a');
          const among = issued(await exchange(w, ofAccessToken(await callerToken([bystander.clientId, w.exchanger.clientId]))), { scope: 'a' });
          expect(await described(w, among)).toMatchObject({ active: true, sub: caller.clientId, client_id: w.exchanger.clientId });
        });

        it('accepts a token issued to the exchanging client itself', async () => {
          const own = await client(w.realm, { grant_types: ['client_credentials', GRANT], scope: 'a' });
          const subject = await accessToken(t.app, w.realm, own, 'a');
          const token = issued(await exchange(w, ofAccessToken(subject), own), { scope: 'a' });
          const body = await described(w, token);
          expect(body).toMatchObject({ active: true, sub: own.clientId, client_id: own.clientId });
          expect(body.username).toBeUndefined();
        });
      });
    }

    describe("a trusted issuer's token", () => {
      let w: World;
      beforeAll(async () => {
        w = await world();
      });
      const ofJwt = (token: string): Form => ({ subject_token: token, subject_token_type: TYPE.jwt });

      it("is accepted when its aud names the realm's issuer or token endpoint", async () => {
        issued(await exchange(w, ofJwt(await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', aud: w.issuer }))), { scope: 'a' });
        const atTokenEndpoint = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', aud: `${w.issuer}/access_token` });
        issued(await exchange(w, ofJwt(atTokenEndpoint)), { scope: 'a' });
        const among = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', aud: ['https://api.example.com', w.issuer] });
        issued(await exchange(w, ofJwt(among)), { scope: 'a' });
      });

      it("is refused with invalid_request when its aud names neither, even when it names the exchanging client", async () => {
        for (const aud of ['https://api.example.com', w.exchanger.clientId, issuerOf('root'), `${w.issuer}/introspect`, [IDP, 'https://api.example.com']]) {
          refused(await exchange(w, ofJwt(await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', aud }))), 'invalid_request');
        }
        // Without aud.
        const none = await new SignJWT({ iss: IDP, sub: 'alice', scope: 'a', exp: now() + 300 })
          .setProtectedHeader({ alg: w.idpKey.alg, kid: w.idpKey.kid })
          .sign(w.idpKey.privateKey);
        refused(await exchange(w, ofJwt(none)), 'invalid_request');
      });
    });
  });

  describe('expiry', () => {
    it('refuses an expired subject token with invalid_request', async () => {
      const w = await world({ access_token_lifetime: 1 });
      const subject = await personToken(w, w.alice, 'a');
      await t.clock.advance(1_200);
      refused(await exchange(w, ofAccessToken(subject)), 'invalid_request');
    });

    it('refuses an expired stateless subject token with invalid_request', async () => {
      const w = await world({ access_token_lifetime: 1, stateless_tokens: true });
      const subject = await personToken(w, w.alice, 'a');
      // Whole seconds: two of them are surely past exp (the verifier allows no clock skew).
      await t.clock.advance(2_100);
      refused(await exchange(w, ofAccessToken(subject)), 'invalid_request');
    });

    it("gives the new token the realm's lifetime", async () => {
      const w = await world({ access_token_lifetime: 120 });
      const subject = await personToken(w, w.alice, 'a');
      issued(await exchange(w, ofAccessToken(subject)), { scope: 'a', expiresIn: 120 });
    });
  });
  describe('the exchanged token ends with what it came from', () => {
    /** A person's access and refresh tokens of one grant (password grant with refresh tokens). */
    async function grantOf(w: World, user: TestUser) {
      const web = await client(w.realm, {
        grant_types: ['password', 'refresh_token'],
        scope: 'openid profile a b',
        allowed_audiences: [w.exchanger.clientId],
      });
      const response = await passwordGrant(t.app, w.realm, web, user, { scope: 'a b', audience: w.exchanger.clientId });
      expect(response.statusCode, response.body).toBe(200);
      return { web, tokens: response.json() as { access_token: string; refresh_token?: string } };
    }

    for (const stateless of [false, true]) {
      it(`joins the subject token's grant: revoking it ends the exchanged token (${stateless ? 'stateless' : 'opaque'})`, async () => {
        const w = await world({ stateless_tokens: stateless });
        const { web, tokens } = await grantOf(w, w.alice);
        const exchanged = issued(await exchange(w, ofAccessToken(tokens.access_token, { scope: 'a' })), { scope: 'a' });
        expect((await described(w, exchanged)).active).toBe(true);
        expect((await revoke(t.app, w.realm, web, tokens.refresh_token!)).statusCode).toBe(200);
        expect(await described(w, exchanged)).toEqual({ active: false });
      });

      it(`denies what was exchanged for a person who is then deleted (${stateless ? 'stateless' : 'opaque'})`, async () => {
        const w = await world({ stateless_tokens: stateless });
        const subject = await personToken(w, w.alice, 'a');
        const exchanged = issued(await exchange(w, ofAccessToken(subject)), { scope: 'a' });
        expect((await t.admin.request('DELETE', `/realms/${w.realm}/users/alice`)).statusCode).toBe(204);
        expect(await described(w, exchanged)).toEqual({ active: false });
        refused(await exchange(w, ofAccessToken(subject)), 'invalid_request');
        refused(await exchange(w, ofAccessToken(exchanged)), 'invalid_request');
      });
    }
  });

  describe('claims of trusted JWTs that are malformed fail closed', () => {
    let w: World;
    beforeAll(async () => {
      w = await world();
    });
    const ofJwt = (token: string, extra: Form = {}): Form => ({ subject_token: token, subject_token_type: TYPE.jwt, ...extra });

    it('refuses a scope claim that is not a scope string', async () => {
      refused(await exchange(w, ofJwt(await externalJwt(w, w.idpKey, { sub: 'alice', scope: ['a'] }))), 'invalid_request');
    });

    it('lets no actor act under a may_act that is not an object', async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', may_act: 'anyone' });
      const actor = await serviceToken(w);
      refused(await exchange(w, ofJwt(subject, { actor_token: actor, actor_token_type: TYPE.accessToken })), 'invalid_request');
    });

    it("names an actor of the JWT's act without iss by the JWT's issuer", async () => {
      const subject = await externalJwt(w, w.idpKey, { sub: 'alice', scope: 'a', act: { sub: 'gateway', act: { sub: 'edge' } } });
      const token = issued(await exchange(w, ofJwt(subject)), { scope: 'a' });
      expect((await described(w, token)).act).toEqual({ sub: 'gateway', iss: IDP, act: { sub: 'edge', iss: IDP } });
    });
  });
});
