import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { type JWTPayload, SignJWT, base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import {
  authorize,
  completeFlow,
  expectCode,
  expectErrorPage,
  expectRedirectError,
  freshRealm,
  issuerOf,
  redirectPath,
} from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, pkce } from '../support/flow.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

/** A second registered redirect URI: objects name it, the outer query names REDIRECT_URI. */
const OBJECT_REDIRECT_URI = 'https://app.example/signed-callback';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** An unsecured JWT (RFC 7519 §6): `alg: none` and no signature. */
const unsecured = (claims: JWTPayload): string =>
  `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'oauth-authz-req+jwt' }))}.${base64url.encode(JSON.stringify(claims))}.`;

describe('signed request objects (RFC 9101) at /authorize and /par', () => {
  let t: TestApp;
  let realm: string;
  let issuer: string;
  let person: TestUser;
  /** A confidential client (client_secret_basic) whose jwks holds `key`. */
  let client: { clientId: string; secret: string };
  let key: KeyPair;
  /** Another client of the realm, with its own key. */
  let other: { clientId: string; key: KeyPair };

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  /** The claims of a valid request object of `client`; `overrides` change them, an undefined value leaves a claim out. */
  const claimsOf = (overrides: Record<string, unknown> = {}, verifier = pkce()): { claims: JWTPayload; verifier: string } => {
    const now = nowSeconds();
    const claims: Record<string, unknown> = {
      iss: client.clientId,
      aud: issuer,
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: OBJECT_REDIRECT_URI,
      scope: 'openid profile',
      state: 'object-state',
      nonce: 'object-nonce',
      code_challenge: verifier.challenge,
      code_challenge_method: 'S256',
      iat: now,
      nbf: now,
      exp: now + 300,
      jti: randomUUID(),
      ...overrides,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    return { claims, verifier: verifier.verifier };
  };

  const sign = (claims: JWTPayload, signer: KeyPair = key, header: Record<string, unknown> = {}): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'oauth-authz-req+jwt', ...header }).sign(signer.privateKey);

  /** A valid signed request object, and the PKCE verifier of its challenge. */
  const requestObject = async (overrides: Record<string, unknown> = {}) => {
    const { claims, verifier } = claimsOf(overrides);
    return { jwt: await sign(claims), verifier };
  };

  /** /authorize with only client_id and the object (RFC 9101 §5), and whatever outer parameters are added. */
  const authorizeWith = (b: TestBrowser, jwt: string, outer: Record<string, string | undefined> = {}) =>
    authorize(b, realm, { client_id: client.clientId, request: jwt, ...outer });

  /** An outer query that a refused object's error can go back to: a registered redirect URI and a state. */
  const TRUSTED_OUTER = { redirect_uri: REDIRECT_URI, state: 'state-123', response_type: 'code' };

  const push = (form: Record<string, string>, as: { clientId: string; secret: string } = client) =>
    postForm(t.app, `${realmPath(realm)}/par`, form, { authorization: basic(as.clientId, as.secret) });

  const exchange = (code: string, verifier: string, redirectUri = OBJECT_REDIRECT_URI) =>
    postForm(
      t.app,
      `${realmPath(realm)}/access_token`,
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
      { authorization: basic(client.clientId, client.secret) },
    );

  /** Signs the person in from the answer of /authorize and expects the code at the object's redirect URI with its state. */
  const codeFrom = async (b: TestBrowser, first: LightMyRequestResponse): Promise<string> => {
    const { final } = await completeFlow(b, first, person);
    return expectCode(final, { iss: issuer, state: 'object-state', redirectUri: OBJECT_REDIRECT_URI });
  };

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t, NO_RATE_LIMITS);
    issuer = issuerOf(realm);
    person = await createUser(t.admin, realm, 'jar-person');
    key = await keyPair('ES256');
    const created = await t.admin.createClient(realm, {
      client_type: 'confidential',
      redirect_uris: [REDIRECT_URI, OBJECT_REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile email',
      jwks: { keys: [key.publicJwk] },
    });
    client = { clientId: created.client_id, secret: created.client_secret as string };
    const otherKey = await keyPair('RS256');
    const otherClient = await t.admin.createClient(realm, {
      client_type: 'confidential',
      redirect_uris: [REDIRECT_URI],
      scope: 'openid profile',
      jwks: { keys: [otherKey.publicJwk] },
    });
    other = { clientId: otherClient.client_id, key: otherKey };
  });
  afterAll(() => t.close());

  describe('accepted', () => {
    it('at /authorize: the code flow completes with the object\'s redirect URI, state, scope and nonce', async () => {
      const { jwt, verifier } = await requestObject();
      const b = browser();
      const first = await authorizeWith(b, jwt);
      expect(redirectPath(first)).toBe(`${realmPath(realm)}/login`);
      const code = await codeFrom(b, first);

      const tokens = await exchange(code, verifier);
      expect(tokens.statusCode, tokens.body).toBe(200);
      const body = tokens.json() as { scope: string; id_token: string };
      expect(body.scope.split(' ').sort()).toEqual(['openid', 'profile']);
      const idToken = decodeJwt(body.id_token);
      expect(idToken.nonce).toBe('object-nonce');
      expect(idToken.aud).toBe(client.clientId);
    });

    it('at /par: the pushed request carries the object\'s parameters, and /authorize completes with them', async () => {
      const { jwt, verifier } = await requestObject();
      // RFC 9126 §3: outer parameters beside the object are ignored.
      const pushed = await push({ request: jwt, scope: 'openid email', state: 'outer-state', redirect_uri: REDIRECT_URI });
      expect(pushed.statusCode, pushed.body).toBe(201);
      const { request_uri: requestUri } = pushed.json() as { request_uri: string };

      const b = browser();
      const code = await codeFrom(b, await authorize(b, realm, { client_id: client.clientId, request_uri: requestUri }));
      const tokens = await exchange(code, verifier);
      expect(tokens.statusCode, tokens.body).toBe(200);
      const body = tokens.json() as { scope: string; id_token: string };
      expect(body.scope.split(' ').sort()).toEqual(['openid', 'profile']);
      expect(decodeJwt(body.id_token).nonce).toBe('object-nonce');
    });

    it('ignores every outer parameter but client_id (RFC 9101 §6.3): scope, state, nonce, redirect URI, PKCE, prompt', async () => {
      const { jwt, verifier } = await requestObject();
      const b = browser();
      const first = await authorizeWith(b, jwt, {
        response_type: 'code',
        redirect_uri: 'https://evil.example/callback',
        scope: 'openid email',
        state: 'outer-state',
        nonce: 'outer-nonce',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        // Honoured, it would answer login_required at once.
        prompt: 'none',
      });
      expect(redirectPath(first)).toBe(`${realmPath(realm)}/login`);
      const code = await codeFrom(b, first);
      const tokens = await exchange(code, verifier);
      expect(tokens.statusCode, tokens.body).toBe(200);
      const body = tokens.json() as { scope: string; id_token: string };
      expect(body.scope.split(' ')).not.toContain('email');
      expect(decodeJwt(body.id_token).nonce).toBe('object-nonce');
    });

    it('accepts the plain JWT type, and no typ at all (OpenID Connect Core §6.1 objects)', async () => {
      for (const typ of ['JWT', undefined]) {
        const { claims } = claimsOf();
        const jwt = await sign(claims, key, { typ });
        const response = await authorizeWith(browser(), jwt);
        expect(redirectPath(response), String(typ)).toBe(`${realmPath(realm)}/login`);
      }
    });

    it('accepts an object without jti, and a max_age given as a number', async () => {
      const { jwt } = await requestObject({ jti: undefined, max_age: 300 });
      const response = await authorizeWith(browser(), jwt);
      expect(redirectPath(response)).toBe(`${realmPath(realm)}/login`);
    });

    it('sends a later refusal of the object\'s request to the object\'s redirect URI, with its state', async () => {
      const { jwt } = await requestObject({ scope: 'openid not-of-this-realm' });
      const response = await authorizeWith(browser(), jwt, TRUSTED_OUTER);
      expectRedirectError(response, { error: 'invalid_scope', iss: issuer, state: 'object-state', redirectUri: OBJECT_REDIRECT_URI });
    });
  });

  /** Each refusal alone: a valid object but for one thing. */
  const refusals: Array<[string, () => Promise<string>]> = [
    ['unsigned (alg none)', async () => unsecured(claimsOf().claims)],
    ['signed with a shared secret (HS256)', async () =>
      new SignJWT(claimsOf().claims).setProtectedHeader({ alg: 'HS256', typ: 'oauth-authz-req+jwt' }).sign(new TextEncoder().encode('s'.repeat(32)))],
    ['not a JWT', async () => 'not-a-jwt'],
    ['signed by a key the client does not have (same kid)', async () => sign(claimsOf().claims, await keyPair('ES256', key.kid))],
    ['signed by another client, naming this one', async () => sign(claimsOf().claims, other.key)],
    ['another iss', async () => sign(claimsOf({ iss: other.clientId }).claims)],
    ['another aud (another realm\'s issuer)', async () => sign(claimsOf({ aud: issuerOf('elsewhere') }).claims)],
    ['aud the authorization endpoint, not the issuer', async () => sign(claimsOf({ aud: `${issuer}/authorize` }).claims)],
    ['aud an array holding the issuer', async () => sign(claimsOf({ aud: [issuer] }).claims)],
    ['expired', async () => sign(claimsOf({ iat: nowSeconds() - 600, nbf: nowSeconds() - 600, exp: nowSeconds() - 300 }).claims)],
    ['no exp', async () => sign(claimsOf({ exp: undefined }).claims)],
    ['valid for more than 60 minutes', async () => sign(claimsOf({ exp: nowSeconds() + 61 * 60 }).claims)],
    ['an nbf more than 60 minutes past', async () =>
      sign(claimsOf({ iat: nowSeconds() - 62 * 60, nbf: nowSeconds() - 62 * 60, exp: nowSeconds() + 60 }).claims)],
    ['another client\'s client_id inside', async () => sign(claimsOf({ client_id: other.clientId }).claims)],
    ['no client_id inside', async () => sign(claimsOf({ client_id: undefined }).claims)],
    ['typed as another kind of JWT', async () => sign(claimsOf().claims, key, { typ: 'client-authentication+jwt' })],
    ['a request_uri inside', async () => sign(claimsOf({ request_uri: 'urn:ietf:params:oauth:request_uri:x' }).claims)],
    ['a parameter that is not a string', async () => sign(claimsOf({ scope: ['openid'] }).claims)],
  ];

  describe('refused at /authorize with invalid_request_object, at the outer redirect URI when it is registered', () => {
    for (const [name, make] of refusals) {
      it(name, async () => {
        const response = await authorizeWith(browser(), await make(), TRUSTED_OUTER);
        const params = expectRedirectError(response, { error: 'invalid_request_object', iss: issuer });
        expect(params.get('error_description')).toMatch(/^the request object is not accepted: /);
      });
    }

    it('a replayed jti', async () => {
      const { jwt } = await requestObject();
      expect(redirectPath(await authorizeWith(browser(), jwt, TRUSTED_OUTER))).toBe(`${realmPath(realm)}/login`);
      const again = await authorizeWith(browser(), jwt, TRUSTED_OUTER);
      expectRedirectError(again, { error: 'invalid_request_object', iss: issuer });
    });

    it('an outer response_type other than its own (OpenID Connect Core §6.1), spending nothing', async () => {
      const { jwt } = await requestObject();
      const mismatched = await authorizeWith(browser(), jwt, { ...TRUSTED_OUTER, response_type: 'code id_token' });
      expectRedirectError(mismatched, { error: 'invalid_request_object', iss: issuer });
      // The refused object's jti was not spent: the same object is accepted once.
      expect(redirectPath(await authorizeWith(browser(), jwt, TRUSTED_OUTER))).toBe(`${realmPath(realm)}/login`);
    });

    it('shows the 400 page, never a redirect, when no outer redirect URI can be trusted', async () => {
      const { claims } = claimsOf();
      const bad = unsecured(claims);
      // The client has two redirect URIs: none named outside.
      expectErrorPage(await authorizeWith(browser(), bad, { state: 'state-123' }));
      expectErrorPage(await authorizeWith(browser(), bad, { redirect_uri: 'https://evil.example/callback', state: 'state-123' }));
    });

    it('shows the 400 page for a verified object whose redirect URI is not registered', async () => {
      const { jwt } = await requestObject({ redirect_uri: 'https://evil.example/callback' });
      expectErrorPage(await authorizeWith(browser(), jwt, TRUSTED_OUTER));
    });

    it('shows the 400 page for request and request_uri together (RFC 9101 §5)', async () => {
      const { jwt } = await requestObject();
      const pushed = await push({ request: (await requestObject()).jwt });
      expect(pushed.statusCode, pushed.body).toBe(201);
      const both = await authorize(browser(), realm, { client_id: client.clientId, request: jwt, request_uri: pushed.json().request_uri });
      expectErrorPage(both);
    });

    it('shows the 400 page for a request_uri of another server: objects by reference are not fetched', async () => {
      const response = await authorize(browser(), realm, { client_id: client.clientId, request_uri: 'https://app.example/request.jwt' });
      expectErrorPage(response);
    });
  });

  describe('refused at /par with 400 invalid_request_object JSON', () => {
    for (const [name, make] of refusals) {
      it(name, async () => {
        const response = await push({ request: await make(), response_type: 'code' });
        expect(response.statusCode, response.body).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toEqual({ error: 'invalid_request_object', error_description: expect.stringMatching(/^the request object is not accepted: /) });
      });
    }

    it('a replayed jti, whether first seen at /par or /authorize', async () => {
      const { jwt } = await requestObject();
      expect((await push({ request: jwt })).statusCode).toBe(201);
      expect((await push({ request: jwt })).json().error).toBe('invalid_request_object');
      const seen = await requestObject();
      expect(redirectPath(await authorizeWith(browser(), seen.jwt))).toBe(`${realmPath(realm)}/login`);
      expect((await push({ request: seen.jwt })).json().error).toBe('invalid_request_object');
    });

    it('an object of another client, pushed by this one', async () => {
      const { claims } = claimsOf({ iss: other.clientId, client_id: other.clientId });
      const response = await push({ request: await sign(claims, other.key) });
      expect(response.json().error).toBe('invalid_request_object');
    });
  });

  describe('require_signed_request_object', () => {
    let strict: { clientId: string; secret: string };

    beforeAll(async () => {
      const created = await t.admin.createClient(realm, {
        client_type: 'confidential',
        redirect_uris: [REDIRECT_URI],
        scope: 'openid profile',
        jwks: { keys: [key.publicJwk] },
        require_signed_request_object: true,
      });
      strict = { clientId: created.client_id, secret: created.client_secret as string };
    });

    it('is part of the client record in the admin API', async () => {
      const read = await t.admin.request('GET', `/realms/${realm}/clients/${strict.clientId}`);
      expect(read.json().require_signed_request_object).toBe(true);
      const plain = await t.admin.request('GET', `/realms/${realm}/clients/${other.clientId}`);
      expect(plain.json().require_signed_request_object).toBe(false);
    });

    it('refuses /authorize without a request object with invalid_request', async () => {
      const response = await authorize(browser(), realm, {
        client_id: strict.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        state: 'state-123',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      const params = expectRedirectError(response, { error: 'invalid_request', iss: issuer });
      expect(params.get('error_description')).toMatch(/signed request object/);
    });

    it('refuses /par without a request object with invalid_request', async () => {
      const response = await push(
        { response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256' },
        strict,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/signed request object/) });
    });

    it('accepts its signed request objects at /authorize and /par', async () => {
      const claims = { ...claimsOf().claims, iss: strict.clientId, client_id: strict.clientId, redirect_uri: REDIRECT_URI };
      const response = await authorize(browser(), realm, { client_id: strict.clientId, request: await sign(claims) });
      expect(redirectPath(response)).toBe(`${realmPath(realm)}/login`);
      const pushed = await push({ request: await sign({ ...claims, jti: randomUUID() }) }, strict);
      expect(pushed.statusCode, pushed.body).toBe(201);
    });

    it('cannot be set on a client without jwks or jwks_uri, and changes nothing', async () => {
      const created = await t.admin.createClient(realm, { client_type: 'confidential', redirect_uris: [REDIRECT_URI] });
      const patched = await t.admin.request('PATCH', `/realms/${realm}/clients/${created.client_id}`, { require_signed_request_object: true });
      expect(patched.statusCode).toBe(400);
      expect(patched.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/require_signed_request_object needs jwks or jwks_uri/) });
      const read = await t.admin.request('GET', `/realms/${realm}/clients/${created.client_id}`);
      expect(read.json().require_signed_request_object).toBe(false);
      const notBoolean = await t.admin.request('PATCH', `/realms/${realm}/clients/${client.clientId}`, { require_signed_request_object: 'yes' });
      expect(notBoolean.statusCode).toBe(400);
    });

    it('is client metadata of dynamic registration (RFC 9101 §10.5)', async () => {
      const open = await freshRealm(t, { ...NO_RATE_LIMITS, open_registration: true });
      const registered = await t.app.inject({
        method: 'POST',
        url: `${realmPath(open)}/connect/register`,
        payload: { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] }, require_signed_request_object: true },
      });
      expect(registered.statusCode, registered.body).toBe(201);
      const body = registered.json() as { client_id: string; require_signed_request_object?: boolean };
      expect(body.require_signed_request_object).toBe(true);
      expect((await t.store.clients.get(open, body.client_id))?.require_signed_request_object).toBe(true);

      const without = await t.app.inject({ method: 'POST', url: `${realmPath(open)}/connect/register`, payload: { redirect_uris: [REDIRECT_URI] } });
      expect(without.statusCode, without.body).toBe(201);
      expect(without.json()).not.toHaveProperty('require_signed_request_object');

      const keyless = await t.app.inject({
        method: 'POST',
        url: `${realmPath(open)}/connect/register`,
        payload: { redirect_uris: [REDIRECT_URI], require_signed_request_object: true },
      });
      expect(keyless.statusCode).toBe(400);
      expect(keyless.json().error).toBe('invalid_client_metadata');
    });
  });

  it('is announced by discovery: request_parameter_supported and the algorithms the verifier accepts', async () => {
    const metadata = (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
    expect(metadata.request_parameter_supported).toBe(true);
    expect(metadata.request_object_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'PS256', 'ES256', 'EdDSA']));
    expect(metadata.request_object_signing_alg_values_supported).not.toContain('none');
    expect(metadata.request_object_signing_alg_values_supported).not.toContain('HS256');
    // Each advertised algorithm is accepted.
    for (const alg of ['RS256', 'PS256', 'EdDSA'] as const) {
      const signer = await keyPair(alg);
      const created = await t.admin.createClient(realm, { redirect_uris: [REDIRECT_URI], scope: 'openid', jwks: { keys: [signer.publicJwk] } });
      const claims = { ...claimsOf().claims, iss: created.client_id, client_id: created.client_id, redirect_uri: REDIRECT_URI, scope: 'openid' };
      const response = await authorize(browser(), realm, { client_id: created.client_id, request: await sign(claims, signer) });
      expect(redirectPath(response), alg).toBe(`${realmPath(realm)}/login`);
    }
  });
});
