import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser, location } from '../support/flow.js';
import { appClient, callbackOf, exchange, returnFromProvider, startAtProvider } from './support.js';

/**
 * Another realmgate realm as the upstream provider (CONTRACT.md §10): the test app listens on
 * a loopback port, so that the `home` realm discovers the `corp` realm's issuer, fetches its
 * keys and exchanges codes at its token endpoint over real HTTP, through the outbound fetcher.
 * The person signs in at `corp` with a password on its own sign-in page.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ listen: true, outboundAllow: ['127.0.0.1'] });
  await t.admin.createRealm('corp');
  await t.admin.createRealm('home');
  await t.admin.request('POST', '/realms/corp/users', {
    username: 'erin',
    password: 'correct horse battery',
    claims: { email: 'erin@corp.example', email_verified: true, name: 'Erin Example' },
  });
});

afterAll(async () => {
  await t?.close();
});

describe('a realm of realmgate as the upstream provider', () => {
  it('signs the person in at the other realm, and makes them in this one', async () => {
    const upstreamClient = await t.admin.createClient('corp', {
      client_type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [callbackOf('home', 'corp', t.baseUrl)],
      grant_types: ['authorization_code'],
      scope: 'openid profile email',
    });
    const provider = await t.admin.request('POST', '/realms/home/identity-providers', {
      alias: 'corp',
      kind: 'oidc',
      issuer: `${t.baseUrl}/oauth2/corp`,
      client_id: upstreamClient.client_id,
      client_secret: upstreamClient.client_secret,
      display_name: 'Corp',
    });
    expect(provider.statusCode, provider.body).toBe(201);
    expect(provider.json()).toMatchObject({ redirect_uri: callbackOf('home', 'corp', t.baseUrl) });

    const clientId = await appClient(t, 'home');
    const browser = new TestBrowser(t.app, t.baseUrl);
    const started = await startAtProvider(browser, 'home', clientId, 'corp');
    const authorize = new URL(location(started.response));
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${t.baseUrl}/oauth2/corp/authorize`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toEqual(expect.any(String));

    // At the upstream realm: its sign-in page, then its consent page, then back to `home`.
    const toLogin = await browser.get(authorize.href);
    const login = location(toLogin);
    const afterPassword = await browser.submit(login, await browser.get(login), { username: 'erin', password: 'correct horse battery' });
    const consent = location(afterPassword);
    const back = await browser.submit(consent, await browser.get(consent), { decision: 'allow' });
    const callback = location(back);
    expect(callback.startsWith(callbackOf('home', 'corp', t.baseUrl))).toBe(true);

    const done = await returnFromProvider(browser, callback);
    expect(done.code, done.page?.body.slice(0, 500)).toEqual(expect.any(String));
    const { idToken } = await exchange(t, 'home', clientId, done.code!, started.verifier);
    expect(idToken.iss).toBe(`${t.baseUrl}/oauth2/home`);
    expect(idToken.amr).toEqual(['fed']);
    expect(idToken.preferred_username).toBe('erin');

    const erin = (await t.admin.request('GET', '/realms/home/users/erin')).json() as { sub: string; claims: object; identities: unknown[] };
    const upstreamErin = (await t.admin.request('GET', '/realms/corp/users/erin')).json() as { sub: string };
    expect(erin.sub).toBe(idToken.sub);
    expect(erin.sub).not.toBe(upstreamErin.sub);
    expect(erin.identities).toEqual([{ provider: 'corp', subject: upstreamErin.sub }]);
    expect(erin.claims).toEqual({ email: 'erin@corp.example', email_verified: true, name: 'Erin Example' });
  });
});
