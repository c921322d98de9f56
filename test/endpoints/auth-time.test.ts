import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { authorize, codeRequest, expectRedirectError, issuerOf, redirectPath, signInFrom } from '../support/flow-helpers.js';
import { TestBrowser, pkce } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { createUser, type TestUser } from '../support/users.js';
import { exchangeCode, selfServiceRealm } from '../support/self-service.js';

/**
 * CONTRACT.md §12: `max_age` and `prompt=login` sign the person in again, and the ID token's
 * `auth_time` is the time of the last sign-in (OIDC Core §3.1.2.1, §2), whichever request asks.
 */
describe('auth_time after max_age and prompt=login', () => {
  let t: TestApp & { clock: TestClock };
  let realm: string;
  let clientId: string;
  let person: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
    ({ realm, clientId } = await selfServiceRealm(t, {}));
    person = await createUser(t.admin, realm, `ada-${randomBytes(4).toString('hex')}`);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** /authorize for the client with `extra`, signing in when the sign-in page comes: the ID token's claims and whether it did. */
  async function codeFor(browser: TestBrowser, extra: Record<string, string>) {
    const { verifier, challenge } = pkce();
    let response = await authorize(browser, realm, codeRequest(clientId, { code_challenge: challenge, ...extra }));
    const signedIn = response.statusCode === 303 && redirectPath(response) === `${realmPath(realm)}/login`;
    if (signedIn) response = await signInFrom(browser, response, person);
    const { claims } = await exchangeCode(t, realm, clientId, response, verifier);
    return { claims, signedIn };
  }

  it('keeps auth_time while the session is young enough, and takes the new sign-in\'s once max_age or prompt=login asks for one', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    const first = await codeFor(browser, {});
    expect(first.signedIn).toBe(true);
    expect(first.claims.auth_time).toEqual(expect.any(Number));
    expect(first.claims.sub).toBe(person.sub);
    await t.clock.advance(1100); // so that a new sign-in's auth_time differs

    const young = await codeFor(browser, { max_age: '3600' });
    expect(young.signedIn).toBe(false);
    expect(young.claims.auth_time).toBe(first.claims.auth_time);

    const stale = await codeFor(browser, { max_age: '1' });
    expect(stale.signedIn).toBe(true);
    expect(stale.claims.auth_time).toBeGreaterThan(first.claims.auth_time as number);
    expect(stale.claims.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    await t.clock.advance(1100);

    const forced = await codeFor(browser, { prompt: 'login' });
    expect(forced.signedIn).toBe(true);
    expect(forced.claims.auth_time).toBeGreaterThan(stale.claims.auth_time as number);

    // The session the last sign-in began stands for later requests with its auth_time.
    const later = await codeFor(browser, { prompt: 'none' });
    expect(later.signedIn).toBe(false);
    expect(later.claims.auth_time).toBe(forced.claims.auth_time);
    expect(later.claims.sid).toBe(forced.claims.sid);
  });

  it('answers prompt=none with max_age past the sign-in with login_required, and prompt=login with none is invalid_request', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    await codeFor(browser, {});
    await t.clock.advance(1100);
    expectRedirectError(await authorize(browser, realm, codeRequest(clientId, { prompt: 'none', max_age: '1' })), { error: 'login_required', iss: issuerOf(realm) });
    expectRedirectError(await authorize(browser, realm, codeRequest(clientId, { prompt: 'none login' })), { error: 'invalid_request', iss: issuerOf(realm) });
  });
});
