import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNTS, PAYMENT, PAYMENT_TYPES } from '../support/authorization-details.js';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, completeFlow, expectCode, expectRedirectError, freshRealm } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { type ServiceClient, basic, clientCredentials, introspect, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, refreshGrant, tokenRequest } from '../support/users.js';

const json = (value: unknown) => JSON.stringify(value);

/**
 * Rich authorization requests (RFC 9396, CONTRACT.md §13): the realm's types and their JSON
 * Schemas, `authorization_details` at /authorize, /par, in request objects and at the token
 * endpoint; what was granted in the token response, introspection and JWT access tokens; a
 * refresh or a code exchange may narrow but never widen; every refusal is
 * invalid_authorization_details and writes nothing.
 */
describe('authorization_details (RFC 9396)', () => {
  let t: TestApp;
  let realm: string;
  let issuer: string;
  let carol: TestUser;
  /** A confidential code-flow client with refresh tokens, allowed both types. */
  let web: ServiceClient;
  /** A client credentials client allowed payments only. */
  let service: ServiceClient;
  /** A client credentials client allowed no type. */
  let plain: ServiceClient;
  /** The key of `web`'s request objects. */
  let key: KeyPair;

  const browser = () => new TestBrowser(t.app, t.baseUrl);
  const tokenRows = async (clientId: string) =>
    (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE realm = $1 AND client_id = $2', [realm, clientId])).rows[0]!.n;

  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    tokenRequest(t.app, realm, web, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, ...extra });

  /** Signs carol in at /authorize with these details, allows on the consent page, and answers the pages shown and the code. */
  async function consented(details: unknown, params: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const b = browser();
    const first = await authorize(b, realm, codeRequest(web.clientId, { code_challenge: challenge, scope: 'openid', authorization_details: json(details), ...params }));
    const { final, pages } = await completeFlow(b, first, carol);
    return { code: expectCode(final, { iss: issuer }), verifier, pages };
  }

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    realm = await freshRealm(t, { ...NO_RATE_LIMITS, allow_consent_bypass: true, authorization_details_types: PAYMENT_TYPES });
    issuer = `${t.baseUrl}${realmPath(realm)}`;
    key = await keyPair('ES256');
    carol = await createUser(t.admin, realm, 'carol');
    const created = await t.admin.createClient(realm, {
      client_type: 'confidential',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid',
      // Consent skipped for scopes: authorization details are asked all the same.
      skip_consent: true,
      authorization_details_types: ['payment_initiation', 'account_information'],
      jwks: { keys: [key.publicJwk] },
    });
    web = { clientId: created.client_id, secret: created.client_secret as string };
    service = await t.admin.serviceClient(realm, '', { authorization_details_types: ['payment_initiation'] });
    plain = await t.admin.serviceClient(realm, '');
  });
  afterAll(() => t.close());

  describe('client credentials', () => {
    it('carries the details into the token response and introspection', async () => {
      const response = await clientCredentials(t.app, realm, service, { authorization_details: json([PAYMENT]) });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body.authorization_details).toEqual([PAYMENT]);
      const introspected = (await introspect(t.app, realm, service, body.access_token)).json();
      expect(introspected).toMatchObject({ active: true, authorization_details: [PAYMENT] });
    });

    it('carries no details when none were asked', async () => {
      const response = await clientCredentials(t.app, realm, service);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).not.toHaveProperty('authorization_details');
      expect((await introspect(t.app, realm, service, response.json().access_token)).json()).not.toHaveProperty('authorization_details');
    });

    it.each([
      ['an unknown type', 'service', json([{ type: 'wire_transfer' }])],
      ['an entry its schema refuses', 'service', json([{ ...PAYMENT, instructedAmount: { currency: 'euro', amount: 5 } }])],
      ['a field the schema does not allow', 'service', json([{ ...PAYMENT, extra: true }])],
      ['a non-array', 'service', json(PAYMENT)],
      ['an empty array', 'service', '[]'],
      ['an entry without type', 'service', json([{ creditorName: 'x' }])],
      ['text that is not JSON', 'service', '[{'],
      ['a type the client may not use', 'service', json([ACCOUNTS])],
      ['any type for a client allowed none', 'plain', json([PAYMENT])],
      ['an entry nested too deep', 'service', json([{ ...PAYMENT, reference: [[[[[[[[['x']]]]]]]]] }])],
    ] as const)('refuses %s with invalid_authorization_details and writes no token', async (_, which, value) => {
      const client = which === 'service' ? service : plain;
      const before = await tokenRows(client.clientId);
      const response = await clientCredentials(t.app, realm, client, { authorization_details: value });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toBe('invalid_authorization_details');
      expect(response.json().error_description).not.toContain('DE02100100109307118603');
      expect(await tokenRows(client.clientId)).toBe(before);
    });

    it('puts the details in a JWT access token (stateless realm), and introspection reads them back', async () => {
      const stateless = await freshRealm(t, { stateless_tokens: true, authorization_details_types: PAYMENT_TYPES });
      const client = await t.admin.serviceClient(stateless, '', { authorization_details_types: ['payment_initiation'] });
      const response = await clientCredentials(t.app, stateless, client, { authorization_details: json([PAYMENT]) });
      expect(response.statusCode, response.body).toBe(200);
      expect(decodeJwt(response.json().access_token).authorization_details).toEqual([PAYMENT]);
      expect((await introspect(t.app, stateless, client, response.json().access_token)).json()).toMatchObject({ active: true, authorization_details: [PAYMENT] });
    });
  });

  describe('the code flow', () => {
    it('asks the person even when consent is skipped, and the grant carries what was consented to', async () => {
      const { code, verifier, pages } = await consented([PAYMENT]);
      expect(pages).toEqual(['login', 'consent']);
      const stored = await t.store.db.query<{ authorization_details: unknown }>('SELECT authorization_details FROM authorization_codes WHERE client_id = $1 AND used_at IS NULL', [web.clientId]);
      expect(stored.rows.map((row) => row.authorization_details)).toContainEqual([PAYMENT]);
      const tokens = await exchange(code, verifier);
      expect(tokens.statusCode, tokens.body).toBe(200);
      expect(tokens.json().authorization_details).toEqual([PAYMENT]);
      expect((await introspect(t.app, realm, web, tokens.json().access_token)).json()).toMatchObject({ active: true, sub: carol.sub, authorization_details: [PAYMENT] });
    });

    it('a refresh may narrow to what was granted, keeps the whole grant for the next one, and refuses widening', async () => {
      const { code, verifier } = await consented([PAYMENT, ACCOUNTS]);
      const tokens = (await exchange(code, verifier)).json();
      const narrowed = await refreshGrant(t.app, realm, web, tokens.refresh_token, { authorization_details: json([ACCOUNTS]) });
      expect(narrowed.statusCode, narrowed.body).toBe(200);
      expect(narrowed.json().authorization_details).toEqual([ACCOUNTS]);
      expect((await introspect(t.app, realm, web, narrowed.json().access_token)).json().authorization_details).toEqual([ACCOUNTS]);

      // Widening: a changed amount is another entry; an entry never granted too. The refresh token stays usable.
      const next = narrowed.json().refresh_token as string;
      for (const wider of [[{ ...PAYMENT, instructedAmount: { currency: 'EUR', amount: 99999 } }], [ACCOUNTS, { ...ACCOUNTS, actions: ['read_balances'] }]]) {
        const refused = await refreshGrant(t.app, realm, web, next, { authorization_details: json(wider) });
        expect(refused.statusCode, refused.body).toBe(400);
        expect(refused.json().error).toBe('invalid_authorization_details');
      }
      const whole = await refreshGrant(t.app, realm, web, next);
      expect(whole.statusCode, whole.body).toBe(200);
      expect(whole.json().authorization_details).toEqual([PAYMENT, ACCOUNTS]);
    });

    it('a refresh of a grant without details cannot add some', async () => {
      const { verifier, challenge } = pkce();
      const b = browser();
      const first = await authorize(b, realm, codeRequest(web.clientId, { code_challenge: challenge, scope: 'openid' }));
      const { final } = await completeFlow(b, first, carol);
      const tokens = (await exchange(expectCode(final, { iss: issuer }), verifier)).json();
      expect(tokens).not.toHaveProperty('authorization_details');
      const refused = await refreshGrant(t.app, realm, web, tokens.refresh_token, { authorization_details: json([ACCOUNTS]) });
      expect(refused.json().error).toBe('invalid_authorization_details');
    });

    it('the code exchange may narrow, and refuses more than the code holds', async () => {
      const narrowedFlow = await consented([PAYMENT, ACCOUNTS]);
      const narrowed = await exchange(narrowedFlow.code, narrowedFlow.verifier, { authorization_details: json([PAYMENT]) });
      expect(narrowed.statusCode, narrowed.body).toBe(200);
      expect(narrowed.json().authorization_details).toEqual([PAYMENT]);
      // The refresh token keeps the whole grant.
      expect((await refreshGrant(t.app, realm, web, narrowed.json().refresh_token)).json().authorization_details).toEqual([PAYMENT, ACCOUNTS]);

      const widenedFlow = await consented([ACCOUNTS]);
      const before = await tokenRows(web.clientId);
      const widened = await exchange(widenedFlow.code, widenedFlow.verifier, { authorization_details: json([PAYMENT]) });
      expect(widened.statusCode, widened.body).toBe(400);
      expect(widened.json().error).toBe('invalid_authorization_details');
      expect(await tokenRows(web.clientId)).toBe(before);
    });

    it.each([
      ['an unknown type', [{ type: 'wire_transfer' }]],
      ['an entry its schema refuses', [{ ...PAYMENT, creditorName: 'x'.repeat(71) }]],
      ['a non-array', PAYMENT],
    ])('sends %s back to the redirect URI as invalid_authorization_details', async (_, details) => {
      const response = await authorize(browser(), realm, codeRequest(web.clientId, { scope: 'openid', authorization_details: json(details) }));
      expectRedirectError(response, { error: 'invalid_authorization_details', iss: issuer });
    });

    it('refuses at /authorize a type the client may not use', async () => {
      const narrow = await t.admin.createClient(realm, {
        client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid', authorization_details_types: ['account_information'],
      });
      const response = await authorize(browser(), realm, codeRequest(narrow.client_id, { scope: 'openid', authorization_details: json([PAYMENT]) }));
      expectRedirectError(response, { error: 'invalid_authorization_details', iss: issuer });
    });

    it('prompt=none cannot skip the consent authorization details need', async () => {
      await consented([ACCOUNTS]);
      const b = browser();
      const signedIn = await authorize(b, realm, codeRequest(web.clientId, { scope: 'openid' }));
      await completeFlow(b, signedIn, carol);
      const silent = await authorize(b, realm, codeRequest(web.clientId, { scope: 'openid', prompt: 'none', authorization_details: json([ACCOUNTS]) }));
      expectRedirectError(silent, { error: 'consent_required', iss: issuer });
    });

    it('takes the details from a pushed request (PAR), and refuses bad ones there as JSON', async () => {
      const pushed = (details: unknown) =>
        postForm(t.app, `${realmPath(realm)}/par`, {
          response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256',
          state: 'state-123', authorization_details: json(details),
        }, { authorization: basic(web.clientId, web.secret) });
      const refused = await pushed([{ ...PAYMENT, type: 'nope' }]);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe('invalid_authorization_details');

      const { verifier, challenge } = pkce();
      const accepted = await postForm(t.app, `${realmPath(realm)}/par`, {
        response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256',
        state: 'state-123', authorization_details: json([PAYMENT]),
      }, { authorization: basic(web.clientId, web.secret) });
      expect(accepted.statusCode, accepted.body).toBe(201);
      const b = browser();
      const first = await authorize(b, realm, { client_id: web.clientId, request_uri: accepted.json().request_uri });
      const { final, pages } = await completeFlow(b, first, carol);
      expect(pages).toContain('consent');
      const tokens = await exchange(expectCode(final, { iss: issuer }), verifier);
      expect(tokens.json().authorization_details).toEqual([PAYMENT]);
    });

    it('takes the details from a signed request object (JAR), where they are a JSON array', async () => {
      const { verifier, challenge } = pkce();
      const requestObject = (details: unknown) => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({
          iss: web.clientId, aud: issuer, client_id: web.clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', state: 'state-123',
          code_challenge: challenge, code_challenge_method: 'S256', authorization_details: details, iat: now, exp: now + 300, jti: randomUUID(),
        })
          .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' })
          .sign(key.privateKey);
      };
      const refused = await authorize(browser(), realm, { client_id: web.clientId, request: await requestObject([{ ...PAYMENT, recurring: 'no' }]) });
      expectRedirectError(refused, { error: 'invalid_authorization_details', iss: issuer });

      const b = browser();
      const { final, pages } = await completeFlow(b, await authorize(b, realm, { client_id: web.clientId, request: await requestObject([ACCOUNTS]) }), carol);
      expect(pages).toContain('consent');
      expect((await exchange(expectCode(final, { iss: issuer }), verifier)).json().authorization_details).toEqual([ACCOUNTS]);
    });

    it('works end to end with openid-client, which sends and reads authorization_details', async () => {
      const config = await oidc.discovery(new URL(issuer), web.clientId, web.secret, oidc.ClientSecretBasic(web.secret), { execute: [oidc.allowInsecureRequests] });
      expect(config.serverMetadata().authorization_details_types_supported).toEqual(['payment_initiation', 'account_information']);
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI, scope: 'openid', state: 'state-123', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
        authorization_details: json([PAYMENT]),
      });
      const b = browser();
      const { final } = await completeFlow(b, await b.get(url.href), carol);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(location(final)), { pkceCodeVerifier: verifier, expectedState: 'state-123' });
      expect(tokens.authorization_details).toEqual([PAYMENT]);
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { authorization_details: json([PAYMENT]) });
      expect(refreshed.authorization_details).toEqual([PAYMENT]);
      await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!, { authorization_details: json([ACCOUNTS]) })).rejects.toMatchObject({ error: 'invalid_authorization_details' });
    });

    it('shows each entry on the consent page: the type title and the titled fields, not the untitled ones', async () => {
      const b = browser();
      const first = await authorize(b, realm, codeRequest(web.clientId, { scope: 'openid', authorization_details: json([PAYMENT, ACCOUNTS]), ui_locales: 'de' }));
      const login = location(first);
      const page = await b.get(login);
      const consent = await b.submit(login, page, { username: carol.username, password: carol.password });
      const shown = await b.get(location(consent));
      expect(shown.statusCode).toBe(200);
      const body = shown.body;
      expect(body).toContain('Im Einzelnen');
      expect(body).toContain('<strong>Payment</strong>');
      expect(body).toContain('<dt>Pay to</dt><dd>Merchant A</dd>');
      expect(body).toContain('<dt>Amount</dt><dd>Sum: 1.234,5; Currency: EUR</dd>');
      expect(body).toContain('<dt>Recurring</dt><dd>nein</dd>');
      expect(body).toContain('DE02100100109307118603');
      // A field without a title is the client's business; a type without a title is named by its type.
      expect(body).not.toContain('hidden-from-people-4711');
      expect(body).toContain('<strong>account_information</strong>');
    });
  });
});
