import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { CookieJar } from 'tough-cookie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { unescape } from '../support/flow.js';

/**
 * A certified client library (oauth4webapi) completes the authorization code flow over a
 * real listening server: discovery, the authorization request with PKCE, the pages driven
 * as any HTTP client drives them (CONTRACT.md §4: read the form, post it back with the
 * cookies), the RFC 9207 response check, the code exchange with its ID token, UserInfo,
 * and a refresh.
 */

const REALM = 'alpha';
const REDIRECT_URI = 'http://127.0.0.1/callback'; // never fetched: the redirect is read, not followed
const PASSWORD = 'correct horse battery';
const insecure = { [oauth.allowInsecureRequests]: true }; // the test server speaks plain HTTP on loopback

const attr = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? unescape(match[1]!) : undefined;
};

/** The page's one POST form: where it goes (the page itself when it names no action) and its hidden inputs. */
function readForm(page: string, pageUrl: URL): { action: URL; hidden: Record<string, string> } {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(page);
  if (!form) throw new Error(`no form on the page: ${page.slice(0, 500)}`);
  const open = /<form\b[^>]*>/i.exec(form[0])![0];
  expect(attr(open, 'method')?.toLowerCase()).toBe('post');
  const action = attr(open, 'action');
  const hidden: Record<string, string> = {};
  for (const [tag] of form[1]!.matchAll(/<input\b[^>]*>/gi)) {
    if (attr(tag, 'type') === 'hidden' && attr(tag, 'name') !== undefined) hidden[attr(tag, 'name')!] = attr(tag, 'value') ?? '';
  }
  return { action: action ? new URL(action, pageUrl) : pageUrl, hidden };
}

/** A browser without JavaScript: fetch with a cookie jar, following nothing by itself. */
class FormBrowser {
  readonly jar = new CookieJar();

  async request(url: URL, init: { method?: 'GET' | 'POST'; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookie = this.jar.getCookieStringSync(url.href);
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) this.jar.setCookieSync(line, url.href);
    return response;
  }

  /**
   * From the authorization URL to the redirect back to the client: each page is read and
   * its form posted back with what a person would enter. Returns the redirect URI with the
   * response parameters, and the names of the pages seen on the way.
   */
  async authorize(start: URL, answers: { username: string; password: string }): Promise<{ callback: URL; pages: string[] }> {
    const pages: string[] = [];
    let response = await this.request(start);
    for (let step = 0; step < 6; step++) {
      expect(response.status, await peek(response)).toBe(303);
      const next = new URL(response.headers.get('location')!, response.url);
      await response.arrayBuffer(); // read to the end: the connection goes back to the pool
      if (next.href.startsWith(REDIRECT_URI)) return { callback: next, pages };

      const page = await this.request(next);
      const body = await page.text();
      expect(page.status, body).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const { action, hidden } = readForm(body, next);
      if (/name="password"/.test(body)) {
        pages.push('sign-in');
        response = await this.request(action, { method: 'POST', form: { ...hidden, username: answers.username, password: answers.password } });
      } else if (/name="decision" value="allow"/.test(body)) {
        pages.push('consent');
        response = await this.request(action, { method: 'POST', form: { ...hidden, decision: 'allow' } });
      } else {
        throw new Error(`an unexpected page at ${next.href}: ${body.slice(0, 500)}`);
      }
    }
    throw new Error('the flow did not come back to the client');
  }
}

async function peek(response: Response): Promise<string> {
  if (response.status === 303) return '';
  return `${response.status} ${await response.clone().text()}`;
}

