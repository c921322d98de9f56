import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { query } from '../support/flow-helpers.js';
import { Upstream, addProvider, callbackOf, exchange, returnFromProvider, signInThrough } from './support.js';

/**
 * The `identity_provider` node of a journey (CONTRACT.md §8): the validator accepts it, it
 * tells who signs in as a password does, its page is the provider's button, and as a second
 * step it passes only the upstream account linked to the person the journey knows: any other
 * is `deny`, and links nothing.
 */
const REALM = 'journeys';

let t: TestApp;
let upstream: Upstream;

beforeAll(async () => {
  upstream = await Upstream.start([callbackOf(REALM, 'up')]);
  upstream.accounts.set('up-fed', { preferred_username: 'fed-only', email: 'fed@corp.example', email_verified: true });
  upstream.accounts.set('up-carol', { preferred_username: 'carol-upstream' });
  t = await startTestApp({ outboundAllow: ['127.0.0.1'] });
  await t.admin.createRealm(REALM);
  await addProvider(t, REALM, upstream.issuer);
});

afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

const putJourney = (name: string, journey: unknown) => t.admin.request('PUT', `/realms/${REALM}/journeys/${name}`, journey);

const FEDERATED_ONLY = { start: 'idp', nodes: { idp: { type: 'identity_provider', provider: 'up', next: { success: 'done' } } } };
const PASSWORD_THEN_PROVIDER = {
  start: 'pw',
  nodes: { pw: { type: 'password', next: { success: 'idp' } }, idp: { type: 'identity_provider', provider: 'up', next: { success: 'done' } } },
};

async function clientOf(journey: string): Promise<string> {
  const client = await t.admin.createClient(REALM, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: 'openid profile',
    journey,
  });
  return client.client_id;
}

async function authorize(browser: TestBrowser, clientId: string) {
  const { verifier, challenge } = pkce();
  const params = { client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 's', code_challenge: challenge, code_challenge_method: 'S256' };
  const login = location(await browser.get(`/oauth2/${REALM}/authorize?${query(params)}`));
  return { login, verifier };
}

const linksOf = async (username: string) =>
  ((await t.admin.request('GET', `/realms/${REALM}/users/${username}`)).json() as { identities: unknown[] }).identities;

describe('the validator', () => {
  it('accepts an identity_provider node, which tells who signs in before a one-time code', async () => {
    const stored = await putJourney('fed', FEDERATED_ONLY);
    expect(stored.statusCode, stored.body).toBe(201);
    const withCode = { start: 'idp', nodes: { idp: { ...FEDERATED_ONLY.nodes.idp, next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } } };
    expect((await putJourney('fed-otp', withCode)).statusCode).toBe(201);
    expect((await putJourney('pw-fed', PASSWORD_THEN_PROVIDER)).statusCode).toBe(201);
  });

  it.each([
    ['without a provider', { type: 'identity_provider', next: { success: 'done' } }, /"provider" must be the alias/],
    ['naming no alias', { type: 'identity_provider', provider: 'Up Corp', next: { success: 'done' } }, /"provider" must be the alias/],
    ['with an outcome it does not have', { type: 'identity_provider', provider: 'up', next: { success: 'done', failure: 'deny' } }, /no outcome "failure"/],
    ['with an unknown field', { type: 'identity_provider', provider: 'up', next: { success: 'done' }, passkey: 'p' }, /unknown field "passkey"/],
  ])('refuses one %s, naming the node', async (_name, node, problem) => {
    const refused = await putJourney('bad', { start: 'idp', nodes: { idp: node } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(new RegExp(`node "idp": .*${problem.source}`)) });
  });
});

