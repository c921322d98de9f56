import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, consentFrom, issuerOf, signInFrom } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, formFor, hiddenInputs, location, obtainCode } from '../support/flow.js';
import { type ServiceClient, basic, clientCredentials, postForm, realmPath, revoke } from '../support/oauth.js';
import { createUser, passwordGrant, passwordTokens } from '../support/users.js';
import { type EventView, eventsOf, lastEvent, typesOf, unlimitedRealm } from './support.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';

/**
 * Each action of the audit trail's list, through HTTP as a client, a person or an admin does
 * it, and then its event, read back through GET /admin/realms/{realm}/events.
 */
describe('audit events recorded', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const user = (realm: string) => createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);

  /** A confidential client of the code flow with refresh tokens. */
  async function webClient(realm: string, extra: Record<string, unknown> = {}): Promise<ServiceClient> {
    const created = await t.admin.createClient(realm, {
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token', 'password'],
      scope: 'openid profile',
      ...extra,
    });
    return { clientId: created.client_id, secret: created.client_secret as string };
  }

  async function exchange(realm: string, client: ServiceClient, code: string, verifier: string) {
    const response = await postForm(
      t.app,
      `${realmPath(realm)}/access_token`,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      { authorization: basic(client.clientId, client.secret) },
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { access_token: string; refresh_token: string };
  }

  describe('admin changes', () => {
    it('realm created, updated and deleted; a failed change records nothing', async () => {
      const realm = `a-${randomBytes(5).toString('hex')}`;
      await t.admin.createRealm(realm, { access_token_lifetime: 600 });
      expect((await t.admin.request('POST', '/realms', { name: realm })).statusCode).toBe(409);
      expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { code_lifetime: -1 } })).statusCode).toBe(400);
      await t.admin.request('PATCH', `/realms/${realm}`, { settings: { require_pkce: true, code_lifetime: 60 } });
      expect(await typesOf(t.admin, realm)).toEqual(['realm.created', 'realm.updated']);
      expect(await lastEvent(t.admin, realm, 'realm.created')).toMatchObject({
        realm,
        client_id: null,
        user_id: null,
        address: '127.0.0.1',
        details: { settings: ['access_token_lifetime'] },
      });
      expect((await lastEvent(t.admin, realm, 'realm.updated')).details).toEqual({ settings: ['require_pkce', 'code_lifetime'] });

      expect((await t.admin.request('DELETE', `/realms/${realm}`)).statusCode).toBe(204);
      expect((await t.admin.request('GET', `/admin/realms/${realm}/events`)).statusCode).toBe(404);
      // The events outlive their realm: a realm created again under its name sees them, its deletion included.
      await t.admin.createRealm(realm);
      expect(await typesOf(t.admin, realm)).toEqual(['realm.created', 'realm.updated', 'realm.deleted', 'realm.created']);
    });

    it('client created, updated, given a new secret and deleted; no secret in any event', async () => {
      const realm = await unlimitedRealm(t);
      await t.admin.putScope(realm, 'api');
      const created = await t.admin.createClient(realm, { grant_types: ['client_credentials'], scope: 'api', client_name: 'Service' });
      const clientId = created.client_id;
      const patched = await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { client_name: 'Renamed', scope: '' });
      expect(patched.statusCode).toBe(200);
      expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { scope: 'undefined-scope' })).statusCode).toBe(400);
      const rotated = await t.admin.request('POST', `/realms/${realm}/clients/${clientId}/secret`);
      expect(rotated.statusCode).toBe(200);
      expect((await t.admin.request('DELETE', `/realms/${realm}/clients/${clientId}`)).statusCode).toBe(204);
      expect((await t.admin.request('DELETE', `/realms/${realm}/clients/${clientId}`)).statusCode).toBe(404);

      const page = await eventsOf(t.admin, realm, { client_id: clientId });
      expect(page.events.map((event) => event.type).reverse()).toEqual(['client.created', 'client.updated', 'client.secret_rotated', 'client.deleted']);
      const [deleted, secret, updated, createdEvent] = page.events as [EventView, EventView, EventView, EventView];
      expect(createdEvent).toMatchObject({ client_id: clientId, details: { client_type: 'confidential', grant_types: ['client_credentials'] } });
      expect(updated.details).toEqual({ fields: ['client_name', 'scope'] });
      expect(secret).toMatchObject({ client_id: clientId, address: '127.0.0.1' });
      expect(deleted.client_id).toBe(clientId);
      const text = JSON.stringify(page);
      expect(text).not.toContain(created.client_secret);
      expect(text).not.toContain(rotated.json().client_secret);
    });

    it('a client created with the client_id it is given; a public client turned confidential is issued a secret', async () => {
      const realm = await unlimitedRealm(t);
      await t.admin.createClient(realm, { client_id: 'spa', client_type: 'public', redirect_uris: [REDIRECT_URI] });
      const changed = await t.admin.request('PATCH', `/realms/${realm}/clients/spa`, { client_type: 'confidential', token_endpoint_auth_method: 'client_secret_basic' });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(await lastEvent(t.admin, realm, 'client.created')).toMatchObject({ client_id: 'spa', details: { client_type: 'public' } });
      const updated = await lastEvent(t.admin, realm, 'client.updated');
      expect(updated.details).toEqual({ fields: ['client_type', 'token_endpoint_auth_method'], secret_issued: true });
      expect(JSON.stringify(updated)).not.toContain(changed.json().client_secret);
    });

    it('people, scopes, keys, trusted issuers and initial access tokens', async () => {
      const realm = await unlimitedRealm(t);
      const person = await user(realm);
      await t.admin.request('PATCH', `/realms/${realm}/users/${person.username}`, { password: 'a new password 123' });
      expect((await t.admin.request('POST', `/realms/${realm}/users/${person.username}/totp`)).statusCode).toBe(201);
      await t.admin.request('DELETE', `/realms/${realm}/users/${person.username}`);
      await t.admin.putScope(realm, 'orders:read');
      await t.admin.request('DELETE', `/realms/${realm}/scopes/orders:read`);
      const keys = (await t.admin.request('POST', `/realms/${realm}/keys/rotate`)).json() as { keys: Array<{ kid: string }> };
      const issuer = await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, {
        kind: 'jwt',
        issuer: 'https://idp.example',
        jwks: { keys: [] },
      });
      const issuerId = issuer.statusCode === 201 ? (issuer.json() as { id: string }).id : undefined;
      if (issuerId) await t.admin.request('DELETE', `/realms/${realm}/trusted-issuers/${issuerId}`);
      const initial = await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, { expires_in: 600 });

      const expected = ['realm.created', 'user.created', 'user.updated', 'user.totp_enrolled', 'user.deleted', 'scope.saved', 'scope.deleted', 'keys.rotated'];
      if (issuerId) expected.push('trusted_issuer.created', 'trusted_issuer.deleted');
      expect(await typesOf(t.admin, realm)).toEqual([...expected, 'initial_access_token.created']);
      expect(await lastEvent(t.admin, realm, 'user.created')).toMatchObject({ user_id: person.sub, details: { username: person.username } });
      expect(await lastEvent(t.admin, realm, 'user.updated')).toMatchObject({ user_id: person.sub, details: { username: person.username, fields: ['password'] } });
      expect((await lastEvent(t.admin, realm, 'keys.rotated')).details).toEqual({ kids: keys.keys.map((key) => key.kid) });
      expect((await lastEvent(t.admin, realm, 'scope.saved')).details).toEqual({ scope: 'orders:read' });
      expect((await lastEvent(t.admin, realm, 'initial_access_token.created')).details).toEqual({ expires_in: 600 });
      const text = JSON.stringify(await eventsOf(t.admin, realm));
      for (const secret of [person.password, 'a new password 123', initial.json().token]) expect(text).not.toContain(secret);
    });
  });

  describe('sign-in', () => {
    it('success and failure on the sign-in page, for the client the person signs in for', async () => {
      const realm = await unlimitedRealm(t);
      const { clientId, username, password } = await codeFlowSetup(t.admin, realm);
      const browser = new TestBrowser(t.app, t.baseUrl);
      browser.remoteAddress = '203.0.113.7';
      const start = await authorize(browser, realm, codeRequest(clientId));
      const refused = await signInFrom(browser, start, { username, password: 'not the password' });
      expect(refused.statusCode).toBe(200);
      const unknown = await browser.submit(location(start), refused, { username: 'nobody', password: 'whatever it is' });
      expect(unknown.statusCode).toBe(200);
      const signedIn = await browser.submit(location(start), unknown, { username, password });
      expect(signedIn.statusCode).toBe(303);

      const sub = (await t.admin.request('GET', `/realms/${realm}/users/${username}`)).json().sub as string;
      const failures = (await eventsOf(t.admin, realm, { type: 'sign_in.failed' })).events;
      expect(failures.map((event) => event.details.username)).toEqual(['nobody', username]);
      expect(failures[1]).toMatchObject({
        client_id: clientId,
        user_id: null,
        address: '203.0.113.7',
        details: { via: 'sign_in_page', step: 'password', username, reason: 'wrong_credentials' },
      });
      expect(await lastEvent(t.admin, realm, 'sign_in.succeeded')).toMatchObject({
        client_id: clientId,
        user_id: sub,
        address: '203.0.113.7',
        details: { via: 'sign_in_page', amr: ['pwd'] },
      });
      const text = JSON.stringify(await eventsOf(t.admin, realm));
      expect(text).not.toContain(password);
      expect(text).not.toContain('not the password');
      expect(text).not.toContain('whatever it is');
    });

    it('success and failure of the password grant', async () => {
      const realm = await unlimitedRealm(t);
      const client = await webClient(realm);
      const person = await user(realm);
      expect((await passwordGrant(t.app, realm, client, { username: person.username, password: 'wrong password' })).statusCode).toBe(400);
      expect((await passwordGrant(t.app, realm, client, person)).statusCode).toBe(200);
      expect(await lastEvent(t.admin, realm, 'sign_in.failed')).toMatchObject({
        client_id: client.clientId,
        details: { via: 'password_grant', step: 'password', username: person.username, reason: 'wrong_credentials' },
      });
      expect(await lastEvent(t.admin, realm, 'sign_in.succeeded')).toMatchObject({
        client_id: client.clientId,
        user_id: person.sub,
        details: { via: 'password_grant', amr: ['pwd'] },
      });
      expect(JSON.stringify(await eventsOf(t.admin, realm))).not.toContain(person.password);
    });
  });

  describe('consent', () => {
    it('allowed and denied on the consent page', async () => {
      const realm = await unlimitedRealm(t);
      const { clientId, username, password } = await codeFlowSetup(t.admin, realm);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const denied = await consentFrom(browser, await signInFrom(browser, await authorize(browser, realm, codeRequest(clientId)), { username, password }), 'deny');
      expect(new URL(location(denied)).searchParams.get('error')).toBe('access_denied');
      const allowed = await consentFrom(browser, await authorize(browser, realm, codeRequest(clientId)), 'allow');
      expect(new URL(location(allowed)).searchParams.get('code')).toBeTruthy();

      const sub = (await t.admin.request('GET', `/realms/${realm}/users/${username}`)).json().sub as string;
      const expected = { client_id: clientId, user_id: sub, address: '127.0.0.1', details: { flow: 'authorize', scope: 'openid profile' } };
      expect(await lastEvent(t.admin, realm, 'consent.denied')).toMatchObject(expected);
      expect(await lastEvent(t.admin, realm, 'consent.granted')).toMatchObject(expected);
      expect(await typesOf(t.admin, realm, { user_id: sub })).toEqual(['user.created', 'sign_in.succeeded', 'consent.denied', 'consent.granted']);
    });

    it('on the device page', async () => {
      const realm = await unlimitedRealm(t);
      const person = await user(realm);
      const device = await t.admin.createClient(realm, { client_type: 'public', grant_types: [DEVICE_GRANT], scope: 'openid' });
      const started = await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: device.client_id, scope: 'openid' });
      const { user_code: userCode, device_code: deviceCode } = started.json() as { user_code: string; device_code: string };
      const browser = new TestBrowser(t.app, t.baseUrl);
      const pageUrl = `${realmPath(realm)}/device/user`;
      let response = await browser.submit(pageUrl, await browser.get(pageUrl), { user_code: userCode });
      response = await browser.submit(location(response), await browser.get(location(response)), { username: person.username, password: person.password });
      const answered = await consentFrom(browser, response, 'allow');
      expect(answered.statusCode).toBe(200);

      const event = await lastEvent(t.admin, realm, 'consent.granted');
      expect(event).toMatchObject({ client_id: device.client_id, user_id: person.sub, details: { flow: 'device', scope: 'openid', request_id: expect.any(String) } });
      const text = JSON.stringify(event);
      expect(text).not.toContain(userCode);
      expect(text).not.toContain(deviceCode);
    });

    it('on the CIBA approval page', async () => {
      const realm = await unlimitedRealm(t);
      const person = await user(realm);
      const created = await t.admin.createClient(realm, { grant_types: [CIBA_GRANT], scope: 'openid profile' });
      const client = { clientId: created.client_id, secret: created.client_secret as string };
      const request = async () => {
        const response = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: person.username }, {
          authorization: basic(client.clientId, client.secret),
        });
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as { auth_req_id: string }).auth_req_id;
      };
      const browser = new TestBrowser(t.app, t.baseUrl);
      const pageUrl = `${realmPath(realm)}/bc-approve`;
      const login = location(await browser.get(pageUrl));
      await browser.submit(login, await browser.get(login), { username: person.username, password: person.password });
      const decide = async (decision: 'allow' | 'deny') => {
        const page = await browser.get(pageUrl);
        const [form] = page.body.split('<section class="request">').slice(1).map((section) => hiddenInputs(section));
        const answered: LightMyRequestResponse = await browser.post(pageUrl, { ...form!, decision });
        expect(answered.statusCode).toBe(303);
      };
      const first = await request();
      await decide('allow');
      const second = await request();
      await decide('deny');

      const expected = { client_id: client.clientId, user_id: person.sub, details: { flow: 'ciba', scope: 'openid', request_id: expect.any(String) } };
      expect(await lastEvent(t.admin, realm, 'consent.granted')).toMatchObject(expected);
      expect(await lastEvent(t.admin, realm, 'consent.denied')).toMatchObject(expected);
      const text = JSON.stringify(await eventsOf(t.admin, realm));
      expect(text).not.toContain(first);
      expect(text).not.toContain(second);
    });

    it('revoked on the account page', async () => {
      const realm = await unlimitedRealm(t);
      const client = await webClient(realm, { client_name: 'Web App' });
      const person = await user(realm);
      const browser = new TestBrowser(t.app, t.baseUrl);
      await obtainCode(browser, realm, { clientId: client.clientId, username: person.username, password: person.password });
      const page = await browser.get(`${realmPath(realm)}/account`);
      expect(page.statusCode).toBe(200);
      const revoked = await browser.post(`${realmPath(realm)}/account/applications/revoke`, formFor(page.body, `${issuerOf(realm)}/account/applications/revoke`));
      expect(revoked.statusCode).toBe(303);
      expect(await lastEvent(t.admin, realm, 'consent.revoked')).toMatchObject({
        client_id: client.clientId,
        user_id: person.sub,
        details: { via: 'account' },
      });
    });
  });

  describe('revocation', () => {
    it('of an access token and of a refresh token, which revokes its grant; an unknown token records nothing', async () => {
      const realm = await unlimitedRealm(t);
      const client = await webClient(realm);
      const person = await user(realm);
      const tokens = await passwordTokens(t.app, realm, client, person, 'openid');
      const refreshToken = tokens.refresh_token!;
      expect((await revoke(t.app, realm, client, tokens.access_token)).statusCode).toBe(200);
      expect((await revoke(t.app, realm, client, refreshToken)).statusCode).toBe(200);
      expect((await revoke(t.app, realm, client, refreshToken)).statusCode).toBe(200); // already revoked
      expect((await revoke(t.app, realm, client, 'no-such-token')).statusCode).toBe(200);

      const revocations = (await eventsOf(t.admin, realm, { type: 'token.revoked' })).events.reverse();
      expect(revocations).toHaveLength(2);
      const common = { client_id: client.clientId, user_id: person.sub, address: '127.0.0.1' };
      expect(revocations[0]).toMatchObject({ ...common, details: { token_kind: 'access_token', grant_id: expect.any(String), grant_revoked: false } });
      expect(revocations[1]).toMatchObject({ ...common, details: { token_kind: 'refresh_token', grant_revoked: true } });
      expect(revocations[0]!.details.grant_id).toBe(revocations[1]!.details.grant_id);
      const text = JSON.stringify(revocations);
      expect(text).not.toContain(tokens.access_token);
      expect(text).not.toContain(refreshToken);
    });

    it('of a JWT access token, by its jti', async () => {
      const realm = await unlimitedRealm(t, { stateless_tokens: true });
      const created = await t.admin.createClient(realm, { grant_types: ['client_credentials'] });
      const client = { clientId: created.client_id, secret: created.client_secret as string };
      const token = (await clientCredentials(t.app, realm, client)).json().access_token as string;
      const jti = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;
      expect((await revoke(t.app, realm, client, token)).statusCode).toBe(200);
      const event = await lastEvent(t.admin, realm, 'token.revoked');
      expect(event).toMatchObject({ client_id: client.clientId, user_id: null, details: { token_kind: 'jwt_access_token', jti } });
      expect(JSON.stringify(event)).not.toContain(token);
    });
  });

  describe('revocation of a grant by the reuse of what it was issued for', () => {
    it('a second use of a code revokes its grant, as a token.revoked event naming the grant and why', async () => {
      const realm = await unlimitedRealm(t);
      const client = await webClient(realm);
      const person = await user(realm);
      const flow = await obtainCode(new TestBrowser(t.app, t.baseUrl), realm, { clientId: client.clientId, username: person.username, password: person.password });
      await exchange(realm, client, flow.code, flow.verifier);
      const issued = await lastEvent(t.admin, realm, 'token.issued');
      const again = await postForm(
        t.app,
        `${realmPath(realm)}/access_token`,
        { grant_type: 'authorization_code', code: flow.code, redirect_uri: REDIRECT_URI, code_verifier: flow.verifier },
        { authorization: basic(client.clientId, client.secret) },
      );
      expect(again.statusCode).toBe(400);
      expect(await lastEvent(t.admin, realm, 'token.revoked')).toMatchObject({
        client_id: client.clientId,
        details: { grant_id: issued.details.grant_id, reason: 'code_reused' },
      });
    });

    it('a replayed refresh token revokes its grant, as a token.revoked event', async () => {
      const realm = await unlimitedRealm(t);
      const client = await webClient(realm);
      const person = await user(realm);
      const first = await passwordTokens(t.app, realm, client, person);
      const refresh = (token: string) =>
        postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: token }, { authorization: basic(client.clientId, client.secret) });
      expect((await refresh(first.refresh_token!)).statusCode).toBe(200);
      expect((await refresh(first.refresh_token!)).statusCode).toBe(400);
      const event = await lastEvent(t.admin, realm, 'token.revoked');
      expect(event).toMatchObject({ client_id: client.clientId, details: { reason: 'refresh_token_reused', grant_id: expect.any(String) } });
      expect(JSON.stringify(event)).not.toContain(first.refresh_token);
    });
  });

  describe('dynamic registration', () => {
    it('records the client created, updated and deleted through its registration URI', async () => {
      const realm = await unlimitedRealm(t, { open_registration: true });
      const metadata = { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' };
      const created = await t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, payload: metadata });
      expect(created.statusCode).toBe(201);
      const { client_id: clientId, registration_access_token: token } = created.json();
      const headers = { authorization: `Bearer ${token}` };
      const url = `${realmPath(realm)}/connect/register/${clientId}`;
      expect((await t.app.inject({ method: 'PUT', url, headers, payload: { ...metadata, client_id: clientId, client_name: 'renamed' } })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'DELETE', url, headers })).statusCode).toBe(204);
      const events = (await eventsOf(t.admin, realm, { client_id: clientId })).events.reverse();
      expect(events.map((event) => [event.type, event.details.via])).toEqual([
        ['client.created', 'registration'],
        ['client.updated', 'registration'],
        ['client.deleted', 'registration'],
      ]);
      expect(JSON.stringify(events)).not.toContain(token);
    });
  });

  describe('token issuance (recorded by src/tokens/issuer.ts)', () => {
    it('client credentials', async () => {
      const realm = await unlimitedRealm(t);
      await t.admin.putScope(realm, 'api');
      const created = await t.admin.createClient(realm, { grant_types: ['client_credentials'], scope: 'api' });
      const client = { clientId: created.client_id, secret: created.client_secret as string };
      const response = await clientCredentials(t.app, realm, client, { scope: 'api' });
      expect(response.statusCode).toBe(200);
      const event = await lastEvent(t.admin, realm, 'token.issued');
      expect(event).toMatchObject({
        client_id: client.clientId,
        user_id: null,
        details: { grant_type: 'client_credentials', scope: 'api', grant_id: expect.any(String) },
      });
      expect(JSON.stringify(event)).not.toContain(response.json().access_token);
    });

    it('the code flow, after its sign-in and consent', async () => {
      const realm = await unlimitedRealm(t);
      const client = await webClient(realm);
      const person = await user(realm);
      const flow = await obtainCode(new TestBrowser(t.app, t.baseUrl), realm, { clientId: client.clientId, username: person.username, password: person.password });
      const tokens = await exchange(realm, client, flow.code, flow.verifier);
      expect(await typesOf(t.admin, realm, { user_id: person.sub })).toEqual(['user.created', 'sign_in.succeeded', 'consent.granted', 'token.issued']);
      const event = await lastEvent(t.admin, realm, 'token.issued');
      expect(event).toMatchObject({ client_id: client.clientId, user_id: person.sub, details: { grant_type: 'authorization_code', scope: 'openid profile' } });
      const text = JSON.stringify(event);
      for (const secret of [flow.code, tokens.access_token, tokens.refresh_token]) expect(text).not.toContain(secret);
    });

    /** The realm's token.issued rows as the database holds them now: read directly, not through the events API (which waits for the trail). */
    async function storedIssuance(realm: string) {
      const rows = await t.store.db.query<{ grant_type: string; tokens: string[]; lifetime: number }>(
        `SELECT details->>'grant_type' AS grant_type, ARRAY(SELECT jsonb_array_elements_text(details->'tokens')) AS tokens,
                extract(epoch FROM expires_at - occurred_at)::int AS lifetime
           FROM audit_events WHERE realm = $1 AND type = 'token.issued' ORDER BY id`,
        [realm],
      );
      return rows.rows;
    }

    it('is committed with the tokens, in their statement: stored when the answer arrives, and not for a refused refresh', async () => {
      const realm = await unlimitedRealm(t, { audit_event_lifetime: 3600 });
      const client = await webClient(realm);
      const person = await user(realm);
      const service = await t.admin.createClient(realm, { grant_types: ['client_credentials'] });

      expect((await clientCredentials(t.app, realm, { clientId: service.client_id, secret: service.client_secret as string })).statusCode).toBe(200);
      expect(await storedIssuance(realm)).toEqual([{ grant_type: 'client_credentials', tokens: ['access_token'], lifetime: 3600 }]);

      const flow = await obtainCode(new TestBrowser(t.app, t.baseUrl), realm, { clientId: client.clientId, username: person.username, password: person.password });
      const tokens = await exchange(realm, client, flow.code, flow.verifier);
      expect((await storedIssuance(realm)).at(-1)).toEqual({ grant_type: 'authorization_code', tokens: ['access_token', 'refresh_token', 'id_token'], lifetime: 3600 });

      const refresh = (token: string) =>
        postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: token }, { authorization: basic(client.clientId, client.secret) });
      expect((await refresh(tokens.refresh_token)).statusCode).toBe(200);
      expect((await storedIssuance(realm)).at(-1)).toMatchObject({ grant_type: 'refresh_token', tokens: ['access_token', 'refresh_token', 'id_token'] });
      expect((await refresh(tokens.refresh_token)).statusCode).toBe(400);
      await t.audit.flush();
      expect((await storedIssuance(realm)).map((row) => row.grant_type)).toEqual(['client_credentials', 'authorization_code', 'refresh_token']);
    });

    it('of a stateless access token alone (nothing stored), by the trail after the answer', async () => {
      const realm = await unlimitedRealm(t, { stateless_tokens: true });
      const created = await t.admin.createClient(realm, { grant_types: ['client_credentials'] });
      expect((await clientCredentials(t.app, realm, { clientId: created.client_id, secret: created.client_secret as string })).statusCode).toBe(200);
      await t.audit.flush();
      expect(await storedIssuance(realm)).toEqual([{ grant_type: 'client_credentials', tokens: ['jwt_access_token'], lifetime: 90 * 24 * 3600 }]);
    });
  });
});
