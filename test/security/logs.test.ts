import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { query } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { awayFromStepEnd, formsOf, securityRealm, setCookies, totpOf } from './support.js';

vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => {},
}));

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * Nothing secret reaches the log (RFC 9700 §4.2 and §4.3 on where credentials leak; RFC 6749
 * §10.3): the application runs with the production logger (src/logger.ts: its redaction) at
 * its most verbose level, and every flow a person, a client and an operator go through is
 * driven through HTTP, failures included. Each secret that crossed the wire (passwords, client
 * secrets and assertions, a private key, codes, verifiers, access, refresh and ID tokens, device
 * codes and user codes, auth_req_id, request_uri, TOTP secrets and codes, recovery codes,
 * session and binding cookies, CSRF tokens, transaction ids, the admin token, registration and
 * initial access tokens), in each form it crossed in, is then looked for in the log.
 * test/process/logs.test.ts does the same for a spawned server's stdout with fewer flows.
 */
describe('the log holds no secret', () => {
  let t: TestApp;
  let realm: string;
  const lines: string[] = [];
  const secrets = new Map<string, string>();
  const keep = (name: string, value: string | undefined): string => {
    if (!value) throw new Error(`no ${name}`);
    secrets.set(name, value);
    return value;
  };
  const json = <T>(response: LightMyRequestResponse, status = 200): T => {
    expect(response.statusCode, response.body).toBe(status);
    return response.json() as T;
  };
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestApp({ logger: createLogger('trace', sink) });
    keep('admin token', ADMIN_TOKEN);
    realm = await securityRealm(t, { authentication: ['password', 'otp'], open_registration: false, device_poll_interval: 1, ciba_poll_interval: 1 });
    const issuer = `${t.baseUrl}${realmPath(realm)}`;
    const token = (form: Record<string, string>, headers: Record<string, string> = {}) => postForm(t.app, `${realmPath(realm)}/access_token`, form, headers);

    // The operator: a person with a password and an authenticator app, clients with secrets and keys.
    const password = keep('password', `pw-${randomBytes(12).toString('base64url')}`);
    const username = `u-${randomBytes(4).toString('hex')}`;
    json(await t.admin.request('POST', `/realms/${realm}/users`, { username, password }), 201);
    const totp = json<{ secret: string; otpauth_uri: string }>(await t.admin.request('POST', `/realms/${realm}/users/${username}/totp`), 201);
    keep('TOTP secret', totp.secret);
    keep('otpauth URI', totp.otpauth_uri);
    const web = await t.admin.createClient(realm, {
      client_name: 'Web',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile',
    });
    const webSecret = keep('client secret', web.client_secret);
    const webBasic = keep('Basic credentials', basic(web.client_id, webSecret));
    keep('Basic credentials, base64', webBasic.slice('Basic '.length));
    const rotated = json<{ client_secret: string }>(await t.admin.request('POST', `/realms/${realm}/clients/${web.client_id}/secret`));
    keep('rotated client secret', rotated.client_secret);
    const auth = { authorization: basic(web.client_id, rotated.client_secret) };

    // The browser: sign-in with a wrong password, the password and a code; consent; the code.
    const b = new TestBrowser(t.app, t.baseUrl);
    const { verifier, challenge } = pkce();
    keep('code_verifier', verifier);
    const state = keep('state', randomBytes(16).toString('base64url'));
    const nonce = keep('nonce', randomBytes(16).toString('base64url'));
    const start = await b.get(`${realmPath(realm)}/authorize?${query({ client_id: web.client_id, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state, nonce, code_challenge: challenge, code_challenge_method: 'S256' })}`);
    const loginUrl = location(start);
    keep('transaction id', new URL(loginUrl).searchParams.get('transaction')!);
    const passwordPage = await b.get(loginUrl);
    keep('CSRF token', formsOf(passwordPage.body)[0]!.hidden.csrf);
    keep('wrong password', `wrong-${randomBytes(12).toString('base64url')}`);
    await b.submit(loginUrl, passwordPage, { username, password: secrets.get('wrong password')! });
    await b.submit(loginUrl, passwordPage, { username, password });
    await awayFromStepEnd();
    const wrongCode = String((Number(totpOf(totp.secret).generate()) + 500_000) % 1_000_000).padStart(6, '0');
    const codePage = await b.get(loginUrl);
    await b.submit(loginUrl, codePage, { otp: wrongCode });
    const otp = keep('one-time code', totpOf(totp.secret).generate());
    const toConsent = await b.submit(loginUrl, codePage, { otp });
    keep('session cookie', b.cookies.get(`rg_session_${realm}`));
    keep('binding cookie', b.cookies.get(`rg_browser_${realm}`));
    for (const cookie of setCookies(toConsent)) keep(`Set-Cookie ${cookie.slice(0, 12)}`, cookie.slice(0, cookie.indexOf(';')));
    const consentUrl = location(toConsent);
    const answered = await b.submit(consentUrl, await b.get(consentUrl), { decision: 'allow' });
    const code = keep('authorization code', new URL(location(answered)).searchParams.get('code')!);

    // The client: the code, a refresh, a replayed code, introspection, userinfo, revocation.
    const tokens = json<{ access_token: string; refresh_token: string; id_token: string }>(
      await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, auth),
    );
    keep('access token', tokens.access_token);
    keep('refresh token', tokens.refresh_token);
    keep('ID token', tokens.id_token);
    keep('ID token signature', tokens.id_token.split('.')[2]);
    const refreshed = json<{ access_token: string; refresh_token: string }>(await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth));
    keep('refreshed access token', refreshed.access_token);
    keep('rotated refresh token', refreshed.refresh_token);
    await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth); // a replay
    await postForm(t.app, `${realmPath(realm)}/introspect`, { token: refreshed.access_token }, auth);
    await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${refreshed.access_token}` } });
    await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo?access_token=${refreshed.access_token}` });
    await postForm(t.app, `${realmPath(realm)}/token/revoke`, { token: refreshed.refresh_token }, auth);
    await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, auth); // a replay
    await token({ grant_type: 'client_credentials' }, { authorization: basic(web.client_id, keep('wrong client secret', randomBytes(24).toString('base64url'))) });
    await token({ grant_type: 'authorization_code', code: keep('made-up code', randomBytes(32).toString('base64url')), code_verifier: verifier }, auth);

    // The account page: recovery codes and a new authenticator app, each shown once.
    const account = await b.get(`${realmPath(realm)}/account`);
    const formTo = (page: LightMyRequestResponse, path: string) => formsOf(page.body).find((form) => form.action === `${issuer}/account/${path}`)!;
    const codes = await b.post(`${issuer}/account/recovery-codes`, formTo(account, 'recovery-codes').hidden);
    [...codes.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].forEach(([, recovery], i) => keep(`recovery code ${i}`, recovery));
    expect(secrets.has('recovery code 9')).toBe(true);
    const removed = await b.post(`${issuer}/account/otp/remove`, formTo(account, 'otp/remove').hidden);
    const enrolment = await b.post(`${issuer}/account/otp/enrol`, formTo(await b.get(location(removed)), 'otp/enrol').hidden);
    keep('TOTP secret of the account page', /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(enrolment.body)?.[1]?.replace(/ /g, ''));

    // A client with a private key (private_key_jwt).
    const key = await keyPair('ES256');
    keep('private key d', (await exportJWK(key.privateKey)).d);
    const keyed = await t.admin.createClient(realm, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } });
    const clientAssertion = keep(
      'client assertion',
      await new SignJWT({ iss: keyed.client_id, sub: keyed.client_id, aud: `${issuer}/access_token`, jti: randomUUID() })
        .setProtectedHeader({ alg: key.alg, kid: key.kid })
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(key.privateKey),
    );
    keep('client credentials token', json<{ access_token: string }>(await token({ grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion })).access_token);
    await token({ grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion }); // a replay

    // The device flow and CIBA.
    const tv = await t.admin.createClient(realm, { client_type: 'public', grant_types: [DEVICE_GRANT], scope: 'openid' });
    const device = json<{ device_code: string; user_code: string; verification_uri_complete: string }>(await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: tv.client_id }));
    keep('device code', device.device_code);
    keep('user code', device.user_code);
    keep('user code, as typed', device.user_code.replace('-', ''));
    await b.get(device.verification_uri_complete);
    const devicePage = await b.get(`${realmPath(realm)}/device/user`);
    const toDeviceConsent = await b.submit(`${realmPath(realm)}/device/user`, devicePage, { user_code: device.user_code });
    await b.submit(location(toDeviceConsent), await b.get(location(toDeviceConsent)), { decision: 'allow' });
    keep('device access token', json<{ access_token: string }>(await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: DEVICE_GRANT, device_code: device.device_code, client_id: tv.client_id })).access_token);
    const desk = await t.admin.createClient(realm, { grant_types: [CIBA_GRANT], scope: 'openid' });
    keep('CIBA client secret', desk.client_secret);
    const ciba = json<{ auth_req_id: string }>(
      await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: username, binding_message: 'W4SP' }, { authorization: basic(desk.client_id, desk.client_secret!) }),
    );
    keep('auth_req_id', ciba.auth_req_id);
    await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: CIBA_GRANT, auth_req_id: ciba.auth_req_id }, { authorization: basic(desk.client_id, desk.client_secret!) });

    // PAR, registration with an initial access token, sign-out with an ID token.
    const pushed = json<{ request_uri: string }>(
      await postForm(t.app, `${realmPath(realm)}/par`, { response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' }, auth),
      201,
    );
    keep('request_uri', pushed.request_uri);
    await b.get(`${realmPath(realm)}/authorize?${query({ client_id: web.client_id, request_uri: pushed.request_uri })}`);
    const initial = keep('initial access token', json<{ token: string }>(await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, { grant_types: ['client_credentials'] }), 201).token);
    const registered = json<{ client_id: string; client_secret: string; registration_access_token: string }>(
      await t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, headers: { authorization: `Bearer ${initial}` }, payload: { grant_types: ['client_credentials'] } }),
      201,
    );
    keep('registered client secret', registered.client_secret);
    keep('registration access token', registered.registration_access_token);
    await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/register/${registered.client_id}`, headers: { authorization: `Bearer ${registered.registration_access_token}` } });
    await t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, headers: { authorization: `Bearer ${initial}` }, payload: { grant_types: ['client_credentials'] } });
    await b.get(`${realmPath(realm)}/connect/endSession?${query({ id_token_hint: tokens.id_token })}`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('logged the run: a line per request, and the audit events', () => {
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.filter((line) => line.msg === 'request').length).toBeGreaterThan(40);
    expect(parsed.some((line) => line.url === `${realmPath(realm)}/access_token` && line.status === 400)).toBe(true);
    expect(parsed.some((line) => JSON.stringify(line).includes('sign_in'))).toBe(true);
    // What is not secret is there to be found: the search below looks in the right place.
    expect(lines.join('')).toContain(realm);
  });

  it('logged none of the secrets, in any form they crossed the wire in', () => {
    const log = lines.join('');
    expect(secrets.size).toBeGreaterThan(40);
    for (const [name, value] of secrets) {
      for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) {
        expect(log.includes(form), `the log holds the ${name}`).toBe(false);
      }
    }
  });

  it('logged no private key, nor a header that carries credentials', () => {
    const log = lines.join('');
    expect(log).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    expect(log).not.toMatch(/"d"\s*:\s*"/);
    expect(log).not.toMatch(/"(authorization|cookie|set-cookie)"\s*:\s*"(?!\[redacted\])/i);
  });
});
