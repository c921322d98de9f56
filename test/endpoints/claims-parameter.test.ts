import { randomUUID } from 'node:crypto';
import { type JWTPayload, SignJWT, decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, completeFlow, expectCode, expectRedirectError, freshRealm, redirectPath, signInFrom } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, refreshGrant, verifyIdToken } from '../support/users.js';

const otpOf = (base32: string): string => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

/** Password and always a one-time code: the journey the acr `gold` maps to. */
const STRONG_JOURNEY = {
  start: 'pw',
  nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
};

/**
 * The `claims` request parameter (OpenID Connect Core §5.5, CONTRACT.md §13) at /authorize, /par
 * and in request objects: claims asked go where they were asked, within the granted scopes;
 * an essential acr picks the journey and steps a weaker session up; a `sub` asked is the only
 * person answered for; anything malformed is refused and changes nothing.
 */
describe('the claims parameter', () => {
  let t: TestApp;
  let realm: string;
  let issuer: string;
  let carol: TestUser;
  let dave: TestUser;
  let carolOtp: string;
  /** A confidential client of the code flow with refresh tokens, scope `openid profile org email`; its jwks holds `key`. */
  let client: { clientId: string; secret: string };
  let key: KeyPair;

  const browser = () => new TestBrowser(t.app, t.baseUrl);
  const claimsParam = (value: unknown) => JSON.stringify(value);

  const exchange = (code: string, verifier: string) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, {
      authorization: basic(client.clientId, client.secret),
    });

  const idTokenClaims = async (idToken: string): Promise<JWTPayload> =>
    (await verifyIdToken(t.app, realm, idToken, { issuer, audience: client.clientId })).payload;

  const userinfo = async (accessToken: string) => {
    const response = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${accessToken}` } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Record<string, unknown>;
  };

  /** Signs `person` in with a password from /authorize (consent allowed) and exchanges the code. */
  async function tokensFor(person: TestUser, params: Record<string, string>, b = browser()) {
    const { verifier, challenge } = pkce();
    const first = await authorize(b, realm, codeRequest(client.clientId, { code_challenge: challenge, ...params }));
    const { final } = await completeFlow(b, first, person);
    const exchanged = await exchange(expectCode(final, { iss: issuer }), verifier);
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    return exchanged.json() as { access_token: string; id_token: string; refresh_token: string };
  }

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    realm = await freshRealm(t, { ...NO_RATE_LIMITS, allow_consent_bypass: true });
    issuer = `${t.baseUrl}${realmPath(realm)}`;
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/strong`, STRONG_JOURNEY)).statusCode).toBeLessThan(300);
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { acr_journeys: { gold: 'strong' } } })).statusCode).toBe(200);
    // `org` maps `department` for access tokens and introspection only, `login` for the ID token only.
    const org = await t.admin.request('PUT', `/realms/${realm}/scopes/org`, {
      description: 'Organisation',
      claims: [
        { name: 'department', source: 'attribute:department', tokens: ['access_token', 'introspection'] },
        { name: 'login', source: 'username', tokens: ['id_token'] },
      ],
    });
    expect(org.statusCode, org.body).toBeLessThan(300);
    carol = await createUser(t.admin, realm, 'carol', { claims: { email: 'carol@example.com', department: 'Finance', name: 'Carol' } });
    dave = await createUser(t.admin, realm, 'dave', { claims: { department: 'Sales' } });
    carolOtp = ((await t.admin.request('POST', `/realms/${realm}/users/carol/totp`)).json() as { secret: string }).secret;
    key = await keyPair('ES256');
    const created = await t.admin.createClient(realm, {
      client_type: 'confidential',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile org email',
      skip_consent: true,
      jwks: { keys: [key.publicJwk] },
    });
    client = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  it('is announced in discovery', async () => {
    const discovery = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` });
    expect(discovery.json()).toMatchObject({ claims_parameter_supported: true });
  });

  it('releases a claim where it was asked, within the granted scopes, at the exchange, UserInfo and each refresh', async () => {
    const asked = {
      id_token: { department: { essential: true }, email: null },
      userinfo: { department: null, login: null, groups: null },
    };
    const tokens = await tokensFor(carol, { scope: 'openid org', claims: claimsParam(asked) });
    const idToken = await idTokenClaims(tokens.id_token);
    // `department` is mapped for access tokens only, but asked in the ID token; `email` asked, but its scope was not granted.
    expect(idToken).toMatchObject({ department: 'Finance', login: 'carol', sub: carol.sub });
    expect(idToken).not.toHaveProperty('email');
    // At UserInfo: `department` and `login` as asked (neither is mapped for UserInfo); `groups` no granted scope maps.
    const info = await userinfo(tokens.access_token);
    expect(info).toEqual({ sub: carol.sub, department: 'Finance', login: 'carol' });

    // The refresh keeps what the grant asked: its ID token and access token release the same.
    const refreshed = await refreshGrant(t.app, realm, client, tokens.refresh_token);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(await idTokenClaims(refreshed.json().id_token)).toMatchObject({ department: 'Finance' });
    expect(await userinfo(refreshed.json().access_token)).toMatchObject({ department: 'Finance', login: 'carol' });

    // Without the parameter, each claim goes only where its scope maps it.
    const plain = await tokensFor(carol, { scope: 'openid org' });
    expect(await idTokenClaims(plain.id_token)).not.toHaveProperty('department');
    expect(await userinfo(plain.access_token)).toEqual({ sub: carol.sub });
  });

  it('in a realm of JWT access tokens, the token carries the names asked for UserInfo (signed), and UserInfo releases them', async () => {
    const jwtRealm = await freshRealm(t, { ...NO_RATE_LIMITS, allow_consent_bypass: true, stateless_tokens: true });
    const scope = await t.admin.request('PUT', `/realms/${jwtRealm}/scopes/org`, {
      description: 'Organisation',
      claims: [{ name: 'department', source: 'attribute:department', tokens: ['access_token'] }],
    });
    expect(scope.statusCode, scope.body).toBeLessThan(300);
    const frank = await createUser(t.admin, jwtRealm, 'frank', { claims: { department: 'Legal' } });
    const created = await t.admin.createClient(jwtRealm, {
      client_type: 'confidential',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid org',
      skip_consent: true,
    });
    const accessTokenOf = async (params: Record<string, string>) => {
      const { verifier, challenge } = pkce();
      const b = browser();
      const first = await authorize(b, jwtRealm, codeRequest(created.client_id, { code_challenge: challenge, scope: 'openid org', ...params }));
      const { final } = await completeFlow(b, first, frank);
      const exchanged = await postForm(
        t.app,
        `${realmPath(jwtRealm)}/access_token`,
        { grant_type: 'authorization_code', code: expectCode(final, { iss: `${t.baseUrl}${realmPath(jwtRealm)}` }), redirect_uri: REDIRECT_URI, code_verifier: verifier },
        { authorization: basic(created.client_id, created.client_secret as string) },
      );
      expect(exchanged.statusCode, exchanged.body).toBe(200);
      return exchanged.json().access_token as string;
    };
    const info = async (token: string) =>
      (await t.app.inject({ method: 'GET', url: `${realmPath(jwtRealm)}/userinfo`, headers: { authorization: `Bearer ${token}` } })).json();

    const asked = await accessTokenOf({ claims: claimsParam({ userinfo: { department: null } }) });
    expect(decodeJwt(asked).userinfo_claims).toEqual(['department']);
    expect(await info(asked)).toEqual({ sub: frank.sub, department: 'Legal' });
    const plain = await accessTokenOf({});
    expect(decodeJwt(plain)).not.toHaveProperty('userinfo_claims');
    expect(await info(plain)).toEqual({ sub: frank.sub });
    // The name cannot be mapped by a scope: it is the server's own.
    const mapped = await t.admin.request('PUT', `/realms/${jwtRealm}/scopes/sneaky`, {
      description: 'x',
      claims: [{ name: 'userinfo_claims', source: 'username', tokens: ['access_token'] }],
    });
    expect(mapped.statusCode).toBe(400);
  });

  it('works end to end with openid-client, which sends the parameter as it is given', async () => {
    const config = await oidc.discovery(new URL(issuer), client.clientId, client.secret, oidc.ClientSecretBasic(client.secret), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().claims_parameter_supported).toBe(true);
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid org',
      state: 'state-123',
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      claims: claimsParam({ id_token: { department: { essential: true } }, userinfo: { login: null } }),
    });
    const b = browser();
    const { final } = await completeFlow(b, await b.get(url.href), carol);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(location(final)), {
      pkceCodeVerifier: verifier,
      expectedState: 'state-123',
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ sub: carol.sub, department: 'Finance' });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, carol.sub);
    expect(info).toEqual({ sub: carol.sub, login: 'carol' });
  });

  it('never lets an asked claim replace one the server sets', async () => {
    const tokens = await tokensFor(carol, { scope: 'openid org', claims: claimsParam({ id_token: { iss: null, aud: { value: 'x' }, nonce: null }, userinfo: { sub: null } }) });
    const idToken = await idTokenClaims(tokens.id_token);
    expect(idToken.iss).toBe(issuer);
    expect(idToken.aud).toBe(client.clientId);
    expect(await userinfo(tokens.access_token)).toEqual({ sub: carol.sub });

    // Names that are properties of every object are only names: nothing is released for them.
    const inherited = '{"id_token":{"constructor":null,"__proto__":null,"toString":null},"userinfo":{"hasOwnProperty":null,"__proto__":{"essential":true}}}';
    const odd = await tokensFor(carol, { scope: 'openid org', claims: inherited });
    const oddIdToken = await idTokenClaims(odd.id_token);
    expect(Object.keys(oddIdToken).filter((name) => ['constructor', 'toString', '__proto__'].includes(name))).toEqual([]);
    expect(await userinfo(odd.access_token)).toEqual({ sub: carol.sub });
  });

  describe('refuses a malformed parameter with invalid_request, and nothing is begun', () => {
    const cases: Array<[string, string]> = [
      ['not JSON', '{"id_token":'],
      ['an array', '[]'],
      ['a destination that is no object', '{"userinfo":["email"]}'],
      ['a claim asked with a string', '{"id_token":{"email":"yes"}}'],
      ['essential not a boolean', '{"id_token":{"acr":{"essential":"true","values":["gold"]}}}'],
      ['values not an array', '{"id_token":{"acr":{"values":"gold"}}}'],
      ['both value and values', '{"id_token":{"acr":{"value":"gold","values":["gold"]}}}'],
    ];
    for (const [label, value] of cases) {
      it(`refuses ${label} at /authorize and /par`, async () => {
        const b = browser();
        const response = await authorize(b, realm, codeRequest(client.clientId, { claims: value }));
        expectRedirectError(response, { error: 'invalid_request', iss: issuer });
        expect(new URL(location(response)).searchParams.get('error_description')).toMatch(/claims/);
        const pushed = await postForm(t.app, `${realmPath(realm)}/par`, { ...(codeRequest(client.clientId, { claims: value }) as Record<string, string>) }, {
          authorization: basic(client.clientId, client.secret),
        });
        expect(pushed.statusCode, pushed.body).toBe(400);
        expect(pushed.json()).toMatchObject({ error: 'invalid_request' });
      });
    }
  });

  /** /authorize asking for `gold` as essential; answers the response after the password. */
  async function essentialGold(b: TestBrowser, params: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const claims = claimsParam({ id_token: { acr: { essential: true, values: ['silver', 'gold'] } } });
    const first = await authorize(b, realm, codeRequest(client.clientId, { code_challenge: challenge, claims, ...params }));
    return { verifier, first };
  }

  it('lets an essential acr pick the journey it maps to, and names it in the ID token', async () => {
    const b = browser();
    const { verifier, first } = await essentialGold(b);
    const afterPassword = await signInFrom(b, first, carol);
    expect(redirectPath(afterPassword)).toMatch(/\/login$/);
    const url = location(afterPassword);
    const page = await b.get(url);
    expect(page.body).toContain('name="otp"');
    const code = expectCode(await b.submit(url, page, { otp: otpOf(carolOtp) }), { iss: issuer });
    const tokens = (await exchange(code, verifier)).json();
    expect(await idTokenClaims(tokens.id_token)).toMatchObject({ acr: 'gold', amr: expect.arrayContaining(['pwd', 'otp']) });
  });

  it('steps a session of a lower acr up to the essential one: the missing node only, never prompt=none', async () => {
    // A person of her own, so that her one-time code is not one carol's earlier test spent.
    const erin = await createUser(t.admin, realm, 'erin');
    const erinOtp = ((await t.admin.request('POST', `/realms/${realm}/users/erin/totp`)).json() as { secret: string }).secret;
    const b = browser();
    // A session of the default journey (password only).
    await tokensFor(erin, {}, b);
    const none = await essentialGold(b, { prompt: 'none' });
    expectRedirectError(none.first, { error: 'interaction_required', iss: issuer });

    const { verifier, first } = await essentialGold(b);
    // Straight to the one-time code: the password the session passed is not asked again.
    expect(redirectPath(first)).toMatch(/\/login$/);
    const url = location(first);
    const page = await b.get(url);
    expect(page.body).toContain('name="otp"');
    expect(page.body).not.toContain('name="password"');
    const code = expectCode(await b.submit(url, page, { otp: otpOf(erinOtp) }), { iss: issuer });
    expect(await idTokenClaims((await exchange(code, verifier)).json().id_token)).toMatchObject({ acr: 'gold' });
  });

  it('fails a request whose essential acr no journey gives (OIDC Core §5.5.1.1)', async () => {
    const response = await authorize(browser(), realm, codeRequest(client.clientId, { claims: claimsParam({ id_token: { acr: { essential: true, value: 'platinum' } } }) }));
    expectRedirectError(response, { error: 'access_denied', iss: issuer });
    // Asked voluntarily, an unknown acr is no error: the default journey runs.
    const voluntary = await authorize(browser(), realm, codeRequest(client.clientId, { claims: claimsParam({ id_token: { acr: { values: ['platinum'] } } }) }));
    expect(redirectPath(voluntary)).toMatch(/\/login$/);
  });

  it('answers a request for a given sub only for that person (OIDC Core §3.1.2.2)', async () => {
    const b = browser();
    await tokensFor(carol, {}, b);
    const forDave = claimsParam({ id_token: { sub: { value: dave.sub } } });
    // Carol's session does not stand for a request about dave: prompt=none cannot answer it…
    expectRedirectError(await authorize(b, realm, codeRequest(client.clientId, { prompt: 'none', claims: forDave })), { error: 'login_required', iss: issuer });
    // …and when carol signs in again, the request is refused rather than answered for her.
    const again = await authorize(b, realm, codeRequest(client.clientId, { claims: forDave }));
    expectRedirectError(await signInFrom(b, again, carol), { error: 'access_denied', iss: issuer });
    // Dave, signing in, is answered.
    const tokens = await tokensFor(dave, { claims: forDave });
    expect((await idTokenClaims(tokens.id_token)).sub).toBe(dave.sub);
    // Carol's own sub, asked, is answered from her session at once.
    const { verifier, challenge } = pkce();
    const own = await authorize(b, realm, codeRequest(client.clientId, { code_challenge: challenge, claims: claimsParam({ id_token: { sub: { value: carol.sub } } }) }));
    expect((await exchange(expectCode(own, { iss: issuer }), verifier)).statusCode).toBe(200);
  });

  it('is read from a pushed request and from a signed request object (an object there, as OIDC Core §6.1 has it)', async () => {
    const asked = { id_token: { department: null } };
    // PAR
    const { verifier, challenge } = pkce();
    const pushed = await postForm(
      t.app,
      `${realmPath(realm)}/par`,
      { ...(codeRequest(client.clientId, { code_challenge: challenge, scope: 'openid org', claims: claimsParam(asked) }) as Record<string, string>) },
      { authorization: basic(client.clientId, client.secret) },
    );
    expect(pushed.statusCode, pushed.body).toBe(201);
    const b = browser();
    const viaPar = await completeFlow(b, await authorize(b, realm, { client_id: client.clientId, request_uri: pushed.json().request_uri }), carol);
    const parTokens = (await exchange(expectCode(viaPar.final, { iss: issuer }), verifier)).json();
    expect(await idTokenClaims(parTokens.id_token)).toMatchObject({ department: 'Finance' });

    // A request object
    const object = pkce();
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({
      iss: client.clientId,
      aud: issuer,
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid org',
      state: 'state-123',
      code_challenge: object.challenge,
      code_challenge_method: 'S256',
      claims: asked,
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' })
      .sign(key.privateKey);
    const b2 = browser();
    const viaObject = await completeFlow(b2, await authorize(b2, realm, { client_id: client.clientId, request: jwt }), carol);
    const objectTokens = (await exchange(expectCode(viaObject.final, { iss: issuer }), object.verifier)).json();
    expect(await idTokenClaims(objectTokens.id_token)).toMatchObject({ department: 'Finance' });

    // A request object whose claims is neither an object nor a string is refused.
    const malformed = await new SignJWT({ iss: client.clientId, aud: issuer, client_id: client.clientId, response_type: 'code', claims: ['department'], iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' })
      .sign(key.privateKey);
    const refused = await authorize(browser(), realm, { client_id: client.clientId, request: malformed, redirect_uri: REDIRECT_URI, state: 'state-123', response_type: 'code' });
    expectRedirectError(refused, { error: 'invalid_request_object', iss: issuer });
  });
});
