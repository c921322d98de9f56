import { X509Certificate, createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type RequestOptions, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationServer, startAuthorizationServer } from '../resource-server/support.js';
import { BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { type Pair, selfSigned } from '../support/certificates.js';
import { DpopKey } from '../support/dpop.js';
import { REDIRECT_URI, TestBrowser, pkce } from '../support/flow.js';
import { authorize, codeRequest, completeFlow, expectCode, expectRedirectError, freshRealm, issuerOf } from '../support/flow-helpers.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { postForm, realmPath } from '../support/oauth.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const PERSON = { username: 'alice', password: 'correct horse battery' };

/**
 * CONTRACT.md §11: realm setting `profile: "fapi2"` applies the FAPI 2.0 Security Profile
 * (src/profiles/fapi2.ts, docs/fapi2.md). Each rule is broken alone, by a request otherwise
 * compliant, and refused with the rule named; a compliant flow goes through to a DPoP-bound token.
 */
describe('FAPI 2.0 Security Profile (realm setting profile "fapi2")', () => {
  let t: TestApp;
  let realm: string;
  let key: KeyPair;
  let clientId: string;

  const issuer = () => issuerOf(realm);
  /** A private_key_jwt client assertion (RFC 7523) of `client` for the realm `r`, `aud` its issuer unless told. */
  const assertionOf = (r: string, client: string, signer: KeyPair, aud = issuerOf(r)) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: client, sub: client, aud, iat: now, exp: now + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: signer.alg, kid: signer.kid })
      .sign(signer.privateKey);
  };
  const authenticated = async (r: string, client: string, signer: KeyPair, form: Record<string, string>) => ({
    client_id: client,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await assertionOf(r, client, signer),
    ...form,
  });
  /** A compliant pushed request of the client, which `overrides` change (undefined leaves a parameter out). */
  const pushedRequest = (overrides: Record<string, string | undefined> = {}) => {
    const { verifier, challenge } = pkce();
    const form: Record<string, string | undefined> = {
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      state: 'state-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...overrides,
    };
    for (const [name, value] of Object.entries(form)) if (value === undefined) delete form[name];
    return { form: form as Record<string, string>, verifier };
  };
  const push = async (form: Record<string, string>, headers: Record<string, string> = {}, r = realm, client = clientId, signer = key) =>
    postForm(t.app, `${realmPath(r)}/par`, await authenticated(r, client, signer, form), headers);
  const token = async (form: Record<string, string>, headers: Record<string, string> = {}, r = realm, client = clientId, signer = key) =>
    postForm(t.app, `${realmPath(r)}/access_token`, await authenticated(r, client, signer, form), headers);
  const tokenUrl = (r = realm) => `${BASE_URL}${realmPath(r)}/access_token`;

  /** The rule's refusal: the RFC's JSON error, its description naming FAPI 2.0 and the rule. */
  const expectRefusal = (response: { statusCode: number; json(): unknown; body: string }, status: number, error: string, rule: RegExp) => {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json() as { error: string; error_description: string };
    expect(body.error).toBe(error);
    expect(body.error_description).toMatch(/^FAPI 2\.0 /);
    expect(body.error_description).toMatch(rule);
  };

  /** PAR, the person's sign-in and consent, and the code back at the redirect URI. */
  const codeThroughPar = async (pushHeaders: Record<string, string> = {}) => {
    const pushed = pushedRequest();
    const response = await push(pushed.form, pushHeaders);
    expect(response.statusCode, response.body).toBe(201);
    const browser = new TestBrowser(t.app, t.baseUrl);
    const first = await authorize(browser, realm, { client_id: clientId, request_uri: response.json().request_uri });
    const { final } = await completeFlow(browser, first, PERSON);
    return { code: expectCode(final, { iss: issuer() }), verifier: pushed.verifier };
  };
  const exchange = (code: { code: string; verifier: string }, headers: Record<string, string> = {}) =>
    token({ grant_type: 'authorization_code', code: code.code, redirect_uri: REDIRECT_URI, code_verifier: code.verifier }, headers);

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t, { ...NO_RATE_LIMITS, profile: 'fapi2', code_lifetime: 300, par_lifetime: 900 });
    const created = await t.admin.request('POST', `/realms/${realm}/users`, { ...PERSON, claims: {} });
    expect(created.statusCode, created.body).toBe(201);
    key = await keyPair('ES256');
    const client = await t.admin.createClient(realm, {
      client_type: 'confidential',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile',
    });
    clientId = client.client_id;
  });
  afterAll(() => t?.close());

  describe('the setting', () => {
    it('is "default" unless set, and accepts only "default" or "fapi2"', async () => {
      const plain = await freshRealm(t);
      expect((await t.admin.request('GET', `/realms/${plain}`)).json().settings.profile).toBe('default');
      const refused = await t.admin.request('PATCH', `/realms/${plain}`, { settings: { profile: 'fapi1' } });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/profile/) });
      expect((await t.admin.request('GET', `/realms/${plain}`)).json().settings.profile).toBe('default');
    });
  });

  describe('discovery', () => {
    it("advertises what the profile leaves: PAR required, S256, private_key_jwt and mutual TLS, no password grant, DPoP, iss", async () => {
      const metadata = (await t.app.inject({ url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
      expect(metadata.require_pushed_authorization_requests).toBe(true);
      expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
      expect(metadata.response_types_supported).toEqual(['code']);
      expect([...metadata.token_endpoint_auth_methods_supported].sort()).toEqual(['private_key_jwt', 'self_signed_tls_client_auth', 'tls_client_auth']);
      expect([...metadata.pushed_authorization_request_endpoint_auth_methods_supported].sort()).toEqual(['private_key_jwt', 'self_signed_tls_client_auth', 'tls_client_auth']);
      expect(metadata.grant_types_supported).not.toContain('password');
      expect(metadata.grant_types_supported).toContain('authorization_code');
      expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
      expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
      expect(metadata.tls_client_certificate_bound_access_tokens).toBe(true);
    });

    it("leaves another realm's metadata as it was", async () => {
      const plain = await freshRealm(t);
      const metadata = (await t.app.inject({ url: `${realmPath(plain)}/.well-known/openid-configuration` })).json();
      expect(metadata.require_pushed_authorization_requests).toBe(false);
      expect(metadata.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
      expect(metadata.grant_types_supported).toContain('password');
    });
  });

  describe('clients of the realm (admin API and registration)', () => {
    const create = (record: Record<string, unknown>) =>
      t.admin.request('POST', `/realms/${realm}/clients`, { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], ...record });

    it('refuses a public client: confidential clients only', async () => {
      const response = await create({ client_type: 'public' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', error_description: 'client_type: FAPI 2.0 allows confidential clients only' });
    });

    it('refuses client_secret_basic and client_secret_post: private_key_jwt or mutual TLS only', async () => {
      for (const method of ['client_secret_basic', 'client_secret_post']) {
        const response = await create({ client_type: 'confidential', token_endpoint_auth_method: method });
        expect(response.statusCode).toBe(400);
        expect(response.json().error_description).toMatch(/^token_endpoint_auth_method: FAPI 2\.0 requires client authentication with private_key_jwt or mutual TLS/);
      }
    });

    it('refuses the password grant', async () => {
      const response = await create({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] }, grant_types: ['authorization_code', 'password'] });
      expect(response.statusCode).toBe(400);
      expect(response.json().error_description).toBe('grant_types: FAPI 2.0 forbids the resource owner password credentials grant');
    });

    it('refuses a change of a client to a secret, leaving the client as it was', async () => {
      const response = await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { token_endpoint_auth_method: 'client_secret_basic' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error_description).toMatch(/FAPI 2\.0 requires client authentication/);
      expect((await t.admin.request('GET', `/realms/${realm}/clients/${clientId}`)).json().token_endpoint_auth_method).toBe('private_key_jwt');
    });

    it('refuses a realm document whose client the profile does not accept, importing nothing', async () => {
      const response = await t.admin.request('PUT', `/realms/${realm}/import`, {
        clients: [{ client_id: 'imported-spa', client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'] }],
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', error_description: 'clients.0.client_type: FAPI 2.0 allows confidential clients only' });
      expect((await t.admin.request('GET', `/realms/${realm}/clients/imported-spa`)).statusCode).toBe(404);
    });

    it('refuses a client registering itself with a secret (invalid_client_metadata)', async () => {
      const open = await freshRealm(t, { ...NO_RATE_LIMITS, profile: 'fapi2', open_registration: true });
      const response = await t.app.inject({
        method: 'POST',
        url: `${realmPath(open)}/connect/register`,
        payload: { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/FAPI 2\.0 requires client authentication with private_key_jwt or mutual TLS/) });
      expect(await t.store.clients.list(open)).toEqual([]);
    });
  });

  describe('each rule, broken alone', () => {
    it('/authorize without a pushed request: "FAPI 2.0 requires PAR"', async () => {
      const response = await authorize(new TestBrowser(t.app, t.baseUrl), realm, codeRequest(clientId));
      const params = expectRedirectError(response, { error: 'invalid_request', iss: issuer() });
      expect(params.get('error_description')).toMatch(/^FAPI 2\.0 requires PAR \(pushed authorization requests\)/);
    });

    it('a pushed request without code_challenge: "FAPI 2.0 requires PKCE with S256"', async () => {
      expectRefusal(await push(pushedRequest({ code_challenge: undefined, code_challenge_method: undefined }).form), 400, 'invalid_request', /requires PKCE with S256 \(code_challenge\)/);
    });

    it('a pushed request with code_challenge_method plain, or none: "FAPI 2.0 requires PKCE with code_challenge_method=S256"', async () => {
      for (const method of ['plain', undefined]) {
        expectRefusal(await push(pushedRequest({ code_challenge_method: method }).form), 400, 'invalid_request', /requires PKCE with code_challenge_method=S256/);
      }
    });

    it('a pushed request without redirect_uri (which the client, of one redirect URI, could otherwise omit)', async () => {
      expectRefusal(await push(pushedRequest({ redirect_uri: undefined }).form), 400, 'invalid_request', /requires redirect_uri in the pushed authorization request/);
    });

    it('a pushed request of another response type: "FAPI 2.0 allows response_type=code only"', async () => {
      expectRefusal(await push(pushedRequest({ response_type: 'code id_token' }).form), 400, 'unsupported_response_type', /allows response_type=code only/);
    });

    it('a token request without DPoP proof of a client not bound to its certificate: "sender-constrained access tokens"; the code survives', async () => {
      const code = await codeThroughPar();
      expectRefusal(await exchange(code), 400, 'invalid_request', /requires sender-constrained access tokens/);
      const dpop = await DpopKey.generate();
      const response = await exchange(code, { dpop: await dpop.proof('POST', tokenUrl()) });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().token_type).toBe('DPoP');
    });

    it('a client assertion whose aud is the token endpoint rather than the issuer is refused', async () => {
      const form = { ...pushedRequest().form, client_id: clientId, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertionOf(realm, clientId, key, tokenUrl()) };
      const response = await postForm(t.app, `${realmPath(realm)}/par`, form);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('invalid_client');
    });

    describe('a realm switched to the profile, with clients made before', () => {
      let switched: string;
      let secretClient: { clientId: string; secret: string };
      let passwordClient: string;
      let publicId: string;

      beforeAll(async () => {
        switched = await freshRealm(t, NO_RATE_LIMITS);
        const withSecret = await t.admin.createClient(switched, { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid' });
        secretClient = { clientId: withSecret.client_id, secret: withSecret.client_secret as string };
        const withPassword = await t.admin.createClient(switched, {
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [key.publicJwk] },
          grant_types: ['password'],
          scope: 'openid',
        });
        passwordClient = withPassword.client_id;
        publicId = (await t.admin.createClient(switched, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid' })).client_id;
        await t.admin.request('POST', `/realms/${switched}/users`, { ...PERSON, claims: {} });
        const patched = await t.admin.request('PATCH', `/realms/${switched}`, { settings: { profile: 'fapi2' } });
        expect(patched.statusCode, patched.body).toBe(200);
      });

      it('refuses a client that authenticates with a secret, at PAR and the token endpoint (invalid_client)', async () => {
        const basic = { authorization: `Basic ${Buffer.from(`${secretClient.clientId}:${secretClient.secret}`).toString('base64')}` };
        expectRefusal(await postForm(t.app, `${realmPath(switched)}/par`, pushedRequest().form, basic), 401, 'invalid_client', /requires client authentication with private_key_jwt or mutual TLS/);
        const dpop = await DpopKey.generate();
        const response = await postForm(t.app, `${realmPath(switched)}/access_token`, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI },
          { ...basic, dpop: await dpop.proof('POST', tokenUrl(switched)) });
        expectRefusal(response, 401, 'invalid_client', /requires client authentication with private_key_jwt or mutual TLS/);
      });

      it('refuses a public client pushing a request without client authentication (invalid_client)', async () => {
        const response = await postForm(t.app, `${realmPath(switched)}/par`, { ...pushedRequest().form, client_id: publicId });
        expectRefusal(response, 401, 'invalid_client', /allows confidential clients only/);
      });

      it('refuses the password grant, even sender-constrained (unsupported_grant_type)', async () => {
        const dpop = await DpopKey.generate();
        const response = await token({ grant_type: 'password', ...PERSON, scope: 'openid' }, { dpop: await dpop.proof('POST', tokenUrl(switched)) }, switched, passwordClient);
        expectRefusal(response, 400, 'unsupported_grant_type', /forbids the resource owner password credentials grant/);
      });
    });
  });

  describe('refresh tokens', () => {
    it('are not rotated although rotate_refresh_tokens is true: the same one works again, and no new one is issued', async () => {
      const dpop = await DpopKey.generate();
      const issued = await exchange(await codeThroughPar(), { dpop: await dpop.proof('POST', tokenUrl()) });
      expect(issued.statusCode, issued.body).toBe(200);
      const refreshToken = issued.json().refresh_token as string;
      expect(refreshToken).toEqual(expect.any(String));
      for (let use = 0; use < 2; use++) {
        const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken }, { dpop: await dpop.proof('POST', tokenUrl()) });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
        expect(refreshed.json().token_type).toBe('DPoP');
        expect(refreshed.json().refresh_token ?? refreshToken).toBe(refreshToken);
      }
      // A confidential client's refresh token is not bound to the key (RFC 9449 §5): the profile's rule alone refuses a refresh without a proof.
      expectRefusal(await token({ grant_type: 'refresh_token', refresh_token: refreshToken }), 400, 'invalid_request', /requires sender-constrained access tokens/);
    });
  });

  describe('lifetimes', () => {
    it('keeps a pushed request under 600 seconds although par_lifetime is 900', async () => {
      const response = await push(pushedRequest().form);
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().expires_in).toBe(599);
    });

    it('issues codes of at most 60 seconds although code_lifetime is 300', async () => {
      const before = Date.now();
      await codeThroughPar();
      const rows = await t.store.db.query<{ expires_at: Date }>('SELECT max(expires_at) AS expires_at FROM authorization_codes WHERE realm = $1', [realm]);
      const expiresAt = new Date(rows.rows[0]!.expires_at).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(before + 59_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    });
  });

  describe('a compliant flow', () => {
    it('PAR with private_key_jwt, PKCE S256 and a DPoP proof → code with iss → a token bound to the DPoP key', async () => {
      const dpop = await DpopKey.generate();
      const code = await codeThroughPar({ dpop: await dpop.proof('POST', `${BASE_URL}${realmPath(realm)}/par`) });
      const response = await exchange(code, { dpop: await dpop.proof('POST', tokenUrl()) });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body.token_type).toBe('DPoP');
      const described = await postForm(t.app, `${realmPath(realm)}/introspect`, await authenticated(realm, clientId, key, { token: body.access_token }));
      expect(described.statusCode, described.body).toBe(200);
      expect(described.json()).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: dpop.thumbprint } });
    });
  });
});