describe('a journey with an identity_provider node', () => {
  it('shows the provider\'s button alone, and signs the person in through it', async () => {
    const clientId = await clientOf('fed');
    const browser = new TestBrowser(t.app, t.baseUrl);
    const { login, verifier } = await authorize(browser, clientId);
    const page = await browser.get(login);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<button type="submit" name="provider" value="up" class="primary">Sign in with Upstream Corp</button>');
    expect(page.body).not.toContain('name="password"');
    // Browsers apply form-action to the redirect that follows the form: the provider is listed.
    expect(page.headers['content-security-policy']).toMatch(new RegExp(`form-action 'self' [^;]*${upstream.issuer}`));

    expect((await browser.submit(login, page, {})).statusCode, 'a form without the button\'s value shows the page again').toBe(200);
    upstream.nextAccount = 'up-fed';
    const toProvider = await browser.submit(login, page, { provider: 'up' });
    expect(location(toProvider)).toMatch(new RegExp(`^${upstream.issuer}/auth\\?`));
    const back = await returnFromProvider(browser, await upstream.browse(location(toProvider)));
    const { idToken } = await exchange(t, REALM, clientId, back.code!, verifier);
    expect(idToken.amr).toEqual(['fed']);
    expect(idToken.acr).toBe('0');
    expect(await linksOf('fed-only')).toEqual([{ provider: 'up', subject: 'up-fed' }]);
  });

  /** Signs in as `username` with the password, then at the provider as `account`: where the realm sends the browser back. */
  async function passwordThenProvider(clientId: string, username: string, account: string) {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const { login, verifier } = await authorize(browser, clientId);
    const afterPassword = await browser.submit(login, await browser.get(login), { username, password: 'correct horse battery' });
    const providerPage = await browser.get(location(afterPassword));
    expect(providerPage.body).toContain('name="provider" value="up"');
    upstream.nextAccount = account;
    const toProvider = await browser.submit(location(afterPassword), providerPage, { provider: 'up' });
    // The callback leads to the sign-in page, which ends the journey (consent allowed): at the client with a code or an error.
    let response = await browser.get(await upstream.browse(location(toProvider)));
    while (location(response).startsWith(t.baseUrl)) {
      const next = location(response);
      response = next.includes('/consent') ? await browser.submit(next, await browser.get(next), { decision: 'allow' }) : await browser.get(next);
    }
    const answer = new URL(location(response));
    return { answer: { at: `${answer.origin}${answer.pathname}`, code: answer.searchParams.get('code'), error: answer.searchParams.get('error') }, verifier };
  }

  it('after a password, denies an upstream account not linked to the person, and links nothing', async () => {
    // Whoever holds carol's password and any upstream account of their own.
    await t.admin.request('POST', `/realms/${REALM}/users`, { username: 'carol', password: 'correct horse battery' });
    const clientId = await clientOf('pw-fed');
    const { answer } = await passwordThenProvider(clientId, 'carol', 'up-carol');
    expect(answer).toEqual({ at: REDIRECT_URI, code: null, error: 'access_denied' });
    expect(await linksOf('carol')).toEqual([]);
    expect((await t.admin.request('GET', `/realms/${REALM}/users/carol-upstream`)).statusCode).toBe(404);
    const denied = (await t.admin.request('GET', `/realms/${REALM}/events?type=sign_in.failed`)).json() as { events: Array<{ details: Record<string, unknown> }> };
    expect(denied.events.map((event) => event.details.reason)).toContain('denied');

    // Nothing stayed behind: the same upstream account alone still makes no one of carol.
    const again = await passwordThenProvider(clientId, 'carol', 'up-carol');
    expect(again.answer.error).toBe('access_denied');
    expect(await linksOf('carol')).toEqual([]);
  });

  it("after a password, passes the upstream account linked to that person, with both methods in amr", async () => {
    const user = await t.admin.request('POST', `/realms/${REALM}/users`, { username: 'erin', password: 'correct horse battery' });
    expect(await t.store.userIdentities.link(REALM, { provider: 'up', subject: 'up-erin', userId: (user.json() as { sub: string }).sub })).toBe(true);
    upstream.accounts.set('up-erin', { preferred_username: 'erin-upstream' });
    const clientId = await clientOf('pw-fed');
    const { answer, verifier } = await passwordThenProvider(clientId, 'erin', 'up-erin');
    const { idToken } = await exchange(t, REALM, clientId, answer.code!, verifier);
    expect(idToken.amr).toEqual(['pwd', 'fed']);
    expect(await linksOf('erin')).toEqual([{ provider: 'up', subject: 'up-erin' }]);
  });

  it('after a password, denies an upstream account linked to another person', async () => {
    await t.admin.request('POST', `/realms/${REALM}/users`, { username: 'dave', password: 'correct horse battery' });
    const frank = await t.admin.request('POST', `/realms/${REALM}/users`, { username: 'frank', password: 'correct horse battery' });
    expect(await t.store.userIdentities.link(REALM, { provider: 'up', subject: 'up-frank', userId: (frank.json() as { sub: string }).sub })).toBe(true);
    upstream.accounts.set('up-frank', { preferred_username: 'frank-upstream' });
    const clientId = await clientOf('pw-fed');
    const { answer } = await passwordThenProvider(clientId, 'dave', 'up-frank');
    expect(answer).toEqual({ at: REDIRECT_URI, code: null, error: 'access_denied' });
    expect(await linksOf('dave')).toEqual([]);
    expect(await linksOf('frank')).toEqual([{ provider: 'up', subject: 'up-frank' }]);
  });

  it('shows no page for a provider the realm does not have', async () => {
    expect((await putJourney('gone', { start: 'idp', nodes: { idp: { type: 'identity_provider', provider: 'gone', next: { success: 'done' } } } })).statusCode).toBe(201);
    const browser = new TestBrowser(t.app, t.baseUrl);
    const { login } = await authorize(browser, await clientOf('gone'));
    const page = await browser.get(login);
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('This sign-in is not available');
  });
});

describe('a session signed in through a provider beside the password form', () => {
  it('stands for a password node whose page offers the provider, and not for a password asked of a known person', async () => {
    const plain = (await t.admin.createClient(REALM, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile email' })).client_id;
    expect((await putJourney('fed-pw', { start: 'idp', nodes: { idp: { ...FEDERATED_ONLY.nodes.idp, next: { success: 'pw' } }, pw: { type: 'password', next: { success: 'done' } } } })).statusCode).toBeLessThan(300);
    const strict = await clientOf('fed-pw');
    expect((await putJourney('pw-then-fed', PASSWORD_THEN_PROVIDER)).statusCode).toBeLessThan(300);
    const both = await clientOf('pw-then-fed');
    const browser = new TestBrowser(t.app, t.baseUrl);
    expect((await signInThrough(t, upstream, REALM, plain, 'up-fed', browser)).amr).toEqual(['fed']);

    const silently = (clientId: string) => {
      const params = { client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', prompt: 'none' };
      return browser.get(`/oauth2/${REALM}/authorize?${query(params)}`);
    };
    // The default journey's password page offers the provider: the session stands for it.
    expect(new URL(location(await silently(plain))).searchParams.get('code')).toEqual(expect.any(String));
    // A password asked after the provider has told who signs in is not passed by the provider.
    expect(new URL(location(await silently(strict))).searchParams.get('error')).toBe('interaction_required');
    // The session passed the provider itself (not a password): a journey asking both stands, and only consent is missing.
    expect(new URL(location(await silently(both))).searchParams.get('error')).toBe('consent_required');
  });
});
