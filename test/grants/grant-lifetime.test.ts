import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { type ServiceClient, introspect } from '../support/oauth.js';
import { type TestUser, createUser, passwordTokens, refreshGrant, tokenRequest } from '../support/users.js';

const LONG = { access_token_lifetime: 3600, refresh_token_lifetime: 604_800 };

/** Realm setting `grant_max_lifetime` (CONTRACT.md §5): no token of a grant outlives the grant's start by more. */
describe('grant_max_lifetime', () => {
  let t: TestApp & { clock: TestClock };
  const clients: Record<string, ServiceClient> = {};
  const auditors: Record<string, ServiceClient> = {};
  const people: Record<string, TestUser> = {};

  const realms = {
    capped: { ...LONG, grant_max_lifetime: 60 },
    'capped-jwt': { ...LONG, grant_max_lifetime: 60, stateless_tokens: true },
    brief: { ...LONG, grant_max_lifetime: 1 },
    uncapped: { ...LONG, grant_max_lifetime: null },
  } as const;
  type Realm = keyof typeof realms;

  const inspect = async (realm: Realm, token: string) => {
    const body = (await introspect(t.app, realm, auditors[realm]!, token)).json();
    expect(body.active).toBe(true);
    return body as { exp: number; iat: number };
  };
  const tokens = (realm: Realm) => passwordTokens(t.app, realm, clients[realm]!, people[realm]!, 'openid');

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
    for (const [realm, settings] of Object.entries(realms)) {
      await t.admin.createRealm(realm, settings);
      const client = await t.admin.createClient(realm, { grant_types: ['password', 'refresh_token'], scope: 'openid' });
      clients[realm] = { clientId: client.client_id, secret: client.client_secret as string };
      const auditor = await t.admin.createClient(realm, { grant_types: ['client_credentials'], introspect_any_token: true });
      auditors[realm] = { clientId: auditor.client_id, secret: auditor.client_secret as string };
      people[realm] = await createUser(t.admin, realm, 'alice');
    }
  });
  afterAll(() => t.close());

  it('caps the tokens of a new grant: access, refresh and ID token', async () => {
    const first = await tokens('capped');
    expect(first.expires_in).toBeGreaterThan(0);
    expect(first.expires_in).toBeLessThanOrEqual(60);
    for (const token of [first.access_token, first.refresh_token!]) {
      const { exp, iat } = await inspect('capped', token);
      expect(exp - iat).toBeLessThanOrEqual(60);
    }
    const idToken = decodeJwt(first.id_token!);
    expect(idToken.exp! - idToken.iat!).toBeLessThanOrEqual(60);
  });

  it('a refresh keeps the grant start: its tokens end when the first ones do', async () => {
    const first = await tokens('capped');
    const grantEnd = (await inspect('capped', first.refresh_token!)).exp;
    const response = await refreshGrant(t.app, 'capped', clients.capped!, first.refresh_token!);
    expect(response.statusCode).toBe(200);
    const second = response.json();
    expect(second.expires_in).toBeGreaterThan(0);
    expect(second.expires_in).toBeLessThanOrEqual(60);
    expect((await inspect('capped', second.refresh_token)).exp).toBeLessThanOrEqual(grantEnd);
    expect((await inspect('capped', second.access_token)).exp).toBeLessThanOrEqual(grantEnd);
    expect(decodeJwt(second.id_token).exp).toBeLessThanOrEqual(grantEnd);

    // And the refresh of that refresh.
    const third = (await refreshGrant(t.app, 'capped', clients.capped!, second.refresh_token)).json();
    expect((await inspect('capped', third.refresh_token)).exp).toBeLessThanOrEqual(grantEnd);
  });

  it.each(['capped'] as const)('caps a token exchanged from a stored token of the grant (%s): it joins the grant, and ends with it', async (realm) => {
    const created = await t.admin.createClient(realm, {
      grant_types: ['password', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange'],
      scope: 'openid',
    });
    const exchanger = { clientId: created.client_id, secret: created.client_secret as string };
    const first = await passwordTokens(t.app, realm, exchanger, people[realm]!, 'openid');
    const grantEnd = (await inspect(realm, first.refresh_token!)).exp;
    await t.clock.advance(2_100); // a token exchanged now, given the whole 60 s, would outlive the grant by 2 s
    const response = await tokenRequest(t.app, realm, exchanger, {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: first.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    expect(response.statusCode, response.body).toBe(200);
    const exchanged = response.json() as { access_token: string; expires_in: number };
    expect((await inspect(realm, exchanged.access_token)).exp).toBeLessThanOrEqual(grantEnd);
  });

  it('caps stateless access tokens of a refresh too', async () => {
    const first = await tokens('capped-jwt');
    const grantEnd = (await inspect('capped-jwt', first.refresh_token!)).exp;
    expect(decodeJwt(first.access_token).exp).toBeLessThanOrEqual(grantEnd);
    const second = (await refreshGrant(t.app, 'capped-jwt', clients['capped-jwt']!, first.refresh_token!)).json();
    expect(second.expires_in).toBeLessThanOrEqual(60);
    expect(decodeJwt(second.access_token).exp).toBeLessThanOrEqual(grantEnd);
    expect((await inspect('capped-jwt', second.refresh_token)).exp).toBeLessThanOrEqual(grantEnd);
  });

  it('past the grant lifetime, the refresh is invalid_grant', async () => {
    const first = await tokens('brief');
    expect(first.expires_in).toBe(1);
    await t.clock.advance(1_100);
    const response = await refreshGrant(t.app, 'brief', clients.brief!, first.refresh_token!);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });

  it('null sets no cap: the realm lifetimes apply', async () => {
    const first = await tokens('uncapped');
    expect(first.expires_in).toBe(3600);
    const second = (await refreshGrant(t.app, 'uncapped', clients.uncapped!, first.refresh_token!)).json();
    const refresh = await inspect('uncapped', second.refresh_token);
    expect(refresh.exp - refresh.iat).toBe(604_800);
  });
});