/**
 * The profile's other way of constraining senders (§5.3.2.1 items 5 and 6): a client that
 * authenticates by mutual TLS (self_signed_tls_client_auth) and whose tokens are bound to its
 * certificate (RFC 8705 §3), against a listening server over HTTPS.
 */
describe('FAPI 2.0 with mutual TLS: authentication and certificate-bound tokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-fapi2-mtls-'));
  let server: Pair;
  let holder: Pair;
  let as: AuthorizationServer;
  let realm: string;
  let clientId: string;

  const https = (path: string, form: Record<string, string>, certificate?: Pair): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const options: RequestOptions = {
        host: '127.0.0.1',
        port: as.tlsPort!,
        ca: server.cert,
        agent: false,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        ...(certificate ? { cert: certificate.cert, key: certificate.key } : {}),
      };
      const request = httpsRequest(options, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      request.on('error', reject);
      request.end(new URLSearchParams(form).toString());
    });

  beforeAll(async () => {
    server = selfSigned(dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1', 'basicConstraints=critical,CA:FALSE']);
    holder = selfSigned(dir, 'holder', '/CN=fapi-client', ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth']);
    as = await startAuthorizationServer({ tls: server });
    realm = `fapi-${randomUUID().slice(0, 8)}`;
    await as.admin.createRealm(realm, { profile: 'fapi2' });
    const person = await as.admin.request('POST', `/realms/${realm}/users`, { ...PERSON, claims: {} });
    expect(person.statusCode, person.body).toBe(201);
    const client = await as.admin.createClient(realm, {
      token_endpoint_auth_method: 'self_signed_tls_client_auth',
      jwks: { keys: [await exportJWK(new X509Certificate(holder.cert).publicKey)] },
      tls_client_certificate_bound_access_tokens: true,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    clientId = client.client_id;
  });
  afterAll(async () => {
    await as?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('PAR and the token request over mutual TLS, PKCE S256 → a token bound to the certificate (cnf.x5t#S256), no DPoP needed', async () => {
    const { verifier, challenge } = pkce();
    const pushed = await https(`/oauth2/${realm}/par`, {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      state: 'state-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }, holder);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);

    const browser = new TestBrowser(as.app, as.baseUrl);
    const first = await authorize(browser, realm, { client_id: clientId, request_uri: pushed.body.request_uri as string });
    const { final } = await completeFlow(browser, first, PERSON);
    const code = expectCode(final, { iss: `${as.baseUrl}/oauth2/${realm}` });

    const exchange = { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    // Without the certificate, the client cannot authenticate: nothing is issued and the code survives.
    expect((await https(`/oauth2/${realm}/access_token`, exchange)).status).toBe(401);
    const issued = await https(`/oauth2/${realm}/access_token`, exchange, holder);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const thumbprint = createHash('sha256').update(new X509Certificate(holder.cert).raw).digest('base64url');
    const described = await https(`/oauth2/${realm}/introspect`, { client_id: clientId, token: issued.body.access_token as string }, holder);
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({ active: true, cnf: { 'x5t#S256': thumbprint } });
  });

  it('refuses a client authenticating by mutual TLS that is not registered for certificate-bound tokens and sends no DPoP proof', async () => {
    const unbound = await as.admin.createClient(realm, {
      token_endpoint_auth_method: 'self_signed_tls_client_auth',
      jwks: { keys: [await exportJWK(new X509Certificate(holder.cert).publicKey)] },
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid',
    });
    const response = await https(`/oauth2/${realm}/access_token`, { grant_type: 'authorization_code', client_id: unbound.client_id, code: 'unused', redirect_uri: REDIRECT_URI }, holder);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/^FAPI 2\.0 requires sender-constrained access tokens/) });
  });
});
