import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { type JWTPayload, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { expect } from 'vitest';
import { BASE_URL, type TestApp, freePort } from '../support/app.js';
import { REDIRECT_URI, type TestBrowser, location, pkce } from '../support/flow.js';
import { query } from '../support/flow-helpers.js';
import { postForm, realmPath } from '../support/oauth.js';
import { memoryAdapter } from './upstream-adapter.js';

export const UPSTREAM_CLIENT = { id: 'realmgate', secret: 'upstream-client-secret-0123456789' };

/** The callback of a realm's provider on the test app's BASE_URL. */
export const callbackOf = (realm: string, alias: string, baseUrl = BASE_URL): string => `${baseUrl}${realmPath(realm)}/broker/${alias}/callback`;

type Account = Record<string, unknown>;

/**
 * node-oidc-provider as the upstream provider, on a loopback port: one client of the realm's
 * (client_secret_basic, PKCE required), accounts with the claims the tests give them, and
 * interactions finished programmatically: the next one signs in as `nextAccount`, or refuses
 * (`access_denied`) when `refuseNext` is set. `servedJwks` replaces the key set it publishes.
 * With `interactionPages`, a browser goes through node-oidc-provider's own sign-in and consent
 * pages instead (its development interactions: the login typed is the account's id).
 */
export class Upstream {
  readonly accounts = new Map<string, Account>();
  nextAccount = '';
  refuseNext = false;
  servedJwks: object | undefined;

  private constructor(
    readonly issuer: string,
    private readonly server: Server,
    readonly kid: string,
  ) {}

  static async start(redirectUris: readonly string[], options: { interactionPages?: boolean } = {}): Promise<Upstream> {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = 'upstream-rs256';
    let self: Upstream | undefined;
    const provider = new Provider(issuer, {
      adapter: memoryAdapter(),
      clients: [
        {
          client_id: UPSTREAM_CLIENT.id,
          client_secret: UPSTREAM_CLIENT.secret,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: [...redirectUris],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      pkce: { required: () => true },
      scopes: ['openid', 'email', 'profile'],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username', 'given_name', 'family_name'] },
      // The claims of the scopes in the ID token, as most providers send them.
      conformIdTokenClaims: false,
      findAccount: (_ctx: unknown, sub: string) => {
        const account = self?.accounts.get(sub);
        return account && { accountId: sub, claims: () => ({ sub, ...account }) };
      },
      jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid }] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      features: { devInteractions: { enabled: options.interactionPages === true } },
      ttl: { Interaction: 600, Session: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60, Grant: 3600 },
    });
    provider.use(async (ctx, next) => {
      if (ctx.path === '/jwks' && self?.servedJwks) {
        ctx.type = 'application/json';
        ctx.body = self.servedJwks;
        return;
      }
      if (!ctx.path.startsWith('/interaction/') || options.interactionPages) return next();
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      const result = self!.refuseNext
        ? { error: 'access_denied', error_description: 'the person cancelled' }
        : details.prompt.name === 'login'
          ? { login: { accountId: self!.nextAccount } }
          : { consent: { grantId: await consent(provider, details) } };
      const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
      ctx.status = 303;
      ctx.redirect(returnTo);
    });
    const server = provider.listen(port, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    self = new Upstream(issuer, server, kid);
    return self;
  }

  /** A key set of the same `kid` with another key: what the provider signs with no longer verifies. */
  async publishWrongKeys(): Promise<void> {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    this.servedJwks = { keys: [{ ...(await exportJWK(publicKey)), alg: 'RS256', use: 'sig', kid: this.kid }] };
  }

  /**
   * A browser at the upstream: follows the authorization URL through its pages (cookies kept)
   * until it sends the person elsewhere, and answers where.
   */
  async browse(authorizationUrl: string): Promise<string> {
    const cookies = new Map<string, string>();
    let url = authorizationUrl;
    for (let step = 0; step < 10; step++) {
      const headers: Record<string, string> = cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
      const response = await fetch(url, { redirect: 'manual', headers });
      for (const header of response.headers.getSetCookie()) {
        const [pair] = header.split(';');
        const [name, ...value] = pair!.split('=');
        cookies.set(name!.trim(), value.join('='));
      }
      const next = response.headers.get('location');
      if (!next) throw new Error(`the upstream answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      const target = new URL(next, url);
      if (target.origin !== new URL(this.issuer).origin) return target.href;
      url = target.href;
    }
    throw new Error('the upstream kept redirecting');
  }

  /** `browse`, the person refusing at the upstream (`access_denied`) this once. */
  async browseRefused(authorizationUrl: string): Promise<string> {
    this.refuseNext = true;
    try {
      return await this.browse(authorizationUrl);
    } finally {
      this.refuseNext = false;
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The upstream's own consent: the grant gains what its prompt says is missing. */
async function consent(provider: Provider, details: Awaited<ReturnType<Provider['interactionDetails']>>): Promise<string> {
  const grant = details.grantId
    ? (await provider.Grant.find(details.grantId))!
    : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id! });
  if (details.prompt.details.missingOIDCScope) grant.addOIDCScope(details.prompt.details.missingOIDCScope.join(' '));
  if (details.prompt.details.missingOIDCClaims) grant.addOIDCClaims(details.prompt.details.missingOIDCClaims);
  return grant.save();
}

/** Adds the upstream to a realm as a provider. */
export async function addProvider(t: TestApp, realm: string, issuer: string, extra: Record<string, unknown> = {}, alias = 'up') {
  const response = await t.admin.request('POST', `/realms/${realm}/identity-providers`, {
    alias,
    kind: 'oidc',
    issuer,
    client_id: UPSTREAM_CLIENT.id,
    client_secret: UPSTREAM_CLIENT.secret,
    display_name: 'Upstream Corp',
    ...extra,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as Record<string, unknown>;
}

/** A public client of the realm, with the scopes its ID token needs. */
export async function appClient(t: TestApp, realm: string): Promise<string> {
  const client = await t.admin.createClient(realm, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: 'openid profile email',
  });
  return client.client_id;
}

/**
 * /authorize at the realm, then the sign-in page's button of the provider: answers where that
 * sends the browser (the upstream's authorization URL), and the PKCE verifier of the request.
 */
export async function startAtProvider(browser: TestBrowser, realm: string, clientId: string, alias = 'up') {
  const { verifier, challenge } = pkce();
  const authorize = await browser.get(
    `${realmPath(realm)}/authorize?${query({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile email', state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`,
  );
  const login = location(authorize);
  const page = await browser.get(login);
  expect(page.statusCode, page.body).toBe(200);
  expect(page.body).toContain(`name="provider" value="${alias}"`);
  return { response: await browser.submit(login, page, { provider: alias }), verifier };
}

/**
 * Back at the realm from the provider: the callback, then the pages it leads to (consent is
 * allowed), to the code at the client. `page` is the page shown instead, when one stops the way.
 */
export async function returnFromProvider(browser: TestBrowser, callbackUrl: string): Promise<{ code?: string; page?: LightMyRequestResponse }> {
  let response = await browser.get(callbackUrl);
  for (let step = 0; step < 5; step++) {
    if (response.statusCode !== 303) return { page: response };
    const next = location(response);
    const path = new URL(next, BASE_URL).pathname;
    if (path.endsWith('/login')) {
      response = await browser.get(next);
    } else if (path.endsWith('/consent')) {
      const page = await browser.get(next);
      response = await browser.submit(next, page, { decision: 'allow' });
    } else {
      return { code: new URL(next).searchParams.get('code') ?? undefined };
    }
  }
  throw new Error('the sign-in did not end');
}

/** The realm's tokens for a code of the app client. */
export async function exchange(t: TestApp, realm: string, clientId: string, code: string, verifier: string): Promise<{ idToken: JWTPayload; accessToken: string }> {
  const response = await postForm(t.app, `${realmPath(realm)}/access_token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
  });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { id_token: string; access_token: string };
  return { idToken: decodeJwt(body.id_token), accessToken: body.access_token };
}

/** A whole sign-in through the upstream as `account`: the ID token the realm issues for it. */
export async function signInThrough(t: TestApp, upstream: Upstream, realm: string, clientId: string, account: string, browser: TestBrowser): Promise<JWTPayload> {
  upstream.nextAccount = account;
  const started = await startAtProvider(browser, realm, clientId);
  const back = await returnFromProvider(browser, await upstream.browse(location(started.response)));
  expect(back.code, back.page?.body.slice(0, 500)).toBeDefined();
  return (await exchange(t, realm, clientId, back.code!, started.verifier)).idToken;
}
