import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { DpopKey } from '../support/dpop.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, obtainCode, pkce } from '../support/flow.js';
import { authorize, expectRedirectError, freshRealm, issuerOf } from '../support/flow-helpers.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { createUser, passwordGrant } from '../support/users.js';

/**
 * RFC 9449 §5 and §10: what a proof binds at the token endpoint, grant by grant: the access
 * token, a public client's refresh token (never a confidential client's), and the code of a
 * request with `dpop_jkt` (or pushed with a proof).
 */
describe('DPoP binding of codes, access and refresh tokens (RFC 9449 §5, §10)', () => {
  let t: TestApp;
  let realm: string;
  let auditor: ServiceClient;
  let spa: Awaited<ReturnType<typeof codeFlowSetup>>;

  const tokenUrl = () => `${BASE_URL}${realmPath(realm)}/access_token`;
  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, form, headers);
  const describeToken = async (value: string) => (await introspect(t.app, realm, auditor, value)).json();

  /** A code of the public client's flow, with these extra authorization parameters. */
  const codeOf = (params: Record<string, string> = {}) =>
    obtainCode(new TestBrowser(t.app, t.baseUrl), realm, { clientId: spa.clientId, username: spa.username, password: spa.password, params });
  const exchange = (code: { code: string; verifier: string }, dpop?: string) =>
    token(
      { grant_type: 'authorization_code', client_id: spa.clientId, code: code.code, redirect_uri: REDIRECT_URI, code_verifier: code.verifier },
      dpop === undefined ? {} : { dpop },
    );
  const refresh = (refreshToken: string, dpop?: string) =>
    token({ grant_type: 'refresh_token', client_id: spa.clientId, refresh_token: refreshToken }, dpop === undefined ? {} : { dpop });

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t, NO_RATE_LIMITS);
    spa = await codeFlowSetup(t.admin, realm, { client: { skip_consent: false } });
    const created = await t.admin.createClient(realm, { grant_types: ['client_credentials'], introspect_any_token: true });
    auditor = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  describe('a public client (code flow)', () => {
    it('gets a DPoP access token and a refresh token bound to the same key', async () => {
      const key = await DpopKey.generate();
      const response = await exchange(await codeOf(), await key.proof('POST', tokenUrl()));
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body.token_type).toBe('DPoP');
      expect(await describeToken(body.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
      expect(await describeToken(body.refresh_token)).toMatchObject({ active: true, token_type: 'refresh_token', cnf: { jkt: key.thumbprint } });
    });

    it('refreshes a bound refresh token only with a proof of its key; a refusal leaves the token usable', async () => {
      const key = await DpopKey.generate();
      const first = (await exchange(await codeOf(), await key.proof('POST', tokenUrl()))).json();

      const without = await refresh(first.refresh_token);
      expect(without.statusCode).toBe(400);
      expect(without.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/a DPoP proof is required/) });

      const other = await DpopKey.generate();
      const otherKey = await refresh(first.refresh_token, await other.proof('POST', tokenUrl()));
      expect(otherKey.statusCode).toBe(400);
      expect(otherKey.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/another DPoP key/) });

      const refreshed = await refresh(first.refresh_token, await key.proof('POST', tokenUrl()));
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      expect(refreshed.json().token_type).toBe('DPoP');
      expect(await describeToken(refreshed.json().access_token)).toMatchObject({ cnf: { jkt: key.thumbprint } });
      expect(await describeToken(refreshed.json().refresh_token)).toMatchObject({ active: true, cnf: { jkt: key.thumbprint } });
    });

    it('binds nothing without a proof: Bearer, and a refresh token any refresh may use', async () => {
      const body = (await exchange(await codeOf())).json();
      expect(body.token_type).toBe('Bearer');
      expect((await describeToken(body.refresh_token)).cnf).toBeUndefined();
      expect((await refresh(body.refresh_token)).statusCode).toBe(200);
    });
  });

  describe('a confidential client', () => {
    let web: ServiceClient;
    beforeAll(async () => {
      const created = await t.admin.createClient(realm, { grant_types: ['password', 'refresh_token'], scope: 'openid profile' });
      web = { clientId: created.client_id, secret: created.client_secret as string };
      await createUser(t.admin, realm, 'bob', { password: 'bob-password-0123' });
    });

    it("gets a DPoP access token, but a refresh token bound by its authentication alone (RFC 9449 §5)", async () => {
      const key = await DpopKey.generate();
      const granted = await passwordGrant(t.app, realm, web, { username: 'bob', password: 'bob-password-0123' }, {});
      expect(granted.json().token_type).toBe('Bearer');
      const bound = await postForm(
        t.app,
        `${realmPath(realm)}/access_token`,
        { grant_type: 'password', username: 'bob', password: 'bob-password-0123' },
        { authorization: basic(web.clientId, web.secret), dpop: await key.proof('POST', tokenUrl()) },
      );
      expect(bound.statusCode, bound.body).toBe(200);
      const body = bound.json();
      expect(body.token_type).toBe('DPoP');
      expect(await describeToken(body.access_token)).toMatchObject({ token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
      expect((await describeToken(body.refresh_token)).cnf).toBeUndefined();

      // Without a proof the refresh is a bearer token's; with another key's, that key's.
      const plain = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: body.refresh_token }, {
        authorization: basic(web.clientId, web.secret),
      });
      expect(plain.statusCode, plain.body).toBe(200);
      expect(plain.json().token_type).toBe('Bearer');
      const other = await DpopKey.generate();
      const rebound = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: plain.json().refresh_token }, {
        authorization: basic(web.clientId, web.secret),
        dpop: await other.proof('POST', tokenUrl()),
      });
      expect(rebound.statusCode, rebound.body).toBe(200);
      expect(await describeToken(rebound.json().access_token)).toMatchObject({ token_type: 'DPoP', cnf: { jkt: other.thumbprint } });
    });
  });

  describe('dpop_jkt at /authorize binds the code (RFC 9449 §10)', () => {
    it('exchanges the code with a proof of that key', async () => {
      const key = await DpopKey.generate();
      const response = await exchange(await codeOf({ dpop_jkt: key.thumbprint }), await key.proof('POST', tokenUrl()));
      expect(response.statusCode, response.body).toBe(200);
      expect(await describeToken(response.json().access_token)).toMatchObject({ token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
    });

    it('refuses the exchange without a proof, and the code is spent', async () => {
      const key = await DpopKey.generate();
      const code = await codeOf({ dpop_jkt: key.thumbprint });
      const refused = await exchange(code);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/bound to a DPoP key \(dpop_jkt\): a DPoP proof is required/) });
      const again = await exchange(code, await key.proof('POST', tokenUrl()));
      expect(again.statusCode).toBe(400);
      expect(again.json().error).toBe('invalid_grant');
    });

    it('refuses the exchange with a proof of another key', async () => {
      const key = await DpopKey.generate();
      const other = await DpopKey.generate();
      const refused = await exchange(await codeOf({ dpop_jkt: key.thumbprint }), await other.proof('POST', tokenUrl()));
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/another key than the code is bound to/) });
    });

    it('refuses a dpop_jkt that is no thumbprint, at the redirect URI', async () => {
      const browser = new TestBrowser(t.app, t.baseUrl);
      const response = await authorize(browser, realm, {
        client_id: spa.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        state: 'state-123',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        dpop_jkt: 'not a thumbprint',
      });
      expectRedirectError(response, { error: 'invalid_request', iss: issuerOf(realm) });
    });
  });

  describe('PAR (RFC 9449 §10.1)', () => {
    let web: ServiceClient;
    const parUrl = () => `${BASE_URL}${realmPath(realm)}/par`;
    const push = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      postForm(t.app, `${realmPath(realm)}/par`, { client_id: web.clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', ...form }, {
        authorization: basic(web.clientId, web.secret),
        ...headers,
      });
    /** The code of the pushed request, by the browser flow, and its exchange by the web client. */
    const exchangePushed = async (requestUri: string, dpop?: string) => {
      const { code } = await obtainCode(new TestBrowser(t.app, t.baseUrl), realm, {
        clientId: web.clientId,
        username: spa.username,
        password: spa.password,
        params: { request_uri: requestUri },
      });
      return postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, {
        authorization: basic(web.clientId, web.secret),
        ...(dpop === undefined ? {} : { dpop }),
      });
    };

    beforeAll(async () => {
      const created = await t.admin.createClient(realm, {
        client_type: 'confidential',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        scope: 'openid profile',
      });
      web = { clientId: created.client_id, secret: created.client_secret as string };
    });

    it('binds the code to the key of a proof sent with the push', async () => {
      const key = await DpopKey.generate();
      const pushed = await push({}, { dpop: await key.proof('POST', parUrl()) });
      expect(pushed.statusCode, pushed.body).toBe(201);
      const requestUri = pushed.json().request_uri;
      const other = await DpopKey.generate();
      expect((await exchangePushed(requestUri, await other.proof('POST', tokenUrl()))).json().error).toBe('invalid_grant');

      const again = await push({}, { dpop: await key.proof('POST', parUrl()) });
      const response = await exchangePushed(again.json().request_uri, await key.proof('POST', tokenUrl()));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().token_type).toBe('DPoP');
    });

    it('binds the code to a pushed dpop_jkt', async () => {
      const key = await DpopKey.generate();
      const pushed = await push({ dpop_jkt: key.thumbprint });
      expect(pushed.statusCode, pushed.body).toBe(201);
      expect((await exchangePushed(pushed.json().request_uri)).json().error).toBe('invalid_grant');
    });

    it('refuses a push whose dpop_jkt is not the key of its proof, and a bad proof', async () => {
      const key = await DpopKey.generate();
      const other = await DpopKey.generate();
      const mismatch = await push({ dpop_jkt: other.thumbprint }, { dpop: await key.proof('POST', parUrl()) });
      expect(mismatch.statusCode).toBe(400);
      expect(mismatch.json()).toEqual({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(/dpop_jkt/) });
      const wrongUri = await push({}, { dpop: await key.proof('POST', tokenUrl()) });
      expect(wrongUri.statusCode).toBe(400);
      expect(wrongUri.json().error).toBe('invalid_dpop_proof');
    });
  });

  it('binds the token of any grant, token exchange among them', async () => {
    const exchanger = await t.admin.createClient(realm, {
      grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
      scope: '',
    });
    const client = { clientId: exchanger.client_id, secret: exchanger.client_secret as string };
    const subject = (await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic(client.clientId, client.secret) })).json();
    const key = await DpopKey.generate();
    const exchanged = await postForm(
      t.app,
      `${realmPath(realm)}/access_token`,
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subject.access_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      },
      { authorization: basic(client.clientId, client.secret), dpop: await key.proof('POST', tokenUrl()) },
    );
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    expect(exchanged.json().token_type).toBe('DPoP');
    expect(await describeToken(exchanged.json().access_token)).toMatchObject({ token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
  });

  describe('stateless (JWT) access tokens', () => {
    it('carry cnf.jkt, and introspection reads it back', async () => {
      const jwtRealm = await freshRealm(t, { ...NO_RATE_LIMITS, stateless_tokens: true });
      const service = await t.admin.serviceClient(jwtRealm, 'api');
      const key = await DpopKey.generate();
      const response = await postForm(t.app, `${realmPath(jwtRealm)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
        authorization: basic(service.clientId, service.secret),
        dpop: await key.proof('POST', `${BASE_URL}${realmPath(jwtRealm)}/access_token`),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().token_type).toBe('DPoP');
      expect(decodeJwt(response.json().access_token).cnf).toEqual({ jkt: key.thumbprint });
      const answer = (await introspect(t.app, jwtRealm, service, response.json().access_token)).json();
      expect(answer).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.thumbprint } });
    });
  });
});
