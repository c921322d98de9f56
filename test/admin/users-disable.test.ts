import { randomUUID, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { sha256 } from '../../src/secrets.js';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { selfSigned } from '../support/certificates.js';
import { authorize, codeRequest, freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, formFor, hiddenInputs, location, obtainCode, pkce } from '../support/flow.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { SoftwareAuthenticator, passkeyForm } from '../support/passkeys.js';
import { lockToken, waitingFor } from '../support/row-locks.js';
import { testStoreKind } from '../support/store.js';
import { createUser, passwordGrant, tokenRequest } from '../support/users.js';
import { Upstream, addProvider, appClient, callbackOf, returnFromProvider, signInThrough, startAtProvider } from '../identity-providers/support.js';
import { expectAdminError } from './helpers.js';

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const CIBA = 'urn:openid:params:grant-type:ciba';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const SAML2_BEARER = 'urn:ietf:params:oauth:grant-type:saml2-bearer';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const IDP = 'https://idp.example';
const SAML_IDP = 'https://idp.example/saml';
/** What a disabled person reads (src/pages/i18n/en.ts `errors.accountDisabled`). */
const DISABLED = 'This account is disabled';

const now = () => Math.floor(Date.now() / 1000);
const codeOf = (base32: string): string => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
}

/**
 * `PATCH /admin/realms/{realm}/users/{username} {enabled: false}` (CONTRACT.md §10): a disabled
 * person signs in nowhere, every way a person is named being tried; their sessions end and their
 * tokens stop working, in the transaction that disables them; `enabled: true` lets them in again.
 */
