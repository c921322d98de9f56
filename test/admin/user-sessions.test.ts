import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, obtainCode } from '../support/flow.js';
import { type ServiceClient, introspect, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, passwordTokens, refreshGrant } from '../support/users.js';
import { ISO_TIMESTAMP, expectAdminError } from './helpers.js';

interface SessionView {
  id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  journey: string;
  acr: string;
  amr: string[];
  clients: string[];
}

/** GET and DELETE /admin/realms/{realm}/users/{username}/sessions (CONTRACT.md §10). */
describe('admin API: a person\'s sessions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function setup() {
    const realm = await freshRealm(t, NO_RATE_LIMITS);
    const user = await createUser(t.admin, realm, 'alice');
    const clientFor = async (name: string) =>
      (await t.admin.createClient(realm, { client_id: name, client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile' })).client_id;
    const created = await t.admin.createClient(realm, { grant_types: ['password', 'refresh_token'], scope: 'openid profile' });
    const service: ServiceClient = { clientId: created.client_id, secret: created.client_secret as string };
    const auditor = await t.admin.serviceClient(realm, '', { introspect_any_token: true });
    return { realm, user, web: await clientFor('web'), shop: await clientFor('shop'), service, auditor };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  /** A browser signed in through `clientId`'s code flow, and the tokens of its code. */
  async function signIn(s: Setup, clientId: string, browser = new TestBrowser(t.app, t.baseUrl), user: TestUser = s.user) {
    const { code, verifier } = await obtainCode(browser, s.realm, { clientId, username: user.username, password: user.password });
    const response = await postForm(t.app, `${realmPath(s.realm)}/access_token`, {
      grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier,
    });
    expect(response.statusCode, response.body).toBe(200);
    const tokens = response.json() as { access_token: string; refresh_token: string; id_token: string };
    return { browser, tokens, sid: decodeJwt(tokens.id_token).sid as string };
  }

  const sessionsOf = (s: Setup, username = s.user.username) => t.admin.request('GET', `/realms/${s.realm}/users/${username}/sessions`);
  const signOutEverywhere = (s: Setup, username = s.user.username) => t.admin.request('DELETE', `/realms/${s.realm}/users/${username}/sessions`);
  const active = async (s: Setup, token: string) => (await introspect(t.app, s.realm, s.auditor, token)).json().active as boolean;

  /** Whether the browser is still signed in: /authorize answers at once rather than with the sign-in page. */
  async function signedIn(s: Setup, browser: TestBrowser, clientId: string): Promise<boolean> {
    const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    return !new URL(location(await browser.get(`${realmPath(s.realm)}/authorize?${query}`)), t.baseUrl).pathname.endsWith('/login');
  }

  it('lists the live sessions by their public id, newest first, with when, how and for which clients; never a cookie\'s secret', async () => {
    const s = await setup();
    expect((await sessionsOf(s)).json()).toEqual({ sessions: [] });

    const first = await signIn(s, 'web');
    // The same browser goes on to another client, in the same session: its code (not yet exchanged) names it.
    await obtainCode(first.browser, s.realm, { clientId: 'shop', username: s.user.username, password: s.user.password });
    const second = await signIn(s, 'shop');

    const response = await sessionsOf(s);
    expect(response.statusCode, response.body).toBe(200);
    const { sessions } = response.json() as { sessions: SessionView[] };
    expect(sessions.map((session) => session.id)).toEqual([second.sid, first.sid]);
    for (const session of sessions) {
      expect(Object.keys(session).sort()).toEqual(['acr', 'amr', 'clients', 'created_at', 'expires_at', 'id', 'journey', 'last_seen_at', 'nodes']);
      expect(session).toMatchObject({ journey: 'default', amr: ['pwd'], nodes: ['password'], created_at: expect.stringMatching(ISO_TIMESTAMP), expires_at: expect.stringMatching(ISO_TIMESTAMP) });
      expect(Date.parse(session.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(session.created_at));
    }
    expect(sessions[1]!.clients).toEqual(['shop', 'web']);
    expect(sessions[0]!.clients).toEqual(['shop']);
    // What the browser holds of its session is nowhere in the answer.
    for (const value of first.browser.cookies.values()) expect(response.body).not.toContain(value);
    const secrets = await t.store.db.query<{ secret_hash: Buffer }>('SELECT secret_hash FROM sessions WHERE realm = $1', [s.realm]);
    for (const { secret_hash } of secrets.rows) {
      expect(response.body).not.toContain(secret_hash.toString('hex'));
      expect(response.body).not.toContain(secret_hash.toString('base64url'));
    }
  });

  it('last seen moves with the tokens issued under the session, a refresh\'s included', async () => {
    const s = await setup();
    const { tokens } = await signIn(s, 'web');
    const before = ((await sessionsOf(s)).json() as { sessions: SessionView[] }).sessions[0]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refreshed = await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'web' });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const after = ((await sessionsOf(s)).json() as { sessions: SessionView[] }).sessions[0]!;
    expect(after.created_at).toBe(before.created_at);
    expect(Date.parse(after.last_seen_at)).toBeGreaterThan(Date.parse(before.last_seen_at));
  });

  it('shows only this person\'s sessions, and none that ended', async () => {
    const s = await setup();
    const bob = await createUser(t.admin, s.realm, 'bob');
    await signIn(s, 'web', undefined, bob);
    const mine = await signIn(s, 'web');
    expect(((await sessionsOf(s)).json() as { sessions: SessionView[] }).sessions.map((session) => session.id)).toEqual([mine.sid]);
    await t.store.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE sid = $1", [mine.sid]);
    expect((await sessionsOf(s)).json()).toEqual({ sessions: [] });
  });

  it('DELETE signs the person out everywhere as sign-out does: sessions end, their tokens are revoked; grants without a session stay', async () => {
    const s = await setup();
    const a = await signIn(s, 'web');
    const b = await signIn(s, 'shop');
    const bob = await createUser(t.admin, s.realm, 'bob');
    const bobs = await signIn(s, 'web', undefined, bob);
    const password = await passwordTokens(t.app, s.realm, s.service, s.user, 'openid');
    for (const token of [a.tokens.access_token, a.tokens.refresh_token, b.tokens.access_token, password.access_token]) expect(await active(s, token)).toBe(true);

    const ended = await signOutEverywhere(s);
    expect(ended.statusCode, ended.body).toBe(204);
    expect(ended.body).toBe('');

    expect((await sessionsOf(s)).json()).toEqual({ sessions: [] });
    expect(await signedIn(s, a.browser, 'web')).toBe(false);
    expect(await signedIn(s, b.browser, 'shop')).toBe(false);
    for (const token of [a.tokens.access_token, a.tokens.refresh_token, b.tokens.access_token, b.tokens.refresh_token]) expect(await active(s, token)).toBe(false);
    const refresh = await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: a.tokens.refresh_token, client_id: 'web' });
    expect(refresh.json().error).toBe('invalid_grant');
    // The password grant began no session: its grant stays, as a sign-out leaves it.
    expect(await active(s, password.access_token)).toBe(true);
    expect((await refreshGrant(t.app, s.realm, s.service, password.refresh_token!)).statusCode).toBe(200);
    // Another person is not touched.
    expect(await active(s, bobs.tokens.access_token)).toBe(true);
    expect(await signedIn(s, bobs.browser, 'web')).toBe(true);
    // The person signs in again as before.
    expect(await active(s, (await signIn(s, 'web', a.browser)).tokens.access_token)).toBe(true);

    // Nothing left to end is no error.
    expect((await signOutEverywhere(s, 'bob')).statusCode).toBe(204);
    expect((await signOutEverywhere(s, 'bob')).statusCode).toBe(204);
  });

  it('DELETE ends the JWT access tokens of the sessions (stateless tokens)', async () => {
    const s = await setup();
    await t.admin.request('PATCH', `/realms/${s.realm}`, { settings: { stateless_tokens: true } });
    const { tokens } = await signIn(s, 'web');
    expect(await active(s, tokens.access_token)).toBe(true);
    expect((await signOutEverywhere(s)).statusCode).toBe(204);
    expect(await active(s, tokens.access_token)).toBe(false);
  });

  it('records user.sessions_ended with the number of sessions ended', async () => {
    const s = await setup();
    await signIn(s, 'web');
    await signIn(s, 'shop');
    expect((await signOutEverywhere(s)).statusCode).toBe(204);
    const events = await t.admin.request('GET', `/realms/${s.realm}/events?type=user.sessions_ended`);
    expect(events.json().events).toEqual([
      expect.objectContaining({ type: 'user.sessions_ended', user_id: s.user.sub, details: { username: 'alice', sessions: 2 } }),
    ]);
  });

  it('an unknown person or realm is 404; no admin token is 401', async () => {
    const s = await setup();
    expectAdminError(await sessionsOf(s, 'nobody'), 404, 'not_found');
    expectAdminError(await signOutEverywhere(s, 'nobody'), 404, 'not_found');
    expectAdminError(await t.admin.request('GET', '/realms/no-such-realm/users/alice/sessions'), 404, 'not_found');
    for (const method of ['GET', 'DELETE'] as const) {
      const anonymous = await t.app.inject({ method, url: `/admin/realms/${s.realm}/users/alice/sessions` });
      expectAdminError(anonymous, 401, 'invalid_token');
    }
  });
});
