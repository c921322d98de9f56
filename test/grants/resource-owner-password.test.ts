import { createHash, randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../src/authn/password-verification.js';
import { PASSWORD_HASHING } from '../../src/authn/password-hashing.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, basic, introspect, postForm } from '../support/oauth.js';
import { type TestUser, createUser, passwordGrant, passwordTokens, verifyIdToken } from '../support/users.js';

const ISSUER = 'https://auth.test/oauth2/alpha';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const atHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

describe('token endpoint: resource owner password credentials (RFC 6749 §4.3)', () => {
  let t: TestApp;
  let alice: TestUser;
  /** RS256 ID tokens (the default), and the refresh_token grant. */
  let app: ServiceClient;
  let es256: ServiceClient;
  let noRefreshGrant: ServiceClient;

  const client = async (realm: string, record: Record<string, unknown>): Promise<ServiceClient> => {
    const created = await t.admin.createClient(realm, record);
    return { clientId: created.client_id, secret: created.client_secret as string };
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha', { access_token_lifetime: 600 });
    await t.admin.putScope('alpha', 'api:read');
    alice = await createUser(t.admin, 'alpha', 'alice', {
      claims: { name: 'Alice Liddell', given_name: 'Alice', email: 'alice@example.com', email_verified: true },
    });
    const record = { grant_types: ['password', 'refresh_token'], scope: 'openid profile email api:read' };
    app = await client('alpha', record);
    es256 = await client('alpha', { ...record, id_token_signed_response_alg: 'ES256' });
    noRefreshGrant = await client('alpha', { ...record, grant_types: ['password'] });
  });
  afterAll(() => t.close());

  it('issues an access token, a refresh token and an ID token for the client scope', async () => {
    const response = await passwordGrant(t.app, 'alpha', app, alice);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'openid profile email api:read',
      refresh_token: expect.any(String),
      id_token: expect.any(String),
    });
  });

  it('signs the ID token with the client alg and describes the sign-in (OIDC Core §2)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const body = await passwordTokens(t.app, 'alpha', app, alice);
    const after = Math.ceil(Date.now() / 1000);
    const { payload, protectedHeader } = await verifyIdToken(t.app, 'alpha', body.id_token!, { issuer: ISSUER, audience: app.clientId });
    expect(protectedHeader.alg).toBe('RS256');
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.sub).toBe(alice.sub);
    expect(payload.auth_time).toBeGreaterThanOrEqual(before);
    expect(payload.auth_time).toBeLessThanOrEqual(after);
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(payload.at_hash).toBe(atHash(body.access_token));
    expect(payload.amr).toEqual(['pwd']); // RFC 8176
    expect(payload.sid).toMatch(UUID);
    expect(payload.nonce).toBeUndefined();
    // The claims of the profile and email scopes (OIDC Core §5.4).
    expect(payload).toMatchObject({
      preferred_username: 'alice',
      name: 'Alice Liddell',
      given_name: 'Alice',
      email: 'alice@example.com',
      email_verified: true,
    });
  });

  it('signs with ES256 for a client that asks for it', async () => {
    const body = await passwordTokens(t.app, 'alpha', es256, alice);
    const { payload, protectedHeader } = await verifyIdToken(t.app, 'alpha', body.id_token!, { issuer: ISSUER, audience: es256.clientId });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.sub).toBe(alice.sub);
  });

  it('gives each sign-in its own session id', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const second = await passwordTokens(t.app, 'alpha', app, alice);
    const sid = async (idToken: string) =>
      (await verifyIdToken(t.app, 'alpha', idToken, { issuer: ISSUER, audience: app.clientId })).payload.sid;
    expect(await sid(first.id_token!)).not.toBe(await sid(second.id_token!));
  });

  it('issues no ID token without openid, and only the claims of the scope granted', async () => {
    const noOpenid = await passwordTokens(t.app, 'alpha', app, alice, 'api:read');
    expect(noOpenid.scope).toBe('api:read');
    expect(noOpenid.id_token).toBeUndefined();

    const profileOnly = await passwordTokens(t.app, 'alpha', app, alice, 'openid profile');
    const { payload } = await verifyIdToken(t.app, 'alpha', profileOnly.id_token!, { issuer: ISSUER, audience: app.clientId });
    expect(payload.name).toBe('Alice Liddell');
    expect(payload.email).toBeUndefined();
    expect(payload.email_verified).toBeUndefined();
  });

  it('answers a wrong password and an unknown username alike', async () => {
    const wrongPassword = await passwordGrant(t.app, 'alpha', app, { username: 'alice', password: 'not-her-password' });
    const unknownUser = await passwordGrant(t.app, 'alpha', app, { username: 'mallory', password: alice.password });
    for (const response of [wrongPassword, unknownUser]) {
      expect(response.statusCode).toBe(400);
      expect(response.headers['cache-control']).toBe('no-store');
    }
    expect(wrongPassword.json()).toEqual({ error: 'invalid_grant', error_description: 'the username or password is incorrect' });
    expect(unknownUser.body).toBe(wrongPassword.body);
    // The password is correct for the user it belongs to only.
    const otherUser = await createUser(t.admin, 'alpha', 'bob');
    const crossed = await passwordGrant(t.app, 'alpha', app, { username: otherUser.username, password: alice.password });
    expect(crossed.body).toBe(wrongPassword.body);
  });

  it('requires both username and password, each once', async () => {
    for (const form of [{ username: '', password: alice.password }, { username: 'alice', password: '' }]) {
      const response = await passwordGrant(t.app, 'alpha', app, form);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    }
    const repeated = await postForm(
      t.app,
      '/oauth2/alpha/access_token',
      { grant_type: 'password', username: 'alice', password: [alice.password, alice.password] },
      { authorization: basic(app.clientId, app.secret) },
    );
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().error).toBe('invalid_request');
  });

  it('narrows to a requested subset of the client scope, and refuses more with invalid_scope', async () => {
    expect((await passwordTokens(t.app, 'alpha', app, alice, 'openid api:read')).scope).toBe('openid api:read');

    for (const scope of ['openid admin', 'api:write', 'bad"scope']) {
      const response = await passwordGrant(t.app, 'alpha', app, alice, { scope });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_scope');
    }
    // The scope is judged before the password, so that a refused request reveals nothing about it.
    const wrongBoth = await passwordGrant(t.app, 'alpha', app, { username: 'alice', password: 'wrong-password' }, { scope: 'admin' });
    expect(wrongBoth.json().error).toBe('invalid_scope');
  });

  it('shows the username at introspection of both tokens', async () => {
    const body = await passwordTokens(t.app, 'alpha', app, alice);
    const access = (await introspect(t.app, 'alpha', app, body.access_token)).json();
    expect(access).toMatchObject({ active: true, username: 'alice', sub: alice.sub, client_id: app.clientId, token_type: 'Bearer' });
    const refresh = (await introspect(t.app, 'alpha', app, body.refresh_token!)).json();
    expect(refresh).toMatchObject({ active: true, username: 'alice', sub: alice.sub, token_type: 'refresh_token' });
  });

  it('issues a refresh token only when the client lists the refresh_token grant', async () => {
    const body = await passwordTokens(t.app, 'alpha', noRefreshGrant, alice);
    expect(body.access_token).toEqual(expect.any(String));
    expect(body.refresh_token).toBeUndefined();
  });

  it('issues no refresh token where the realm turned them off', async () => {
    await t.admin.createRealm('quiet', { issue_refresh_tokens: false });
    const user = await createUser(t.admin, 'quiet', 'carol');
    const quiet = await client('quiet', { grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const body = await passwordTokens(t.app, 'quiet', quiet, user);
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toEqual(expect.any(String));
  });

  describe('where the realm asks for more than a password (its authentication steps)', () => {
    const OTP_REQUIRED = { error: 'invalid_grant', error_description: 'this realm requires a one-time code: send it in the otp parameter' };
    const PASSKEY_REQUIRED = { error: 'invalid_grant', error_description: 'this realm requires a passkey, which cannot be used with the password grant' };
    /** The code the person's authenticator app shows now. */
    const codeOf = (base32: string) => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

    /** A realm with the steps, a client of the grant, and a person (with an authenticator app when `enrol`). */
    const setup = async (authentication: string[], options: { enrol?: boolean } = {}) => {
      const realm = `steps-${randomBytes(4).toString('hex')}`;
      await t.admin.createRealm(realm, { authentication });
      const user = await createUser(t.admin, realm, 'dave');
      const secret = options.enrol
        ? ((await t.admin.request('POST', `/realms/${realm}/users/dave/totp`)).json() as { secret: string }).secret
        : '';
      return { realm, user, secret, client: await client(realm, { grant_types: ['password'], scope: 'openid' }) };
    };
    const failuresCounted = async (realm: string) =>
      (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attempt_counters WHERE key LIKE $1', [`sign-in:${realm}:%`])).rows[0]!.n;

    it('asks for the one-time code in the otp parameter, and takes the right one', async () => {
      const { realm, user, secret, client: strict } = await setup(['password', 'otp'], { enrol: true });
      const withoutCode = await passwordGrant(t.app, realm, strict, user);
      expect(withoutCode.statusCode).toBe(400);
      expect(withoutCode.json()).toEqual(OTP_REQUIRED);

      const wrongCode = await passwordGrant(t.app, realm, strict, user, { otp: codeOf(secret) === '000000' ? '111111' : '000000' });
      expect(wrongCode.json()).toEqual({ error: 'invalid_grant', error_description: 'the one-time code is incorrect or was already used' });

      const response = await passwordGrant(t.app, realm, strict, user, { otp: codeOf(secret) });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().id_token).toEqual(expect.any(String));
    });

    it('checks the password before the code, and counts wrong codes as failures', async () => {
      const { realm, user, secret, client: strict } = await setup(['password', 'otp'], { enrol: true });
      const wrongPassword = await passwordGrant(t.app, realm, strict, { username: user.username, password: 'wrong' }, { otp: codeOf(secret) });
      expect(wrongPassword.json()).toEqual({ error: 'invalid_grant', error_description: 'the username or password is incorrect' });
      const before = await t.store.attemptCounters.failures(`sign-in:${realm}:account:person:${user.sub}`);
      await passwordGrant(t.app, realm, strict, user, { otp: 'not-a-code' });
      expect(await t.store.attemptCounters.failures(`sign-in:${realm}:account:person:${user.sub}`)).toBe(before + 1);
    });

    it('tells a person without an authenticator app where to set one up', async () => {
      const { realm, user, client: strict } = await setup(['password', 'otp']);
      const response = await passwordGrant(t.app, realm, strict, user, { otp: '123456' });
      expect(response.json()).toEqual({
        error: 'invalid_grant',
        error_description: `this realm requires a one-time code and none is set up for this account: set one up at ${ISSUER.replace('/alpha', `/${realm}`)}/account`,
      });
    });

    it('refuses a realm that always asks for a passkey, before checking anything', async () => {
      for (const authentication of [['passkey'], ['password', 'passkey'], ['passkey', 'password']]) {
        const { realm, user, client: strict } = await setup(authentication);
        expect((await passwordGrant(t.app, realm, strict, user)).json()).toEqual(PASSKEY_REQUIRED);
        expect((await passwordGrant(t.app, realm, strict, { username: user.username, password: 'wrong' })).json()).toEqual(PASSKEY_REQUIRED);
        expect(await failuresCounted(realm)).toBe(0);
      }
    });

    it('asks for a passkey after the password where the risk step wants more from a new address', async () => {
      const { realm, user, client: strict } = await setup(['password', 'risk', 'passkey']);
      expect((await passwordGrant(t.app, realm, strict, user)).json()).toEqual(PASSKEY_REQUIRED);
      const wrong = await passwordGrant(t.app, realm, strict, { username: user.username, password: 'wrong' });
      expect(wrong.json().error_description).toBe('the username or password is incorrect');
    });
  });

  it('is refused to a client whose record does not list it', async () => {
    const other = await client('alpha', { grant_types: ['client_credentials'], scope: 'api:read' });
    const response = await passwordGrant(t.app, 'alpha', other, alice);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unauthorized_client');
  });

  it('does not find the user of another realm', async () => {
    await t.admin.createRealm('beta');
    const beta = await client('beta', { grant_types: ['password'], scope: 'openid' });
    const response = await passwordGrant(t.app, 'beta', beta, alice);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });
});

describe('verifyPassword', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ passwordHashing: PASSWORD_HASHING });
    await createUser(t.admin, 'root', 'erin', { password: 'correct horse battery' });
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  it('returns the user for the right password only', async () => {
    expect((await verifyPassword(t.store.users, PASSWORD_HASHING, 'root', 'erin', 'correct horse battery'))?.username).toBe('erin');
    expect(await verifyPassword(t.store.users, PASSWORD_HASHING, 'root', 'erin', 'wrong horse battery')).toBeUndefined();
  });

  it('spends an argon2id verification on an unknown username too, so timing does not tell', async () => {
    const verify = vi.spyOn(argon2, 'verify');
    expect(await verifyPassword(t.store.users, PASSWORD_HASHING, 'root', 'nobody', 'correct horse battery')).toBeUndefined();
    expect(verify).toHaveBeenCalledTimes(1);
    const [hash, password] = verify.mock.calls[0]!;
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,(t=2,p=1|p=1,t=2)\$/); // the parameters of real hashes
    expect(password).toBe('correct horse battery');
  });
});
