import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, refreshGrant, verifyIdToken } from '../support/users.js';

const CIBA = 'urn:openid:params:grant-type:ciba';

/** CIBA poll mode end to end over HTTP: /bc-authorize, the approval page, and the token endpoint's answers. */
describe('CIBA: the approval page and polling', () => {
  let t: TestApp & { clock: TestClock };

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
  });
  afterAll(async () => {
    await t.close();
  });

  async function setup(settings: Record<string, unknown> = { ciba_poll_interval: 1 }) {
    const realm = await freshRealm(t, settings);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const created = await t.admin.createClient(realm, {
      client_name: 'Call centre',
      grant_types: [CIBA, 'refresh_token'],
      scope: 'openid profile',
    });
    const client: ServiceClient = { clientId: created.client_id, secret: created.client_secret! };
    return { realm, user, client };
  }

  async function backchannelRequest(realm: string, client: ServiceClient, form: Record<string, string>): Promise<string> {
    const response = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid profile', ...form }, {
      authorization: basic(client.clientId, client.secret),
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { auth_req_id: string }).auth_req_id;
  }

  const poll = (realm: string, client: ServiceClient, authReqId: string) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: CIBA, auth_req_id: authReqId }, {
      authorization: basic(client.clientId, client.secret),
    });

  function expectError(response: LightMyRequestResponse, error: string) {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toMatchObject({ error });
  }

  /** A browser signed in as `user` and looking at /bc-approve. */
  async function approvalPage(realm: string, user: TestUser, browser = new TestBrowser(t.app, t.baseUrl)) {
    const pageUrl = `${realmPath(realm)}/bc-approve`;
    let page = await browser.get(pageUrl);
    if (page.statusCode === 303) {
      const loginUrl = location(page);
      expect(new URL(loginUrl).pathname).toBe(`${realmPath(realm)}/login`);
      const signedIn = await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
      expect(location(signedIn)).toBe(`${issuerOf(realm)}/bc-approve`);
      page = await browser.get(pageUrl);
    }
    expect(page.statusCode, page.body).toBe(200);
    return { browser, page, pageUrl };
  }

  /** The hidden inputs of each request's form, in page order. */
  function requestForms(page: LightMyRequestResponse): Array<Record<string, string>> {
    return page.body
      .split('<section class="request">')
      .slice(1)
      .map((section) => hiddenInputs(section));
  }

  async function decide(realm: string, user: TestUser, decision: 'allow' | 'deny') {
    const { browser, page, pageUrl } = await approvalPage(realm, user);
    const [form] = requestForms(page);
    const answered = await browser.post(pageUrl, { ...form!, decision });
    expect(answered.statusCode).toBe(303);
    return { browser, answered, pageUrl };
  }

  it('signs the person in, shows the request with its binding message, and gives the client its tokens once', async () => {
    const { realm, user, client } = await setup();
    const authReqId = await backchannelRequest(realm, client, { login_hint: user.username, binding_message: 'Ticket 4711' });
    expectError(await poll(realm, client, authReqId), 'authorization_pending');

    const { page } = await approvalPage(realm, user);
    expect(page.body).toContain('Ticket 4711');
    expect(page.body).toContain('Call centre');
    expect(page.body).toContain(user.username);
    const { browser, answered, pageUrl } = await decide(realm, user, 'allow');
    expect(location(answered)).toBe(`${issuerOf(realm)}/bc-approve?answered=approved`);
    const after = await browser.get(`${pageUrl}?answered=approved`);
    expect(after.body).toContain('You allowed the request');
    expect(after.body).toContain('No requests are waiting for you');

    await t.clock.advance(1100);
    const tokens = await poll(realm, client, authReqId);
    expect(tokens.statusCode, tokens.body).toBe(200);
    const body = tokens.json() as { access_token: string; id_token: string; refresh_token: string; scope: string };
    expect(body.scope).toBe('openid profile');
    const { payload } = await verifyIdToken(t.app, realm, body.id_token, { issuer: issuerOf(realm), audience: client.clientId });
    expect(payload.sub).toBe(user.sub);
    expect((await refreshGrant(t.app, realm, client, body.refresh_token)).statusCode).toBe(200);

    await t.clock.advance(1100);
    expectError(await poll(realm, client, authReqId), 'invalid_grant');
  });

  it('answers access_denied when the person denies', async () => {
    const { realm, user, client } = await setup();
    const authReqId = await backchannelRequest(realm, client, { login_hint: user.username });
    const { answered } = await decide(realm, user, 'deny');
    expect(location(answered)).toContain('answered=denied');
    expectError(await poll(realm, client, authReqId), 'access_denied');
  });

  it('answers slow_down to a poll that comes too soon', async () => {
    const { realm, user, client } = await setup({ ciba_poll_interval: 1 });
    const authReqId = await backchannelRequest(realm, client, { login_hint: user.username });
    expectError(await poll(realm, client, authReqId), 'authorization_pending');
    expectError(await poll(realm, client, authReqId), 'slow_down');
    await t.clock.advance(1200); // the interval is 6 s now
    expectError(await poll(realm, client, authReqId), 'slow_down');
  });

  it('answers expired_token once the request has expired, and the page no longer offers it', async () => {
    const { realm, user, client } = await setup({ ciba_lifetime: 1, ciba_poll_interval: 1 });
    const authReqId = await backchannelRequest(realm, client, { login_hint: user.username });
    await t.clock.advance(1200);
    expectError(await poll(realm, client, authReqId), 'expired_token');
    const { page } = await approvalPage(realm, user);
    expect(requestForms(page)).toHaveLength(0);
  });

  it('binds the auth_req_id to its client', async () => {
    const { realm, user, client } = await setup();
    const other = await t.admin.createClient(realm, { grant_types: [CIBA], scope: 'openid profile' });
    const authReqId = await backchannelRequest(realm, client, { login_hint: user.username });
    await decide(realm, user, 'allow');
    expectError(await poll(realm, { clientId: other.client_id, secret: other.client_secret! }, authReqId), 'invalid_grant');
    expect((await poll(realm, client, authReqId)).statusCode).toBe(200);
  });

  it('shows a person only their own requests, and refuses an answer to another person\'s', async () => {
    const { realm, user, client } = await setup();
    const someoneElse = await createUser(t.admin, realm, `v-${randomBytes(4).toString('hex')}`);
    const theirs = await backchannelRequest(realm, client, { login_hint: someoneElse.username, binding_message: 'Theirs' });
    await backchannelRequest(realm, client, { login_hint: user.username, binding_message: 'Mine' });

    const { browser, page, pageUrl } = await approvalPage(realm, user);
    expect(page.body).toContain('Mine');
    expect(page.body).not.toContain('Theirs');

    // The other person's request id, with a CSRF token this browser can make for it.
    const other = await approvalPage(realm, someoneElse);
    const [theirForm] = requestForms(other.page);
    const ownForm = requestForms(page)[0]!;
    const forged = await browser.post(pageUrl, { request: theirForm!.request!, csrf: ownForm.csrf!, decision: 'allow' });
    expect(forged.statusCode).toBe(400); // the CSRF token is bound to the request id
    // Beneath the page, the store too answers a CIBA request only for the person it names.
    const [pending] = await t.store.pendingAuthorizations.pendingFor(realm, someoneElse.sub);
    const mySignIn = { userId: user.sub, sid: randomUUID(), authTime: new Date(), amr: ['pwd'], acr: '0' };
    expect(await t.store.pendingAuthorizations.answer(realm, pending!.id, 'approved', mySignIn)).toBe(false);
    expectError(await poll(realm, client, theirs), 'authorization_pending');
  });

  it('keeps one form per request, and answering one leaves the others', async () => {
    const { realm, user, client } = await setup();
    const first = await backchannelRequest(realm, client, { login_hint: user.username, binding_message: 'First' });
    const second = await backchannelRequest(realm, client, { login_hint: user.username, binding_message: 'Second' });
    const { browser, page, pageUrl } = await approvalPage(realm, user);
    const forms = requestForms(page);
    expect(forms).toHaveLength(2);
    expect(page.body.indexOf('First')).toBeLessThan(page.body.indexOf('Second'));
    await browser.post(pageUrl, { ...forms[1]!, decision: 'allow' });
    const after = await browser.get(pageUrl);
    expect(requestForms(after)).toHaveLength(1);
    expect(after.body).toContain('First');
    expectError(await poll(realm, client, first), 'authorization_pending');
    expect((await poll(realm, client, second)).statusCode).toBe(200);
    // Answering twice: the second answer finds nothing to answer.
    const again = await browser.post(pageUrl, { ...forms[1]!, decision: 'deny' });
    expect(location(again)).toContain('answered=gone');
  });

  it('refuses a form without its CSRF token or with a malformed request id', async () => {
    const { realm, user, client } = await setup();
    await backchannelRequest(realm, client, { login_hint: user.username });
    const { browser, page, pageUrl } = await approvalPage(realm, user);
    const [form] = requestForms(page);
    expect((await browser.post(pageUrl, { request: form!.request!, decision: 'allow' })).statusCode).toBe(400);
    expect((await browser.post(pageUrl, { request: 'not-a-uuid', csrf: form!.csrf!, decision: 'allow' })).statusCode).toBe(400);
    expect((await browser.post(pageUrl, { ...form!, decision: 'maybe' })).statusCode).toBe(400);
  });

  it('sends a person who is not signed in to sign in before an answer counts', async () => {
    const { realm, user, client } = await setup();
    const authReqId = await backchannelRequest(realm, client, { login_hint: user.username });
    const stranger = new TestBrowser(t.app, t.baseUrl);
    const pending = await t.store.pendingAuthorizations.pendingFor(realm, user.sub);
    const response = await stranger.post(`${realmPath(realm)}/bc-approve`, { request: pending[0]!.id, decision: 'allow' });
    expect(response.statusCode).toBe(303);
    expect(location(response)).toBe(`${issuerOf(realm)}/bc-approve`);
    expectError(await poll(realm, client, authReqId), 'authorization_pending');
  });
});