describe('admin API: disabling a person', () => {
  let t: TestApp;
  let mail: TestMailServer;
  let idpKey: KeyPair;
  let saml: { dir: string; cert: string; key: string };

  beforeAll(async () => {
    mail = await startMailServer();
    // The upstream identity provider listens on loopback; registration needs outgoing mail.
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], mail: mail.settings });
    idpKey = await keyPair('ES256');
    const dir = mkdtempSync(join(tmpdir(), 'realmgate-disable-'));
    saml = { dir, ...selfSigned(dir, 'idp', '/CN=idp', []) };
  });
  afterAll(async () => {
    await t.close();
    await mail.close();
    rmSync(saml.dir, { recursive: true, force: true });
  });

  /** A realm with alice, the clients of every way she can be signed in or named, trusted issuers and an auditor. */
  async function setup(settings: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, { ...NO_RATE_LIMITS, device_poll_interval: 1, ciba_poll_interval: 1, ...settings });
    const user = await createUser(t.admin, realm, 'alice', { claims: { email: 'alice@example.com', email_verified: true } });
    await t.admin.createClient(realm, {
      client_id: 'web',
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token', DEVICE],
      scope: 'openid profile',
    });
    const service = async (record: Record<string, unknown>): Promise<ServiceClient> => {
      const created = await t.admin.createClient(realm, record);
      return { clientId: created.client_id, secret: created.client_secret as string };
    };
    const app = await service({ grant_types: ['password', 'refresh_token', JWT_BEARER, TOKEN_EXCHANGE, SAML2_BEARER], scope: 'openid profile' });
    const ciba = await service({ grant_types: [CIBA], scope: 'openid profile' });
    const auditor = await service({ grant_types: ['client_credentials'], introspect_any_token: true });
    for (const issuer of [
      { kind: 'jwt', issuer: IDP, jwks: { keys: [idpKey.publicJwk] } },
      { kind: 'saml2', issuer: SAML_IDP, certificate_pem: saml.cert },
    ]) {
      const trusted = await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, issuer);
      expect(trusted.statusCode, trusted.body).toBe(201);
    }
    return { realm, user, app, ciba, auditor };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  const setEnabled = (s: Setup, enabled: unknown, username = s.user.username) => t.admin.request('PATCH', `/realms/${s.realm}/users/${username}`, { enabled });
  async function disable(s: Setup): Promise<void> {
    const response = await setEnabled(s, false);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().enabled).toBe(false);
  }
  async function enable(s: Setup): Promise<void> {
    const response = await setEnabled(s, true);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().enabled).toBe(true);
  }

  const active = async (s: Setup, token: string) => (await introspect(t.app, s.realm, s.auditor, token)).json().active as boolean;
  const userinfo = (s: Setup, token: string) => t.app.inject({ method: 'GET', url: `${realmPath(s.realm)}/userinfo`, headers: { authorization: `Bearer ${token}` } });
  const sessionRows = async (s: Setup) =>
    (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE realm = $1 AND user_id = $2::uuid', [s.realm, s.user.sub])).rows[0]!.n;

  function expectGrantError(response: LightMyRequestResponse, error: string, status = 400) {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json().error).toBe(error);
  }

  /** The code flow in a new browser: its tokens. */
  async function signIn(s: Setup, browser = new TestBrowser(t.app, t.baseUrl)): Promise<{ browser: TestBrowser; tokens: Tokens }> {
    const { code, verifier } = await obtainCode(browser, s.realm, { clientId: 'web', username: s.user.username, password: s.user.password });
    const response = await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'web', code_verifier: verifier });
    expect(response.statusCode, response.body).toBe(200);
    return { browser, tokens: response.json() };
  }

  /** /authorize in a browser, to the sign-in page; the URL of that page. */
  async function toSignInPage(s: Setup, browser: TestBrowser): Promise<string> {
    const start = await authorize(browser, s.realm, codeRequest('web', { code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
    expect(redirectPath(start)).toBe(`${realmPath(s.realm)}/login`);
    return location(start);
  }

  /** The refusal of a sign-in: the page says the account is disabled, and nothing goes back to the client. */
  async function expectSignInRefused(s: Setup, response: LightMyRequestResponse) {
    expect([200, 403], response.body.slice(0, 300)).toContain(response.statusCode);
    expect(response.body).toContain(DISABLED);
    expect(await sessionRows(s)).toBe(0);
  }

  /** A JWT of the trusted issuer naming alice, for the realm: an assertion, or a token to exchange. */
  const jwtAssertion = (realm: string) =>
    new SignJWT({ iss: IDP, sub: 'alice', aud: issuerOf(realm), exp: now() + 300, iat: now(), jti: randomUUID() })
      .setProtectedHeader({ alg: idpKey.alg, kid: idpKey.kid })
      .sign(idpKey.privateKey);

  /** A signed SAML 2.0 assertion of the trusted issuer naming alice, for the realm's token endpoint. */
  function samlAssertion(realm: string): string {
    const tokenEndpoint = `${issuerOf(realm)}/access_token`;
    const at = (offset: number) => new Date(Date.now() + offset * 1000).toISOString();
    const xml =
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomUUID()}" Version="2.0" IssueInstant="${at(0)}">` +
      `<saml:Issuer>${SAML_IDP}</saml:Issuer><saml:Subject><saml:NameID>alice</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData Recipient="${tokenEndpoint}" NotOnOrAfter="${at(300)}"/></saml:SubjectConfirmation>` +
      `</saml:Subject><saml:Conditions NotBefore="${at(-30)}" NotOnOrAfter="${at(300)}"><saml:AudienceRestriction><saml:Audience>${tokenEndpoint}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${at(-60)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `</saml:Assertion>`;
    const signer = new SignedXml({ privateKey: saml.key, publicCert: saml.cert, signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256', canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#' });
    signer.SignatureAlgorithms['http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256'] = class {
      getAlgorithmName = () => 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256';
      getSignature = (signedInfo: string, privateKey: string) => cryptoSign('sha256', Buffer.from(signedInfo), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64');
      verifySignature = () => false;
    } as never;
    signer.addReference({
      xpath: "/*[local-name(.)='Assertion']",
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    signer.computeSignature(xml, { prefix: 'ds', location: { reference: "/*/*[local-name(.)='Issuer']", action: 'after' } });
    return Buffer.from(signer.getSignedXml(), 'utf8').toString('base64url');
  }

  describe('the admin API', () => {
    it('PATCH {enabled} answers the person with it, and GET shows it; each change is one audit event', async () => {
      const s = await setup();
      expect((await t.admin.request('GET', `/realms/${s.realm}/users/alice`)).json().enabled).toBe(true);
      await disable(s);
      await disable(s);
      expect((await t.admin.request('GET', `/realms/${s.realm}/users/alice`)).json().enabled).toBe(false);
      await enable(s);
      await enable(s);
      const events = (await t.admin.request('GET', `/realms/${s.realm}/events?type=user.disabled,user.enabled`)).json().events as Array<Record<string, unknown>>;
      expect(events.map((event) => event.type)).toEqual(['user.enabled', 'user.disabled']);
      for (const event of events) expect(event).toMatchObject({ user_id: s.user.sub, details: { username: 'alice' } });
    });

    it('changes claims and the flag together, and leaves what was not sent', async () => {
      const s = await setup();
      const response = await t.admin.request('PATCH', `/realms/${s.realm}/users/alice`, { enabled: false, claims: { name: 'Alice' } });
      expect(response.json()).toMatchObject({ enabled: false, claims: { email: 'alice@example.com', name: 'Alice' } });
      expect((await t.admin.request('PATCH', `/realms/${s.realm}/users/alice`, { claims: { name: 'A.' } })).json().enabled).toBe(false);
    });

    it('refuses an enabled that is not a boolean, changing nothing', async () => {
      const s = await setup();
      for (const value of ['false', 0, null, 'no', [false], {}]) {
        expectAdminError(await setEnabled(s, value), 400, 'invalid_request');
      }
      expect((await t.admin.request('GET', `/realms/${s.realm}/users/alice`)).json().enabled).toBe(true);
      expectAdminError(await setEnabled(s, false, 'nobody'), 404, 'not_found');
    });
  });

  describe('what the person had ends', () => {
    for (const stateless of [false, true]) {
      it(`sessions end; code, refresh and password grant tokens stop: introspection, UserInfo and refresh refuse them${stateless ? ' (JWT access tokens)' : ''}`, async () => {
        const s = await setup({ stateless_tokens: stateless });
        const { browser, tokens } = await signIn(s);
        const password = (await passwordGrant(t.app, s.realm, s.app, s.user, { scope: 'openid profile' })).json() as Tokens;
        for (const token of [tokens.access_token, tokens.refresh_token, password.access_token, password.refresh_token]) expect(await active(s, token)).toBe(true);
        expect((await userinfo(s, tokens.access_token)).statusCode).toBe(200);
        expect(await sessionRows(s)).toBe(1);

        await disable(s);

        expect(await sessionRows(s)).toBe(0);
        expect((await t.admin.request('GET', `/realms/${s.realm}/users/alice/sessions`)).json()).toEqual({ sessions: [] });
        for (const token of [tokens.access_token, tokens.refresh_token, password.access_token, password.refresh_token]) expect(await active(s, token)).toBe(false);
        for (const token of [tokens.access_token, password.access_token]) {
          const refused = await userinfo(s, token);
          expect(refused.statusCode).toBe(401);
          expect(refused.json().error).toBe('invalid_token');
        }
        expectGrantError(await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'web' }), 'invalid_grant');
        expectGrantError(await tokenRequest(t.app, s.realm, s.app, { grant_type: 'refresh_token', refresh_token: password.refresh_token }), 'invalid_grant');
        // The browser is signed out: /authorize shows the sign-in page again.
        const again = await authorize(browser, s.realm, codeRequest('web', { code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
        expect(redirectPath(again)).toBe(`${realmPath(s.realm)}/login`);
      });
    }

    it('a refresh token of a client without rotation is refused', async () => {
      const s = await setup({ rotate_refresh_tokens: false });
      const password = (await passwordGrant(t.app, s.realm, s.app, s.user, { scope: 'openid' })).json() as Tokens;
      expect((await tokenRequest(t.app, s.realm, s.app, { grant_type: 'refresh_token', refresh_token: password.refresh_token })).statusCode).toBe(200);
      await disable(s);
      expectGrantError(await tokenRequest(t.app, s.realm, s.app, { grant_type: 'refresh_token', refresh_token: password.refresh_token }), 'invalid_grant');
    });

    it('a code not yet exchanged is refused', async () => {
      const s = await setup();
      const { code, verifier } = await obtainCode(new TestBrowser(t.app, t.baseUrl), s.realm, { clientId: 'web', username: s.user.username, password: s.user.password });
      await disable(s);
      expectGrantError(
        await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'web', code_verifier: verifier }),
        'invalid_grant',
      );
    });

    it('a JWT access token of a grant that stored nothing (an assertion\'s, stateless) is inactive at introspection, refused at UserInfo and in token exchange', async () => {
      const s = await setup({ stateless_tokens: true });
      const granted = await tokenRequest(t.app, s.realm, s.app, { grant_type: JWT_BEARER, assertion: await jwtAssertion(s.realm), scope: 'openid profile' });
      expect(granted.statusCode, granted.body).toBe(200);
      const jwt = granted.json().access_token as string;
      expect(granted.json().refresh_token).toBeUndefined();
      expect(await active(s, jwt)).toBe(true);
      expect((await userinfo(s, jwt)).statusCode).toBe(200);

      await disable(s);
      expect(await active(s, jwt)).toBe(false);
      expect((await userinfo(s, jwt)).statusCode).toBe(401);
      const exchanged = await tokenRequest(t.app, s.realm, s.app, { grant_type: TOKEN_EXCHANGE, subject_token: jwt, subject_token_type: ACCESS_TOKEN_TYPE });
      expectGrantError(exchanged, 'invalid_request');

      // Enabled again, the token stays denied: a disable denies the JWTs issued before it (CONTRACT.md §7).
      await enable(s);
      expect(await active(s, jwt)).toBe(false);
    });
  });

  describe('every way of signing in refuses a disabled person', () => {
    it('the sign-in page: the right password says the account is disabled; a wrong one reads as any wrong password', async () => {
      const s = await setup();
      await disable(s);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const url = await toSignInPage(s, browser);
      const wrong = await browser.submit(url, await browser.get(url), { username: 'alice', password: 'not her password' });
      expect(wrong.body).not.toContain(DISABLED);
      const right = await browser.submit(url, await browser.get(url), { username: 'alice', password: s.user.password });
      await expectSignInRefused(s, right);
      expect(right.headers.location).toBeUndefined();
      const failed = (await t.admin.request('GET', `/realms/${s.realm}/events?type=sign_in.failed`)).json().events as Array<{ details: Record<string, unknown> }>;
      expect(failed.map((event) => event.details.reason)).toContain('disabled');
    });

    it('the password node itself refuses: a journey\'s later steps are not asked for', async () => {
      const s = await setup();
      const strong = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } } };
      expect((await t.admin.request('PUT', `/realms/${s.realm}/journeys/default`, strong)).statusCode).toBeLessThan(300);
      expect((await t.admin.request('POST', `/realms/${s.realm}/users/alice/totp`)).statusCode).toBe(201);
      await disable(s);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const url = await toSignInPage(s, browser);
      const response = await browser.submit(url, await browser.get(url), { username: 'alice', password: s.user.password });
      expect(response.statusCode).toBe(403);
      await expectSignInRefused(s, response);
    });

    it('a sign-in past its password when the person is disabled ends without a session', async () => {
      const s = await setup();
      const strong = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } } };
      expect((await t.admin.request('PUT', `/realms/${s.realm}/journeys/default`, strong)).statusCode).toBeLessThan(300);
      const secret = (await t.admin.request('POST', `/realms/${s.realm}/users/alice/totp`)).json().secret as string;
      const browser = new TestBrowser(t.app, t.baseUrl);
      const url = await toSignInPage(s, browser);
      const afterPassword = await browser.submit(url, await browser.get(url), { username: 'alice', password: s.user.password });
      const otpUrl = location(afterPassword);
      const otpPage = await browser.get(otpUrl);
      expect(otpPage.body).toContain('name="otp"');

      await disable(s);
      const response = await browser.submit(otpUrl, otpPage, { otp: codeOf(secret) });
      await expectSignInRefused(s, response);
    });

    it('a passkey (passwordless) says the account is disabled', async () => {
      const s = await setup();
      const authenticator = new SoftwareAuthenticator(t.baseUrl);
      // A passkey added on the account page, then a journey of a passkey alone.
      const browser = new TestBrowser(t.app, t.baseUrl);
      const account = await browser.get(`${realmPath(s.realm)}/account`);
      const loginUrl = location(account);
      await browser.submit(loginUrl, await browser.get(loginUrl), { username: 'alice', password: s.user.password });
      // A first second factor: the code mailed to alice's verified address first (CONTRACT.md §8).
      const codeForm = formFor((await browser.get(`${realmPath(s.realm)}/account`)).body, `${issuerOf(s.realm)}/account/enrolment-code`);
      await browser.post(`${realmPath(s.realm)}/account/enrolment-code`, { ...codeForm, resend: '1' });
      const code = /^(\d{6})$/m.exec((await mail.nextMail('alice@example.com')).text)?.[1];
      expect((await browser.post(`${realmPath(s.realm)}/account/enrolment-code`, { ...codeForm, otp: code! })).statusCode).toBe(303);
      const form = passkeyForm((await browser.get(`${realmPath(s.realm)}/account`)).body, 'registration');
      const added = await browser.post(form.action!, { ...form.hidden, passkey_name: 'Laptop', credential: JSON.stringify(authenticator.register(form.options)) });
      expect(added.statusCode).toBe(303);
      const passkeyOnly = { start: 'key', nodes: { key: { type: 'passkey', next: { success: 'done', unavailable: 'deny' } } } };
      expect((await t.admin.request('PUT', `/realms/${s.realm}/journeys/default`, passkeyOnly)).statusCode).toBeLessThan(300);

      await disable(s);
      const other = new TestBrowser(t.app, t.baseUrl);
      const url = await toSignInPage(s, other);
      const page = await other.get(url);
      const ceremony = passkeyForm(page.body, 'authentication');
      const response = await other.post(ceremony.action ?? url, { ...ceremony.hidden, credential: JSON.stringify(authenticator.authenticate(ceremony.options)) });
      await expectSignInRefused(s, response.statusCode === 303 ? await other.get(location(response)) : response);
    });

    it('the password grant: invalid_grant that says so, only for the right password', async () => {
      const s = await setup();
      await disable(s);
      const wrong = await passwordGrant(t.app, s.realm, s.app, { username: 'alice', password: 'not her password' });
      expectGrantError(wrong, 'invalid_grant');
      expect(wrong.json().error_description).not.toContain('disabled');
      const right = await passwordGrant(t.app, s.realm, s.app, s.user);
      expectGrantError(right, 'invalid_grant');
      expect(right.json().error_description).toContain('disabled');
    });

    it('the device flow: an approval not yet collected is denied, and the device page signs no one in', async () => {
      const s = await setup();
      const start = async () => (await postForm(t.app, `${realmPath(s.realm)}/device/code`, { client_id: 'web', scope: 'openid' })).json() as { device_code: string; user_code: string };
      const poll = (deviceCode: string) => postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: DEVICE, device_code: deviceCode, client_id: 'web' });
      const pageUrl = `${realmPath(s.realm)}/device/user`;

      const approved = await start();
      const browser = new TestBrowser(t.app, t.baseUrl);
      let response = await browser.submit(pageUrl, await browser.get(pageUrl), { user_code: approved.user_code });
      const login = location(response);
      response = await browser.submit(login, await browser.get(login), { username: 'alice', password: s.user.password });
      const consent = location(response);
      expect((await browser.submit(consent, await browser.get(consent), { decision: 'allow' })).statusCode).toBe(200);
      await disable(s);
      expectGrantError(await poll(approved.device_code), 'access_denied');

      const pending = await start();
      const other = new TestBrowser(t.app, t.baseUrl);
      response = await other.submit(pageUrl, await other.get(pageUrl), { user_code: pending.user_code });
      const otherLogin = location(response);
      await expectSignInRefused(s, await other.submit(otherLogin, await other.get(otherLogin), { username: 'alice', password: s.user.password }));
      expectGrantError(await poll(pending.device_code), 'authorization_pending');
    });

    it('CIBA: a request naming the person is access_denied; one approved and not yet collected is denied', async () => {
      const s = await setup();
      const bcAuthorize = () =>
        postForm(t.app, `${realmPath(s.realm)}/bc-authorize`, { scope: 'openid', login_hint: 'alice' }, { authorization: basic(s.ciba.clientId, s.ciba.secret) });
      const first = await bcAuthorize();
      expect(first.statusCode, first.body).toBe(200);
      const authReqId = first.json().auth_req_id as string;
      const browser = new TestBrowser(t.app, t.baseUrl);
      const pageUrl = `${realmPath(s.realm)}/bc-approve`;
      const signInUrl = location(await browser.get(pageUrl));
      await browser.submit(signInUrl, await browser.get(signInUrl), { username: 'alice', password: s.user.password });
      const approval = await browser.get(pageUrl);
      const fields = hiddenInputs(approval.body.split('<section class="request">')[1]!);
      expect((await browser.post(pageUrl, { ...fields, decision: 'allow' })).statusCode).toBe(303);

      await disable(s);
      // The first poll of the request: no interval to wait (src/store/pending-authorizations.ts).
      expectGrantError(await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: CIBA, auth_req_id: authReqId }, { authorization: basic(s.ciba.clientId, s.ciba.secret) }), 'access_denied');
      const refused = await bcAuthorize();
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().error).toBe('access_denied');
    });

    it('a JWT bearer assertion naming the person is refused, and its jti is not spent', async () => {
      const s = await setup();
      const assertion = await jwtAssertion(s.realm);
      await disable(s);
      const refused = await tokenRequest(t.app, s.realm, s.app, { grant_type: JWT_BEARER, assertion });
      expectGrantError(refused, 'invalid_grant');
      expect(refused.json().error_description).toContain('disabled');
      await enable(s);
      expect((await tokenRequest(t.app, s.realm, s.app, { grant_type: JWT_BEARER, assertion })).statusCode).toBe(200);
    });

    it('a SAML 2.0 bearer assertion naming the person is refused', async () => {
      const s = await setup();
      const assertion = samlAssertion(s.realm);
      await disable(s);
      const refused = await tokenRequest(t.app, s.realm, s.app, { grant_type: SAML2_BEARER, assertion });
      expectGrantError(refused, 'invalid_grant');
      expect(refused.json().error_description).toContain('disabled');
      await enable(s);
      expect((await tokenRequest(t.app, s.realm, s.app, { grant_type: SAML2_BEARER, assertion })).statusCode).toBe(200);
    });

    it('token exchange of a trusted issuer\'s token naming the person is refused', async () => {
      const s = await setup();
      await disable(s);
      const exchanged = await tokenRequest(t.app, s.realm, s.app, { grant_type: TOKEN_EXCHANGE, subject_token: await jwtAssertion(s.realm), subject_token_type: JWT_TOKEN_TYPE });
      expectGrantError(exchanged, 'invalid_request');
      expect(exchanged.json().error_description).toContain('disabled');
    });

    it('registration cannot bring the person back: the username stays taken, and they stay disabled', async () => {
      const s = await setup({ self_registration: true });
      await disable(s);
      const browser = new TestBrowser(t.app, t.baseUrl);
      const url = `${realmPath(s.realm)}/register`;
      const response = await browser.submit(url, await browser.get(url), { username: 'Alice', email: 'alice@example.com', password: 'another good password' });
      expect(response.statusCode).not.toBe(303);
      expect((await t.admin.request('GET', `/realms/${s.realm}/users?search=alice`)).json().users).toEqual([expect.objectContaining({ username: 'alice', enabled: false })]);
      expectGrantError(await passwordGrant(t.app, s.realm, s.app, { username: 'alice', password: 'another good password' }), 'invalid_grant');
    });

    it('enabled again, the person signs in as before; what ended stays ended', async () => {
      const s = await setup();
      const before = await signIn(s);
      await disable(s);
      await enable(s);
      expect(await active(s, before.tokens.access_token)).toBe(false);
      const after = await signIn(s);
      expect(await active(s, after.tokens.access_token)).toBe(true);
      expect((await passwordGrant(t.app, s.realm, s.app, s.user)).statusCode).toBe(200);
    });
  });

  describe('sign-in through an identity provider', () => {
    let upstream: Upstream;
    const realms = ['idp-linked', 'idp-email'];

    beforeAll(async () => {
      upstream = await Upstream.start(realms.map((realm) => callbackOf(realm, 'up')));
      for (const realm of realms) await t.admin.createRealm(realm, NO_RATE_LIMITS);
    });
    afterAll(() => upstream?.close());

    it('a person linked to the upstream account is refused at the callback, and no one new is made', async () => {
      const realm = 'idp-linked';
      await addProvider(t, realm, upstream.issuer);
      const clientId = await appClient(t, realm);
      upstream.accounts.set('up-ada', { preferred_username: 'ada', email: 'ada@corp.example', email_verified: true });
      const first = await signInThrough(t, upstream, realm, clientId, 'up-ada', new TestBrowser(t.app, t.baseUrl));
      expect((await t.admin.request('PATCH', `/realms/${realm}/users/ada`, { enabled: false })).statusCode).toBe(200);

      upstream.nextAccount = 'up-ada';
      const browser = new TestBrowser(t.app, t.baseUrl);
      const started = await startAtProvider(browser, realm, clientId);
      // The callback itself ends the sign-in.
      const callback = await browser.get(await upstream.browse(location(started.response)));
      expect(callback.statusCode).toBe(403);
      expect(callback.body).toContain(DISABLED);
      expect((await t.store.db.query('SELECT 1 FROM sessions WHERE realm = $1 AND user_id = $2::uuid', [realm, first.sub])).rows).toEqual([]);
      expect((await t.admin.request('GET', `/realms/${realm}/users`)).json().users).toHaveLength(1);
    });

    it('linking by a verified email to a disabled person is refused, and no one new is made', async () => {
      const realm = 'idp-email';
      await addProvider(t, realm, upstream.issuer, { link_by_verified_email: true });
      const clientId = await appClient(t, realm);
      await createUser(t.admin, realm, 'grace', { claims: { email: 'grace@corp.example', email_verified: true } });
      expect((await t.admin.request('PATCH', `/realms/${realm}/users/grace`, { enabled: false })).statusCode).toBe(200);
      upstream.accounts.set('up-grace', { preferred_username: 'grace-up', email: 'grace@corp.example', email_verified: true });

      upstream.nextAccount = 'up-grace';
      const browser = new TestBrowser(t.app, t.baseUrl);
      const started = await startAtProvider(browser, realm, clientId);
      const back = await returnFromProvider(browser, await upstream.browse(location(started.response)));
      expect(back.code).toBeUndefined();
      expect(back.page?.body).toContain(DISABLED);
      const people = (await t.admin.request('GET', `/realms/${realm}/users`)).json().users as Array<{ username: string }>;
      expect(people.map((person) => person.username)).toEqual(['grace']);
      expect((await t.admin.request('GET', `/realms/${realm}/users/grace`)).json().identities).toEqual([]);
    });
  });

  /**
   * On PostgreSQL, the interleavings that decide: the test holds a lock that the disable needs
   * once it has locked the person's row FOR UPDATE (a row of their tokens), so that an issuance
   * begun meanwhile must wait for the disable; released, the disable commits first, and the
   * issuance must then issue nothing. And the other way round: an issuance that holds the person
   * first commits first, and the disable revokes what it wrote.
   */
  describe.skipIf(testStoreKind() !== 'postgres')('a disable against issuance in progress (PostgreSQL)', () => {
    const liveTokens = async (s: Setup) =>
      (
        await t.store.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM tokens WHERE realm = $1 AND user_id = $2::uuid AND revoked_at IS NULL AND used_at IS NULL AND expires_at > now()',
          [s.realm, s.user.sub],
        )
      ).rows[0]!.n;

    /**
     * The disable waits on the test's lock of a token row, holding the person FOR UPDATE; `issuing`
     * then starts and must wait for the disable; the lock is released once both wait.
     */
    async function disableFirst(s: Setup, lockedToken: string, issuing: () => Promise<LightMyRequestResponse>) {
      const lock = await lockToken(t.store.db, lockedToken);
      try {
        const disabled = setEnabled(s, false);
        await waitingFor(t.store.db, lock.pid, 1);
        const issued = issuing();
        await waitingFor(t.store.db, lock.pid, 2);
        await lock.release();
        const [disableAnswer, answer] = await Promise.all([disabled, issued]);
        expect(disableAnswer.statusCode, disableAnswer.body).toBe(200);
        return answer;
      } finally {
        await lock.release();
      }
    }

    it('a password grant that waited for the disable issues nothing', async () => {
      const s = await setup();
      const earlier = (await passwordGrant(t.app, s.realm, s.app, s.user, { scope: 'openid' })).json() as Tokens;
      const answer = await disableFirst(s, earlier.refresh_token, () => passwordGrant(t.app, s.realm, s.app, s.user, { scope: 'openid' }));
      expectGrantError(answer, 'invalid_grant');
      expect(await liveTokens(s)).toBe(0);
    });

    it('a sign-in that waited for the disable begins no session', async () => {
      const s = await setup();
      const earlier = (await passwordGrant(t.app, s.realm, s.app, s.user, { scope: 'openid' })).json() as Tokens;
      const browser = new TestBrowser(t.app, t.baseUrl);
      const url = await toSignInPage(s, browser);
      const page = await browser.get(url);
      const answer = await disableFirst(s, earlier.refresh_token, () => browser.submit(url, page, { username: 'alice', password: s.user.password }));
      await expectSignInRefused(s, answer);
      expect(await liveTokens(s)).toBe(0);
    });

    it('a refresh that waited for the disable issues nothing, and does not use its token', async () => {
      const s = await setup();
      const earlier = await signIn(s);
      const { tokens } = await signIn(s);
      // Looked up before the disable, live; its rotation then waits on the person the disable holds.
      const answer = await disableFirst(s, earlier.tokens.refresh_token, () =>
        postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'web' }),
      );
      expectGrantError(answer, 'invalid_grant');
      expect(await liveTokens(s)).toBe(0);
      const used = await t.store.db.query<{ used: boolean }>('SELECT used_at IS NOT NULL AS used FROM tokens WHERE token_hash = $1', [sha256(tokens.refresh_token)]);
      expect(used.rows).toEqual([{ used: false }]);
    });

    it('a refresh written before the disable is revoked by it', async () => {
      const s = await setup();
      const { tokens } = await signIn(s);
      // The refresh holds the person, then waits on the test's lock of its token; the disable waits for it.
      const lock = await lockToken(t.store.db, tokens.refresh_token);
      let refreshed: LightMyRequestResponse;
      try {
        const refreshing = postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'web' });
        await waitingFor(t.store.db, lock.pid, 1);
        const disabled = setEnabled(s, false);
        await Promise.race([waitingFor(t.store.db, lock.pid, 2), disabled]);
        await lock.release();
        const [response, disableAnswer] = await Promise.all([refreshing, disabled]);
        expect(disableAnswer.statusCode).toBe(200);
        refreshed = response;
      } finally {
        await lock.release();
      }
      if (refreshed.statusCode === 200) {
        expect(await active(s, refreshed.json().access_token)).toBe(false);
        expect(await active(s, refreshed.json().refresh_token)).toBe(false);
      }
      expect(await liveTokens(s)).toBe(0);
      expect(await sessionRows(s)).toBe(0);
    });

    it('many sign-ins, grants and refreshes racing a disable leave nothing live', async () => {
      const s = await setup();
      const signedIn = await Promise.all(Array.from({ length: 4 }, () => signIn(s)));
      const work: Array<Promise<LightMyRequestResponse>> = [];
      for (const { tokens } of signedIn) {
        work.push(postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'web' }));
        work.push(passwordGrant(t.app, s.realm, s.app, s.user, { scope: 'openid' }));
      }
      const [disableAnswer, ...answers] = await Promise.all([setEnabled(s, false), ...work]);
      expect(disableAnswer!.statusCode).toBe(200);
      for (const answer of answers) {
        if (answer.statusCode !== 200) continue;
        for (const token of [answer.json().access_token, answer.json().refresh_token]) expect(await active(s, token)).toBe(false);
      }
      expect(await liveTokens(s)).toBe(0);
      expect(await sessionRows(s)).toBe(0);
    });
  });
});
