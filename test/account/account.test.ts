import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { BrowserCookies } from '../../src/web/browser-cookies.js';
import { prepare } from '../../src/bootstrap.js';
import type { Store } from '../../src/store/index.js';
import type { KeyEncryption } from '../../src/tokens/key-encryption.js';
import { sha256 } from '../../src/secrets.js';
import { ADMIN_TOKEN, AdminClient, BASE_URL } from '../support/app.js';
import { authorize, codeRequest, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, obtainCode, unescape } from '../support/flow.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { type TestDb, createTestDb } from '../support/store.js';
import { type TestUser, createUser, refreshGrant } from '../support/users.js';

const REALM = 'acct';
const JWT_REALM = 'acct-jwt';

interface AccountForm {
  action: string;
  fields: Record<string, string>;
}


/** The forms of a page, each with its action and hidden inputs, in page order. */
function formsOf(page: string): AccountForm[] {
  return [...page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map(([, action, inner]) => ({
    action: unescape(action!),
    fields: hiddenInputs(inner!),
  }));
}

/** The `<li>` of a list on the page that contains `text`, whole. */
function itemWith(page: string, text: string): string {
  const item = [...page.matchAll(/<li class="[a-z]+">[\s\S]*?<\/li>/g)].map(([whole]) => whole).find((whole) => whole.includes(text));
  if (!item) throw new Error(`no item with ${text}`);
  return item;
}

const noticeOf = (page: string): string | undefined => /<p class="notice" role="status">([^<]*)<\/p>/.exec(page)?.[1];

/**
 * The account page's "Applications" and "Sessions" sections: a person sees the clients they
 * allowed and their live sessions, and revokes or ends them; each form carries a CSRF token
 * bound to the browser and to what it changes.
 */
describe('the account page: applications and sessions', () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let store: Store;
  let encryption: KeyEncryption;
  let admin: AdminClient;
  /** A confidential client of the code flow with refresh tokens, per realm. */
  const web: Record<string, ServiceClient> = {};
  const other: Record<string, ServiceClient> = {};

  beforeAll(async () => {
    testDb = await createTestDb();
    const prepared = await prepare(testDb.db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN });
    ({ store, encryption } = prepared);
    app = await buildApp({ config: { baseUrl: BASE_URL, trustProxy: false }, store, encryption, adminTokenHash: prepared.adminToken.hash, cleanup: false });
    admin = new AdminClient(app);
    for (const [realm, settings] of [[REALM, {}], [JWT_REALM, { stateless_tokens: true }]] as const) {
      await admin.createRealm(realm, settings);
      const record = { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile' };
      const created = await admin.createClient(realm, { ...record, client_name: 'Web App' });
      web[realm] = { clientId: created.client_id, secret: created.client_secret as string };
      const second = await admin.createClient(realm, { ...record, client_name: 'Other App' });
      other[realm] = { clientId: second.client_id, secret: second.client_secret as string };
    }
  });
  afterAll(async () => {
    await app?.close();
    await testDb?.dispose();
  });

  const person = (realm = REALM) => createUser(admin, realm, `u-${randomBytes(4).toString('hex')}`);
  const accountUrl = (realm = REALM) => `${realmPath(realm)}/account`;

  /** The code flow in `b` for the person and client, through the token endpoint: its tokens. */
  async function tokensOf(b: TestBrowser, user: TestUser, client: ServiceClient, realm = REALM) {
    const flow = await obtainCode(b, realm, { clientId: client.clientId, username: user.username, password: user.password });
    const response = await postForm(
      app,
      `${realmPath(realm)}/access_token`,
      { grant_type: 'authorization_code', code: flow.code, redirect_uri: REDIRECT_URI, code_verifier: flow.verifier },
      { authorization: basic(client.clientId, client.secret) },
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { access_token: string; refresh_token: string; id_token: string };
  }

  async function accountPage(b: TestBrowser, realm = REALM): Promise<string> {
    const page = await b.get(accountUrl(realm));
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return page.body;
  }

  /** Posts the form of the page's item containing `text`, with `change` applied to its fields. */
  async function submitItem(b: TestBrowser, page: string, text: string, change: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const [form] = formsOf(itemWith(page, text));
    return b.post(form!.action, { ...form!.fields, ...change });
  }

  /** Follows a redirect back to the account page and reads its notice. */
  async function noticeAfter(b: TestBrowser, response: LightMyRequestResponse, realm = REALM): Promise<string | undefined> {
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    expect(redirectPath(response)).toBe(accountUrl(realm));
    return noticeOf((await b.get(location(response))).body);
  }

  const active = async (realm: string, client: ServiceClient, token: string) => (await introspect(app, realm, client, token)).json().active as boolean;
  const consented = async (user: TestUser, client: ServiceClient, realm = REALM) => (await store.consents.granted(realm, user.sub, client.clientId)) !== undefined;

  it('asks a person without a session to sign in first', async () => {
    const response = await new TestBrowser(app, BASE_URL).get(accountUrl());
    expect(response.statusCode).toBe(303);
    expect(redirectPath(response)).toBe(`${realmPath(REALM)}/login`);
  });

  it('shows only notices the server wrote: a link cannot put words on the page', async () => {
    const user = await person();
    const b = new TestBrowser(app, BASE_URL);
    await tokensOf(b, user, web[REALM]!);
    await accountPage(b);
    const forged = await b.get(`${accountUrl()}?notice=${encodeURIComponent('Call +1 555 0100 to keep your account')}&mac=forged`);
    expect(forged.statusCode).toBe(200);
    expect(noticeOf(forged.body)).toBeUndefined();
    expect(forged.body).not.toContain('Call +1 555 0100');
  });

  it('shows the applications the person allowed, with their scopes, and their sessions', async () => {
    const user = await person();
    const b = new TestBrowser(app, BASE_URL);
    await tokensOf(b, user, web[REALM]!);
    const page = await accountPage(b);
    expect(page).toContain('<h2>Applications</h2>');
    expect(page).toContain('<h2>Sessions</h2>');
    const application = itemWith(page, 'Web App');
    expect(application).toContain(web[REALM]!.clientId);
    expect(application).toContain('openid, profile');
    expect(application).toMatch(/<button type="submit">Revoke<\/button>/);
    expect(page).not.toContain('Other App');
    const session = itemWith(page, '(this browser)');
    expect(session).toContain('password');
    expect(session).toMatch(/<button type="submit">Sign out<\/button>/);
  });

  it('revokes an application: its refresh token fails, its access token is inactive, and consent is asked again', async () => {
    const user = await person();
    const b = new TestBrowser(app, BASE_URL);
    const tokens = await tokensOf(b, user, web[REALM]!);
    const kept = await tokensOf(b, user, other[REALM]!);

    const revoked = await submitItem(b, await accountPage(b), 'Web App');
    expect(await noticeAfter(b, revoked)).toBe('Web App no longer has access to your account.');

    const refresh = await refreshGrant(app, REALM, web[REALM]!, tokens.refresh_token);
    expect(refresh.statusCode).toBe(400);
    expect(refresh.json().error).toBe('invalid_grant');
    expect(await active(REALM, web[REALM]!, tokens.access_token)).toBe(false);
    expect(await active(REALM, web[REALM]!, tokens.refresh_token)).toBe(false);
    expect(await consented(user, web[REALM]!)).toBe(false);

    // What the person allowed another client stays.
    expect(await active(REALM, other[REALM]!, kept.access_token)).toBe(true);
    expect((await refreshGrant(app, REALM, other[REALM]!, kept.refresh_token)).statusCode).toBe(200);
    expect(itemWith(await accountPage(b), 'Other App')).toBeTruthy();

    // Signed in still, the person is asked for consent again.
    const again = await authorize(b, REALM, codeRequest(web[REALM]!.clientId));
    expect(redirectPath(again)).toBe(`${realmPath(REALM)}/consent`);
  });

  it('denies the JWT access tokens of a revoked application (stateless realm)', async () => {
    const user = await person(JWT_REALM);
    const b = new TestBrowser(app, BASE_URL);
    const tokens = await tokensOf(b, user, web[JWT_REALM]!, JWT_REALM);
    expect(decodeJwt(tokens.access_token).client_id).toBe(web[JWT_REALM]!.clientId);
    expect(await active(JWT_REALM, web[JWT_REALM]!, tokens.access_token)).toBe(true);

    await noticeAfter(b, await submitItem(b, await accountPage(b, JWT_REALM), 'Web App'), JWT_REALM);
    expect(await active(JWT_REALM, web[JWT_REALM]!, tokens.access_token)).toBe(false);
    expect((await refreshGrant(app, JWT_REALM, web[JWT_REALM]!, tokens.refresh_token)).json().error).toBe('invalid_grant');
  });

  it('signs out another session from the list: it ends, and its tokens are revoked', async () => {
    const user = await person();
    const here = new TestBrowser(app, BASE_URL);
    const there = new TestBrowser(app, BASE_URL);
    const hereTokens = await tokensOf(here, user, web[REALM]!);
    const thereTokens = await tokensOf(there, user, web[REALM]!);
    const thereSid = decodeJwt(thereTokens.id_token).sid as string;

    const page = await accountPage(here);
    expect(formsOf(page).filter((form) => form.action.endsWith('/account/sessions/end'))).toHaveLength(2);
    const ended = await submitItem(here, page, `name="sid" value="${thereSid}"`);
    expect(await noticeAfter(here, ended)).toBe('The session is signed out.');

    expect((await refreshGrant(app, REALM, web[REALM]!, thereTokens.refresh_token)).json().error).toBe('invalid_grant');
    expect(await active(REALM, web[REALM]!, thereTokens.access_token)).toBe(false);
    expect(redirectPath(await there.get(accountUrl()))).toBe(`${realmPath(REALM)}/login`);
    // This browser's session and tokens are untouched.
    expect(await active(REALM, web[REALM]!, hereTokens.access_token)).toBe(true);
    expect(formsOf(await accountPage(here)).filter((form) => form.action.endsWith('/account/sessions/end'))).toHaveLength(1);
  });

  it("signs out this browser's session: its cookie is cleared and its tokens revoked", async () => {
    const user = await person();
    const b = new TestBrowser(app, BASE_URL);
    const tokens = await tokensOf(b, user, web[REALM]!);
    const response = await submitItem(b, await accountPage(b), '(this browser)');
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('You are signed out of this browser.');
    expect(b.cookies.has(`rg_session_${REALM}`)).toBe(false);
    expect(await active(REALM, web[REALM]!, tokens.access_token)).toBe(false);
    expect(redirectPath(await b.get(accountUrl()))).toBe(`${realmPath(REALM)}/login`);
  });

  it('signs out everywhere: every session of the person ends, this browser\u2019s too, their tokens revoked, an audit event recorded', async () => {
    const user = await person();
    const here = new TestBrowser(app, BASE_URL);
    const there = new TestBrowser(app, BASE_URL);
    const hereTokens = await tokensOf(here, user, web[REALM]!);
    const thereTokens = await tokensOf(there, user, web[REALM]!);
    const otherPerson = await person();
    const bystander = new TestBrowser(app, BASE_URL);
    const bystanderTokens = await tokensOf(bystander, otherPerson, web[REALM]!);

    const page = await accountPage(here);
    const [endAll] = formsOf(page).filter((form) => form.action.endsWith('/account/sessions/end-all'));
    expect(endAll?.fields.csrf).toEqual(expect.any(String));
    // Another form's token, a forged one, or the form from another browser: nothing ends.
    const [endOne] = formsOf(page).filter((form) => form.action.endsWith('/account/sessions/end'));
    for (const csrf of [endOne!.fields.csrf!, 'forged']) expect((await here.post(endAll!.action, { csrf })).statusCode).toBe(400);
    expect((await bystander.post(endAll!.action, endAll!.fields)).statusCode).toBe(400);
    expect(await active(REALM, web[REALM]!, thereTokens.access_token)).toBe(true);

    const response = await here.post(endAll!.action, endAll!.fields);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('You are signed out everywhere.');
    expect(here.cookies.has(`rg_session_${REALM}`)).toBe(false);
    for (const tokens of [hereTokens, thereTokens]) {
      expect(await active(REALM, web[REALM]!, tokens.access_token)).toBe(false);
      expect((await refreshGrant(app, REALM, web[REALM]!, tokens.refresh_token)).json().error).toBe('invalid_grant');
    }
    for (const b of [here, there]) expect(redirectPath(await b.get(accountUrl()))).toBe(`${realmPath(REALM)}/login`);
    // Another person's session is untouched.
    expect(await active(REALM, web[REALM]!, bystanderTokens.access_token)).toBe(true);
    const events = (await admin.request('GET', `/realms/${REALM}/events?type=user.sessions_ended`)).json().events as Array<{ user_id: string; details: Record<string, unknown> }>;
    expect(events.find((event) => event.user_id === user.sub)).toMatchObject({ details: { via: 'account', sessions: 2 } });
  });

  it('refuses a form without its CSRF token, with a wrong one, with that of another form, or from another browser', async () => {
    const user = await person();
    const b = new TestBrowser(app, BASE_URL);
    const tokens = await tokensOf(b, user, web[REALM]!);
    const page = await accountPage(b);
    const [revoke] = formsOf(itemWith(page, 'Web App'));
    const [signOut] = formsOf(itemWith(page, '(this browser)'));

    const attempts = [
      b.post(revoke!.action, { client_id: revoke!.fields.client_id! }),
      b.post(revoke!.action, { ...revoke!.fields, csrf: `${revoke!.fields.csrf!.slice(0, -2)}AA` }),
      b.post(revoke!.action, { ...revoke!.fields, csrf: signOut!.fields.csrf! }),
      b.post(signOut!.action, { ...signOut!.fields, csrf: revoke!.fields.csrf! }),
    ];
    // Another browser of the same person: its own binding, so this page's tokens are not its.
    const otherBrowser = new TestBrowser(app, BASE_URL);
    await tokensOf(otherBrowser, user, other[REALM]!);
    attempts.push(otherBrowser.post(revoke!.action, revoke!.fields));
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('The form could not be accepted.');
    }
    expect(await consented(user, web[REALM]!)).toBe(true);
    expect(await active(REALM, web[REALM]!, tokens.access_token)).toBe(true);
  });

  it("cannot revoke another person's consent or end their session, even with a valid form token", async () => {
    const alice = await person();
    const bob = await person();
    const aliceBrowser = new TestBrowser(app, BASE_URL);
    const aliceTokens = await tokensOf(aliceBrowser, alice, web[REALM]!);
    const aliceSid = decodeJwt(aliceTokens.id_token).sid as string;
    const bobBrowser = new TestBrowser(app, BASE_URL);
    await tokensOf(bobBrowser, bob, other[REALM]!);

    // The tokens the server would put in Bob's forms, had his page shown these targets.
    const bobCsrf = (subject: string) => {
      const binding = bobBrowser.cookies.get(`rg_browser_${REALM}`)!.split('.')[0]!;
      return new BrowserCookies(encryption.deriveKey('csrf'), true).csrfToken(sha256(binding), `account ${subject}`);
    };
    const base = `${issuerOf(REALM)}/account`;
    const revoke = await bobBrowser.post(`${base}/applications/revoke`, {
      client_id: web[REALM]!.clientId,
      csrf: bobCsrf(`applications revoke ${web[REALM]!.clientId}`),
    });
    expect(await noticeAfter(bobBrowser, revoke)).toBe('That application has no access to revoke.');
    const end = await bobBrowser.post(`${base}/sessions/end`, { sid: aliceSid, csrf: bobCsrf(`sessions end ${aliceSid}`) });
    expect(await noticeAfter(bobBrowser, end)).toBe('That session had already ended.');

    expect(await consented(alice, web[REALM]!)).toBe(true);
    expect(await active(REALM, web[REALM]!, aliceTokens.access_token)).toBe(true);
    expect(await accountPage(aliceBrowser)).toContain('(this browser)');
  });

  it('answers malformed forms with the error page, never a 500', async () => {
    const user = await person();
    const b = new TestBrowser(app, BASE_URL);
    await tokensOf(b, user, web[REALM]!);
    const base = `${issuerOf(REALM)}/account`;
    for (const [path, form] of [
      ['sessions/end', { sid: 'not-a-uuid', csrf: 'x' }],
      ['sessions/end', {}],
      ['applications/revoke', { csrf: 'x' }],
      ['applications/revoke', { client_id: '\u0000', csrf: 'x' }],
    ] as const) {
      const response = await b.post(`${base}/${path}`, form);
      expect(response.statusCode, `${path} ${JSON.stringify(form)}`).toBe(400);
    }
    const repeated = await app.inject({
      method: 'POST',
      url: `${accountUrl()}/sessions/end`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...b.cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
      payload: 'sid=a&sid=b&csrf=x',
    });
    expect(repeated.statusCode).toBe(400);
  });
});
