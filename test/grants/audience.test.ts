import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, obtainCode } from '../support/flow.js';
import { type ServiceClient, introspect, realmPath } from '../support/oauth.js';
import { createUser, tokenRequest } from '../support/users.js';

/**
 * `audience` (RFC 8693 §2.1) and `resource` (RFC 8707 §2) at the token endpoint, for every
 * grant: each value within the client's `allowed_audiences` (CONTRACT.md §5), else
 * `invalid_target`; what is asked becomes the access token's `aud`, in the JWT and at
 * introspection; a refresh keeps the grant's audiences and may only narrow them.
 */

const ORDERS = 'https://orders.example.com/';
const BILLING = 'https://billing.example.com/api';
/** Not a URI: an `audience`, never a `resource`. */
const LEDGER = 'ledger-api';
const ALLOWED = [ORDERS, BILLING, LEDGER];
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

type Form = Record<string, string | string[]>;

describe('audience and resource at the token endpoint', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const client = async (realm: string, record: Record<string, unknown>): Promise<ServiceClient> => {
    const created = await t.admin.createClient(realm, record);
    return { clientId: created.client_id, secret: created.client_secret as string };
  };

  function ok(response: LightMyRequestResponse): { access_token: string; refresh_token?: string } {
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  function invalidTarget(response: LightMyRequestResponse): void {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_target', error_description: expect.any(String) });
  }

  for (const stateless of [false, true]) {
    describe(stateless ? 'JWT access tokens (stateless realm)' : 'opaque access tokens', () => {
      let realm: string;
      let issuer: string;
      let auditor: ServiceClient;
      /** client_credentials and token exchange, allowed ALLOWED. */
      let service: ServiceClient;
      /** The code flow with refresh tokens, allowed ALLOWED. */
      let web: ServiceClient;
      /** A client allowed no audience. */
      let plain: ServiceClient;
      let browser: TestBrowser;
      const person = { username: 'alice', password: 'correct horse battery' };
      let keys: ReturnType<typeof createLocalJWKSet>;

      beforeAll(async () => {
        realm = await freshRealm(t, { stateless_tokens: stateless, access_token_lifetime: 600 });
        issuer = issuerOf(realm);
        await t.admin.putScope(realm, 'a');
        await createUser(t.admin, realm, person.username, { password: person.password });
        auditor = await client(realm, { grant_types: ['client_credentials'], scope: 'a', introspect_any_token: true });
        service = await client(realm, { grant_types: ['client_credentials', EXCHANGE], scope: 'a', allowed_audiences: ALLOWED });
        web = await client(realm, {
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          scope: 'openid profile a',
          allowed_audiences: ALLOWED,
        });
        plain = await client(realm, { grant_types: ['client_credentials'], scope: 'a' });
        browser = new TestBrowser(t.app, t.baseUrl);
        const jwks = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/jwk_uri` });
        keys = createLocalJWKSet(jwks.json());
      });

      const clientCredentials = (by: ServiceClient, form: Form = {}) => tokenRequest(t.app, realm, by, { grant_type: 'client_credentials', scope: 'a', ...form });

      /** The `aud` of the access token at introspection, and in the JWT (the issuer when none was asked) for a stateless realm. */
      async function audienceOf(token: string): Promise<unknown> {
        const body = (await introspect(t.app, realm, auditor, token)).json() as Record<string, unknown>;
        expect(body.active).toBe(true);
        if (stateless) {
          const { payload } = await jwtVerify(token, keys, { issuer, typ: 'at+jwt' });
          expect(payload.aud).toEqual(body.aud ?? issuer);
        } else {
          expect(token.split('.')).toHaveLength(1);
        }
        return body.aud;
      }

      const sorted = (value: unknown) => [...(value as string[])].sort();

      /** A code of the web client for alice, exchanged with `form` added. */
      async function codeExchange(form: Form = {}): Promise<LightMyRequestResponse> {
        const { code, verifier } = await obtainCode(browser, realm, { clientId: web.clientId, ...person, params: { scope: 'openid a' } });
        return tokenRequest(t.app, realm, web, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, ...form });
      }

      const refresh = (refreshToken: string, form: Form = {}) => tokenRequest(t.app, realm, web, { grant_type: 'refresh_token', refresh_token: refreshToken, ...form });

      describe('client credentials', () => {
        it("refuses an audience or resource beyond the client's allowed_audiences with invalid_target", async () => {
          invalidTarget(await clientCredentials(service, { audience: 'payroll-api' }));
          invalidTarget(await clientCredentials(service, { resource: 'https://payroll.example.com/' }));
          invalidTarget(await clientCredentials(service, { audience: [LEDGER, 'payroll-api'] }));
          // A client that lists none may ask for none.
          invalidTarget(await clientCredentials(plain, { audience: LEDGER }));
          invalidTarget(await clientCredentials(plain, { resource: ORDERS }));
        });

        it('refuses a resource that is not an absolute URI, or has a fragment, with invalid_target, even one listed', async () => {
          invalidTarget(await clientCredentials(service, { resource: LEDGER }));
          invalidTarget(await clientCredentials(service, { resource: '/orders' }));
          invalidTarget(await clientCredentials(service, { resource: `${ORDERS}#part` }));
        });

        it('makes one allowed value the aud, as a string', async () => {
          expect(await audienceOf(ok(await clientCredentials(service, { audience: LEDGER })).access_token)).toBe(LEDGER);
          expect(await audienceOf(ok(await clientCredentials(service, { resource: ORDERS })).access_token)).toBe(ORDERS);
        });

        it('makes several allowed values the aud, as an array, each once', async () => {
          const token = ok(await clientCredentials(service, { audience: [LEDGER, ORDERS], resource: [ORDERS, BILLING] })).access_token;
          expect(sorted(await audienceOf(token))).toEqual([...ALLOWED].sort());
        });

        it('names no aud at introspection (the issuer in a JWT) when none is asked', async () => {
          expect(await audienceOf(ok(await clientCredentials(plain)).access_token)).toBeUndefined();
        });
      });

      describe('authorization code and refresh', () => {
        it('refuses a value beyond allowed_audiences at the code exchange with invalid_target, and spends no code', async () => {
          const { code, verifier } = await obtainCode(browser, realm, { clientId: web.clientId, ...person, params: { scope: 'openid a' } });
          const form = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI };
          invalidTarget(await tokenRequest(t.app, realm, web, { ...form, audience: 'payroll-api' }));
          invalidTarget(await tokenRequest(t.app, realm, web, { ...form, resource: [ORDERS, 'https://payroll.example.com/'] }));
          const tokens = ok(await tokenRequest(t.app, realm, web, { ...form, resource: ORDERS }));
          expect(await audienceOf(tokens.access_token)).toBe(ORDERS);
        });

        it("gives the code exchange's audiences to the grant: a refresh keeps them all by default, and may narrow them", async () => {
          const tokens = ok(await codeExchange({ resource: [ORDERS, BILLING] }));
          expect(sorted(await audienceOf(tokens.access_token))).toEqual([BILLING, ORDERS]);
          // A refresh token is for this server: introspection names no aud for it.
          const described = (await introspect(t.app, realm, auditor, tokens.refresh_token!)).json();
          expect(described).toMatchObject({ active: true, token_type: 'refresh_token' });
          expect(described.aud).toBeUndefined();

          const kept = ok(await refresh(tokens.refresh_token!));
          expect(sorted(await audienceOf(kept.access_token))).toEqual([BILLING, ORDERS]);
          const narrowed = ok(await refresh(kept.refresh_token!, { resource: BILLING }));
          expect(await audienceOf(narrowed.access_token)).toBe(BILLING);
          // The new refresh token still carries the whole grant's.
          const again = ok(await refresh(narrowed.refresh_token!));
          expect(sorted(await audienceOf(again.access_token))).toEqual([BILLING, ORDERS]);
        });

        it('refuses at refresh, with invalid_target, a value outside the grant or beyond allowed_audiences, leaving the refresh token usable', async () => {
          const tokens = ok(await codeExchange({ resource: ORDERS }));
          // Allowed to the client, but not part of this grant: a refresh never widens it.
          invalidTarget(await refresh(tokens.refresh_token!, { audience: LEDGER }));
          invalidTarget(await refresh(tokens.refresh_token!, { resource: [ORDERS, BILLING] }));
          invalidTarget(await refresh(tokens.refresh_token!, { audience: 'payroll-api' }));
          invalidTarget(await refresh(tokens.refresh_token!, { resource: `${ORDERS}#x` }));
          const renewed = ok(await refresh(tokens.refresh_token!, { resource: ORDERS }));
          expect(await audienceOf(renewed.access_token)).toBe(ORDERS);
        });

        it("lets a grant without audiences refresh for any of the client's allowed ones, and no other", async () => {
          const tokens = ok(await codeExchange());
          expect(await audienceOf(tokens.access_token)).toBeUndefined();
          invalidTarget(await refresh(tokens.refresh_token!, { audience: 'payroll-api' }));
          const forLedger = ok(await refresh(tokens.refresh_token!, { audience: LEDGER }));
          expect(await audienceOf(forLedger.access_token)).toBe(LEDGER);
          // The grant itself stays without audiences.
          expect(await audienceOf(ok(await refresh(forLedger.refresh_token!)).access_token)).toBeUndefined();
        });
      });

      describe('token exchange', () => {
        it("refuses a value beyond allowed_audiences with invalid_target, and puts allowed ones in aud", async () => {
          const subject = ok(await clientCredentials(service)).access_token;
          const exchange = (form: Form) =>
            tokenRequest(t.app, realm, service, {
              grant_type: EXCHANGE,
              subject_token: subject,
              subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
              ...form,
            });
          invalidTarget(await exchange({ audience: 'payroll-api' }));
          invalidTarget(await exchange({ resource: 'https://payroll.example.com/' }));
          const token = ok(await exchange({ audience: LEDGER, resource: ORDERS })).access_token;
          expect(sorted(await audienceOf(token))).toEqual([LEDGER, ORDERS].sort());
        });
      });
    });
  }
});
