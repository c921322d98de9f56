import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT, createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import {
  authorize,
  codeRequest,
  completeFlow,
  expectCode,
  expectErrorPage,
  expectRedirectError,
  freshRealm,
  issuerOf,
  redirectPath,
  signInFrom,
} from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { keyPair } from '../support/keys.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { Invalidations } from '../support/invalidations.js';
import { createUser, tokenRequest } from '../support/users.js';

/**
 * Registered resources (CONTRACT.md §10) and RFC 8707 resource indicators (§11): `resource` at
 * /authorize, /par and the token endpoint, for any client of the realm; the token's `aud` is the
 * asked resources, in the JWT and at introspection; a resource that lists scopes narrows the
 * access token's scope; the code exchange and refresh narrow; the consent page names the
 * resources, and a consent given without a resource does not cover one.
 */

/** Lists orders:read and orders:write. */
const ORDERS = 'https://orders.example.com/api';
/** Lists billing. */
const BILLING = 'https://billing.example.com/';
/** Lists no scopes, and has no name: the consent page shows its identifier. */
const REPORTS = 'urn:example:reports';
const ALL_SCOPES = 'orders:read orders:write billing other';

type Form = Record<string, string | string[]>;
type Json = Record<string, unknown>;

describe('registered resources and resource indicators (RFC 8707)', () => {
  let t: TestApp;
  const person = { username: 'alice', password: 'correct horse battery' };

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const client = async (realm: string, record: Record<string, unknown>): Promise<ServiceClient> => {
    const created = await t.admin.createClient(realm, record);
    return { clientId: created.client_id, secret: created.client_secret as string };
  };

  /** A realm with the three resources, their scopes, alice, and the clients of the tests (none with allowed_audiences). */
  async function resourceRealm(settings: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, { access_token_lifetime: 600, ...settings });
    for (const scope of ALL_SCOPES.split(' ')) await t.admin.putScope(realm, scope);
    for (const body of [
      { identifier: ORDERS, name: 'Orders API', scopes: ['orders:read', 'orders:write'] },
      { identifier: BILLING, name: 'Billing', scopes: ['billing'] },
      { identifier: REPORTS },
    ]) {
      const response = await t.admin.request('PUT', `/realms/${realm}/resources`, body);
      expect(response.statusCode, response.body).toBe(201);
    }
    await createUser(t.admin, realm, person.username, { password: person.password });
    const auditor = await client(realm, { grant_types: ['client_credentials'], scope: 'other', introspect_any_token: true });
    const service = await client(realm, { grant_types: ['client_credentials'], scope: ALL_SCOPES });
    const web = await client(realm, {
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: `openid profile ${ALL_SCOPES}`,
    });
    const jwks = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/jwk_uri` });
    return { realm, issuer: issuerOf(realm), auditor, service, web, keys: createLocalJWKSet(jwks.json()) };
  }
  type ResourceRealm = Awaited<ReturnType<typeof resourceRealm>>;

  function ok(response: LightMyRequestResponse): { access_token: string; refresh_token?: string; id_token?: string; scope: string } {
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  function invalidTarget(response: LightMyRequestResponse): void {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_target', error_description: expect.any(String) });
  }

  /** The access token's `aud` and `scope` at introspection, and the same in the JWT of a stateless realm. */
  async function described(r: ResourceRealm, token: string, stateless: boolean): Promise<{ aud: unknown; scope: unknown }> {
    const body = (await introspect(t.app, r.realm, r.auditor, token)).json() as Json;
    expect(body.active, JSON.stringify(body)).toBe(true);
    if (stateless) {
      const { payload } = await jwtVerify(token, r.keys, { issuer: r.issuer, typ: 'at+jwt' });
      expect(payload.aud).toEqual(body.aud ?? r.issuer);
      expect(payload.scope).toEqual(body.scope);
    } else {
      expect(token.split('.')).toHaveLength(1);
    }
    return { aud: body.aud, scope: body.scope };
  }

  const sorted = (value: unknown) => [...(value as string[])].sort();

  /** /authorize, sign-in and (shown or not) consent: the code, the verifier and the pages shown. */
  async function authorized(r: ResourceRealm, browser: TestBrowser, params: Form) {
    const { verifier, challenge } = pkce();
    const first = await authorize(browser, r.realm, codeRequest(r.web.clientId, { code_challenge: challenge, ...params }));
    const { final, pages } = await completeFlow(browser, first, person);
    return { code: expectCode(final, { iss: r.issuer }), verifier, pages };
  }

  const exchange = (r: ResourceRealm, code: string, verifier: string, form: Form = {}) =>
    tokenRequest(t.app, r.realm, r.web, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, ...form });

  const refresh = (r: ResourceRealm, refreshToken: string, form: Form = {}) =>
    tokenRequest(t.app, r.realm, r.web, { grant_type: 'refresh_token', refresh_token: refreshToken, ...form });

  for (const stateless of [false, true]) {
    describe(stateless ? 'JWT access tokens (stateless realm)' : 'opaque access tokens', () => {
      let r: ResourceRealm;
      beforeAll(async () => {
        r = await resourceRealm({ stateless_tokens: stateless });
      });

      const clientCredentials = (form: Form) => tokenRequest(t.app, r.realm, r.service, { grant_type: 'client_credentials', scope: ALL_SCOPES, ...form });

      describe('client credentials', () => {
        it('gives a client with no allowed_audiences a token for a registered resource: aud is it, the scope those it lists', async () => {
          const tokens = ok(await clientCredentials({ resource: ORDERS }));
          expect(tokens.scope).toBe('orders:read orders:write');
          expect(await described(r, tokens.access_token, stateless)).toEqual({ aud: ORDERS, scope: 'orders:read orders:write' });
          // The audience parameter (RFC 8693) names a registered resource as well.
          expect((await described(r, ok(await clientCredentials({ audience: BILLING })).access_token, stateless)).aud).toBe(BILLING);
        });

        it('makes several resources the aud, as an array, with the scopes any of them lists; one that lists none leaves every scope', async () => {
          const both = ok(await clientCredentials({ resource: [ORDERS, BILLING, ORDERS] }));
          expect(both.scope).toBe('orders:read orders:write billing');
          const token = await described(r, both.access_token, stateless);
          expect(sorted(token.aud)).toEqual([BILLING, ORDERS]);
          const withReports = ok(await clientCredentials({ resource: [ORDERS, REPORTS] }));
          expect(withReports.scope).toBe(ALL_SCOPES);
          expect(sorted((await described(r, withReports.access_token, stateless)).aud)).toEqual([ORDERS, REPORTS].sort());
          // None of the scopes asked is one the resource lists: a token for it, with no scope.
          expect(ok(await clientCredentials({ resource: BILLING, scope: 'orders:read' })).scope).toBe('');
        });

        it('refuses an unknown resource, one with a fragment, and a relative one with invalid_target', async () => {
          invalidTarget(await clientCredentials({ resource: 'https://payroll.example.com/' }));
          invalidTarget(await clientCredentials({ resource: [ORDERS, 'https://payroll.example.com/'] }));
          invalidTarget(await clientCredentials({ resource: `${ORDERS}#v1` }));
          invalidTarget(await clientCredentials({ resource: '/api' }));
          invalidTarget(await clientCredentials({ resource: 'orders.example.com/api' }));
          invalidTarget(await clientCredentials({ audience: 'payroll-api' }));
        });
      });

      describe('authorization code and refresh', () => {
        it('carries the resources of /authorize into the code: the exchange\'s aud, the scopes they list, the ID token and refresh token the grant\'s', async () => {
          const browser = new TestBrowser(t.app, t.baseUrl);
          const { code, verifier } = await authorized(r, browser, { scope: 'openid orders:read billing other', resource: [ORDERS, BILLING] });
          const tokens = ok(await exchange(r, code, verifier));
          expect(tokens.scope).toBe('orders:read billing');
          const token = await described(r, tokens.access_token, stateless);
          expect(sorted(token.aud)).toEqual([BILLING, ORDERS]);
          expect(token.scope).toBe('orders:read billing');
          // The grant is the person's whole consent: the ID token, and the refresh token's scope.
          expect(decodeJwt(tokens.id_token!).aud).toBe(r.web.clientId);
          const grant = (await introspect(t.app, r.realm, r.auditor, tokens.refresh_token!)).json() as Json;
          expect(grant).toMatchObject({ active: true, token_type: 'refresh_token', scope: 'openid orders:read billing other' });

          // A refresh keeps all the grant's resources by default, and may narrow them, and the scope with them.
          const kept = ok(await refresh(r, tokens.refresh_token!));
          expect(sorted((await described(r, kept.access_token, stateless)).aud)).toEqual([BILLING, ORDERS]);
          expect(kept.scope).toBe('orders:read billing');
          const narrowed = ok(await refresh(r, kept.refresh_token!, { resource: BILLING }));
          expect(await described(r, narrowed.access_token, stateless)).toEqual({ aud: BILLING, scope: 'billing' });
          expect(narrowed.scope).toBe('billing');
          const again = ok(await refresh(r, narrowed.refresh_token!));
          expect(sorted((await described(r, again.access_token, stateless)).aud)).toEqual([BILLING, ORDERS]);
        });

        it('narrows at the exchange to a subset of the authorized resources, the refresh token keeping them all', async () => {
          const browser = new TestBrowser(t.app, t.baseUrl);
          const { code, verifier } = await authorized(r, browser, { scope: 'openid orders:read orders:write billing', resource: [ORDERS, BILLING, REPORTS] });
          const tokens = ok(await exchange(r, code, verifier, { resource: ORDERS }));
          expect(tokens.scope).toBe('orders:read orders:write');
          expect(await described(r, tokens.access_token, stateless)).toEqual({ aud: ORDERS, scope: 'orders:read orders:write' });
          const all = ok(await refresh(r, tokens.refresh_token!));
          expect(sorted((await described(r, all.access_token, stateless)).aud)).toEqual([BILLING, ORDERS, REPORTS].sort());
          expect(all.scope).toBe('openid orders:read orders:write billing');
        });

        it('refuses, with invalid_target, an exchange beyond the authorized resources (spending the code) and a refresh beyond the grant (not spending the refresh token)', async () => {
          const browser = new TestBrowser(t.app, t.baseUrl);
          const { code, verifier } = await authorized(r, browser, { scope: 'openid orders:read', resource: ORDERS });
          invalidTarget(await exchange(r, code, verifier, { resource: [ORDERS, BILLING] }));
          // As a wrong verifier does, a refused check spends the code.
          const spent = await exchange(r, code, verifier, { resource: ORDERS });
          expect(spent.statusCode).toBe(400);
          expect(spent.json()).toMatchObject({ error: 'invalid_grant' });

          const second = await authorized(r, browser, { scope: 'openid orders:read', resource: ORDERS });
          const tokens = ok(await exchange(r, second.code, second.verifier));
          invalidTarget(await refresh(r, tokens.refresh_token!, { resource: BILLING }));
          invalidTarget(await refresh(r, tokens.refresh_token!, { resource: 'https://payroll.example.com/' }));
          invalidTarget(await refresh(r, tokens.refresh_token!, { resource: `${ORDERS}#x` }));
          expect((await described(r, ok(await refresh(r, tokens.refresh_token!, { resource: ORDERS })).access_token, stateless)).aud).toBe(ORDERS);
        });

        it('refuses a registered resource at the exchange and refresh of a grant authorized for none: the person never saw it', async () => {
          const browser = new TestBrowser(t.app, t.baseUrl);
          const { code, verifier } = await authorized(r, browser, { scope: 'openid orders:read' });
          invalidTarget(await exchange(r, code, verifier, { resource: ORDERS }));
          const second = await authorized(r, browser, { scope: 'openid orders:read' });
          const tokens = ok(await exchange(r, second.code, second.verifier));
          expect((await described(r, tokens.access_token, stateless)).aud).toBeUndefined();
          invalidTarget(await refresh(r, tokens.refresh_token!, { resource: ORDERS }));
          ok(await refresh(r, tokens.refresh_token!));
        });
      });
    });
  }

  describe('at /authorize and /par', () => {
    let r: ResourceRealm;
    beforeAll(async () => {
      r = await resourceRealm();
    });

    it('redirects an unknown resource, one with a fragment, or a relative one with invalid_target, state and iss', async () => {
      const browser = new TestBrowser(t.app, t.baseUrl);
      for (const resource of ['https://payroll.example.com/', [ORDERS, 'https://payroll.example.com/'], `${ORDERS}#v1`, '/api', 'api']) {
        const response = await authorize(browser, r.realm, codeRequest(r.web.clientId, { resource }));
        expectRedirectError(response, { error: 'invalid_target', iss: r.issuer });
      }
    });

    it('shows the error page, never a redirect, when the client or redirect URI cannot be trusted, whatever the resource', async () => {
      const browser = new TestBrowser(t.app, t.baseUrl);
      expectErrorPage(await authorize(browser, r.realm, codeRequest('no-such-client', { resource: 'https://payroll.example.com/' })));
      expectErrorPage(await authorize(browser, r.realm, codeRequest(r.web.clientId, { resource: 'https://payroll.example.com/', redirect_uri: 'https://evil.example/cb' })));
    });

    it('names the resources on the consent page, by name or else identifier, and records them with consent.granted', async () => {
      const browser = new TestBrowser(t.app, t.baseUrl);
      const first = await authorize(browser, r.realm, codeRequest(r.web.clientId, { scope: 'openid orders:read', resource: [ORDERS, REPORTS] }));
      const atConsent = await signInFrom(browser, first, person);
      expect(redirectPath(atConsent)).toMatch(/\/consent$/);
      const page = await browser.get(location(atConsent));
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('This access is for:');
      expect(page.body).toContain('<li><strong>Orders API</strong></li>');
      expect(page.body).toContain(`<li><strong>${REPORTS}</strong></li>`);
      expect(page.body).not.toContain('Billing');
      const allowed = await browser.submit(location(atConsent), page, { decision: 'allow' });
      expectCode(allowed, { iss: r.issuer });
      const events = (await t.admin.request('GET', `/realms/${r.realm}/events?type=consent.granted`)).json() as { events: Json[] };
      expect(events.events[0]!.details).toMatchObject({ scope: 'openid orders:read', resources: [ORDERS, REPORTS] });

      // The page speaks the request's language.
      const german = await authorize(browser, r.realm, codeRequest(r.web.clientId, { scope: 'openid orders:read', resource: BILLING, ui_locales: 'de' }));
      const germanPage = await browser.get(location(german));
      expect(germanPage.body).toContain('Dieser Zugriff gilt für:');
      expect(germanPage.body).toContain('<li><strong>Billing</strong></li>');
    });

    it('asks for consent again for a resource the person has not allowed the client, but not for one allowed before', async () => {
      // A realm of its own: nobody has allowed anything there yet.
      const r = await resourceRealm();
      const browser = new TestBrowser(t.app, t.baseUrl);
      expect((await authorized(r, browser, { scope: 'openid orders:read', resource: ORDERS })).pages).toEqual(['login', 'consent']);
      // Allowed before: the code at once, with the resource or without one.
      expect((await authorized(r, browser, { scope: 'openid orders:read', resource: ORDERS })).pages).toEqual([]);
      expect((await authorized(r, browser, { scope: 'openid orders:read' })).pages).toEqual([]);
      // A consent that covered the scopes does not cover another resource.
      const none = await authorize(browser, r.realm, codeRequest(r.web.clientId, { scope: 'openid orders:read', resource: BILLING, prompt: 'none' }));
      expectRedirectError(none, { error: 'consent_required', iss: r.issuer });
      expect((await authorized(r, browser, { scope: 'openid orders:read', resource: BILLING })).pages).toEqual(['consent']);
      // Both are allowed now, in any combination.
      expect((await authorized(r, browser, { scope: 'openid orders:read', resource: [BILLING, ORDERS] })).pages).toEqual([]);
    });

    it('takes resource at /par: checked there (400 invalid_target), then the pushed request\'s consent and code are for it', async () => {
      const par = (form: Form) => postForm(t.app, `${realmPath(r.realm)}/par`, form, { authorization: basic(r.web.clientId, r.web.secret) });
      const { verifier, challenge } = pkce();
      const request = { ...codeRequest(r.web.clientId, { code_challenge: challenge, scope: 'openid billing' }) } as Form;
      for (const resource of ['https://payroll.example.com/', `${BILLING}#x`, 'billing']) invalidTarget(await par({ ...request, resource }));

      const pushed = await par({ ...request, resource: [BILLING, REPORTS] });
      expect(pushed.statusCode, pushed.body).toBe(201);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const first = await authorize(browser, r.realm, { client_id: r.web.clientId, request_uri: (pushed.json() as { request_uri: string }).request_uri });
      const atConsent = await signInFrom(browser, first, person);
      const page = await browser.get(location(atConsent));
      expect(page.body).toContain('<li><strong>Billing</strong></li>');
      const code = expectCode(await browser.submit(location(atConsent), page, { decision: 'allow' }), { iss: r.issuer });
      const tokens = ok(await exchange(r, code, verifier));
      expect(sorted(((await introspect(t.app, r.realm, r.auditor, tokens.access_token)).json() as Json).aud)).toEqual([BILLING, REPORTS].sort());
    });

    it('takes resource from a signed request object, as a string or an array', async () => {
      const key = await keyPair('ES256');
      const signer = await client(r.realm, {
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        scope: 'openid orders:read',
        jwks: { keys: [key.publicJwk] },
      });
      const browser = new TestBrowser(t.app, t.baseUrl);
      for (const resource of [ORDERS, [ORDERS, REPORTS]]) {
        const { verifier, challenge } = pkce();
        const now = Math.floor(Date.now() / 1000);
        const jwt = await new SignJWT({
          iss: signer.clientId, aud: r.issuer, client_id: signer.clientId, response_type: 'code', redirect_uri: REDIRECT_URI,
          scope: 'openid orders:read', state: 'state-123', code_challenge: challenge, code_challenge_method: 'S256',
          resource, iat: now, exp: now + 300, jti: randomUUID(),
        }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' }).sign(key.privateKey);
        const { final } = await completeFlow(browser, await authorize(browser, r.realm, { client_id: signer.clientId, request: jwt }), person);
        const code = expectCode(final, { iss: r.issuer });
        const tokens = ok(await tokenRequest(t.app, r.realm, signer, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI }));
        expect(((await introspect(t.app, r.realm, r.auditor, tokens.access_token)).json() as Json).aud).toEqual(resource);
      }
      const now = Math.floor(Date.now() / 1000);
      const bad = await new SignJWT({
        iss: signer.clientId, aud: r.issuer, client_id: signer.clientId, response_type: 'code', redirect_uri: REDIRECT_URI,
        scope: 'openid', state: 'state-123', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: [ORDERS, 7], iat: now, exp: now + 300,
      }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' }).sign(key.privateKey);
      expectRedirectError(await authorize(browser, r.realm, { client_id: signer.clientId, request: bad, redirect_uri: REDIRECT_URI, state: 'state-123' }), {
        error: 'invalid_request_object',
        iss: r.issuer,
      });
    });
  });

  describe('realm isolation', () => {
    it('refuses a resource of realm A with invalid_target in realm B, at the token endpoint, /authorize and /par', async () => {
      const a = await resourceRealm();
      const b = await freshRealm(t);
      await t.admin.putScope(b, 'orders:read');
      const service = await client(b, { grant_types: ['client_credentials'], scope: 'orders:read' });
      const web = await client(b, { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid orders:read' });
      invalidTarget(await tokenRequest(t.app, b, service, { grant_type: 'client_credentials', resource: ORDERS }));
      const browser = new TestBrowser(t.app, t.baseUrl);
      const request = (resource: string) => codeRequest(web.clientId, { scope: 'openid orders:read', resource });
      expectRedirectError(await authorize(browser, b, request(ORDERS)), { error: 'invalid_target', iss: issuerOf(b) });
      invalidTarget(await postForm(t.app, `${realmPath(b)}/par`, request(ORDERS) as Form, { authorization: basic(web.clientId, web.secret) }));
      // And in A, where it is registered, it is served.
      ok(await tokenRequest(t.app, a.realm, a.service, { grant_type: 'client_credentials', scope: 'orders:read', resource: ORDERS }));
      // Registered in B too, it is B's own: its scopes are B's resource's.
      expect((await t.admin.request('PUT', `/realms/${b}/resources`, { identifier: ORDERS })).statusCode).toBe(201);
      expect(ok(await tokenRequest(t.app, b, service, { grant_type: 'client_credentials', resource: ORDERS })).scope).toBe('orders:read');
    });
  });
});

describe('registered resources on two instances', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let invalidations: Invalidations;
  beforeAll(async () => {
    invalidations = Invalidations.watch();
    instances = await startTwoInstances();
  });
  afterAll(async () => {
    invalidations?.stop();
    await instances?.close();
  });

  /** B's cached resources are dropped by the change's notification, which arrives as the change commits. */
  async function eventually(check: () => Promise<number>, status: number): Promise<void> {
    await invalidations.settled(instances.db, 2);
    const deadline = Date.now() + 2_000;
    while ((await check()) !== status && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await check()).toBe(status);
  }

  it('a resource registered on one instance is taken by the other, and refused there once it is deleted', async () => {
    const { a, b } = instances;
    const admin = new AdminClient(a);
    await admin.createRealm('shared');
    await admin.putScope('shared', 'orders:read');
    const created = await admin.createClient('shared', { grant_types: ['client_credentials'], scope: 'orders:read' });
    const service: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
    const asked = async () => (await tokenRequest(b, 'shared', service, { grant_type: 'client_credentials', resource: ORDERS })).statusCode;

    expect(await asked()).toBe(400);
    expect((await admin.request('PUT', '/realms/shared/resources', { identifier: ORDERS })).statusCode).toBe(201);
    await eventually(asked, 200);
    expect((await admin.request('DELETE', `/realms/shared/resources?identifier=${encodeURIComponent(ORDERS)}`)).statusCode).toBe(204);
    await eventually(asked, 400);
  });
});