describe('oauth4webapi completes the authorization code flow', () => {
  let t: TestApp;
  let issuer: URL;
  let as: oauth.AuthorizationServer;
  let jwks: ReturnType<typeof createRemoteJWKSet>;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    await t.admin.createRealm(REALM);
    await t.admin.putScope(REALM, 'orders:read', 'Read your orders');
    const user = await t.admin.request('POST', `/realms/${REALM}/users`, {
      username: 'alice',
      password: PASSWORD,
      claims: { name: 'Alice Liddell', email: 'alice@example.com', email_verified: true },
    });
    expect(user.statusCode).toBe(201);

    issuer = new URL(`${t.baseUrl}/oauth2/${REALM}`);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
    jwks = createRemoteJWKSet(new URL(as.jwks_uri!));
  });
  afterAll(() => t.close());

  const cases = [
    {
      name: 'a public client (none + PKCE) with ES256 ID tokens',
      record: { client_type: 'public', token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
      alg: 'ES256',
      auth: () => oauth.None(),
    },
    {
      name: 'a confidential client (client_secret_basic) with RS256 ID tokens',
      record: { client_type: 'confidential', token_endpoint_auth_method: 'client_secret_basic' },
      alg: 'RS256',
      auth: (secret?: string) => oauth.ClientSecretBasic(secret!),
    },
  ] as const;

  it('discovers what the flow needs', () => {
    expect(as.issuer).toBe(issuer.href);
    expect(as.authorization_endpoint).toBe(`${issuer.href}/authorize`);
    expect(as.token_endpoint).toBe(`${issuer.href}/access_token`);
    expect(as.userinfo_endpoint).toBe(`${issuer.href}/userinfo`);
    expect(as.code_challenge_methods_supported).toContain('S256');
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']));
  });

  for (const c of cases) {
    it(`${c.name}: authorize, sign in, consent, exchange, userinfo, refresh`, async () => {
      const created = await t.admin.createClient(REALM, {
        ...c.record,
        client_name: c.name,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile email orders:read',
      });
      const client: oauth.Client = { client_id: created.client_id, id_token_signed_response_alg: c.alg };
      const clientAuth = c.auth(created.client_secret);

      // The authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1).
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const authorizationUrl = new URL(as.authorization_endpoint!);
      authorizationUrl.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid profile email orders:read',
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      }).toString();

      const browser = new FormBrowser();
      const { callback, pages } = await browser.authorize(authorizationUrl, { username: 'alice', password: PASSWORD });
      expect(pages).toEqual(['sign-in', 'consent']);

      // RFC 9207 and the state: oauth4webapi checks `iss` against the issuer it discovered.
      const callbackParameters = oauth.validateAuthResponse(as, client, callback, state);
      expect(callbackParameters.get('iss')).toBe(issuer.href);

      // The code exchange validates the ID token's claims: iss, aud, exp, iat, nonce, alg.
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callbackParameters, REDIRECT_URI, codeVerifier, insecure),
        { expectedNonce: nonce, requireIdToken: true },
      );
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.scope).toBe('openid profile email orders:read');
      expect(tokens.refresh_token).toEqual(expect.any(String));
      const claims = oauth.getValidatedIdTokenClaims(tokens)!;
      expect(claims).toMatchObject({ iss: issuer.href, aud: client.client_id, nonce, name: 'Alice Liddell', email: 'alice@example.com' });

      // oauth4webapi does not check the ID token's signature (it came over TLS from the token
      // endpoint); jose checks it against the realm's published keys.
      expect(decodeProtectedHeader(tokens.id_token!).alg).toBe(c.alg);
      const verified = await jwtVerify(tokens.id_token!, jwks, { issuer: issuer.href, audience: client.client_id, algorithms: [c.alg] });
      expect(verified.payload.sub).toBe(claims.sub);

      // UserInfo (OIDC Core §5.3): the same subject, and the claims the scope releases.
      const userinfo = await oauth.processUserInfoResponse(
        as,
        client,
        claims.sub,
        await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
      );
      expect(userinfo).toMatchObject({ sub: claims.sub, name: 'Alice Liddell', email: 'alice@example.com', email_verified: true, preferred_username: 'alice' });

      // A refresh (RFC 6749 §6) rotates the refresh token; the new ID token is of the same person.
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
      );
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).toEqual(expect.any(String));
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      if (refreshed.id_token) {
        const again = await jwtVerify(refreshed.id_token, jwks, { issuer: issuer.href, audience: client.client_id, algorithms: [c.alg] });
        expect(again.payload.sub).toBe(claims.sub);
        expect(again.payload.auth_time).toBe(claims.auth_time);
      }
      const afterRefresh = await oauth.processUserInfoResponse(
        as,
        client,
        claims.sub,
        await oauth.userInfoRequest(as, client, refreshed.access_token, insecure),
      );
      expect(afterRefresh.sub).toBe(claims.sub);

      // The same browser comes back: its session and the remembered consent skip both pages.
      const second = new URL(authorizationUrl);
      const secondState = oauth.generateRandomState();
      second.searchParams.set('state', secondState);
      const again = await browser.authorize(second, { username: 'alice', password: PASSWORD });
      expect(again.pages).toEqual([]);
      expect(oauth.validateAuthResponse(as, client, again.callback, secondState).get('code')).toEqual(expect.any(String));
    });
  }
});
