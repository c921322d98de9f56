import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_AUTH_PARAMS } from '../../src/client-auth/credentials.js';
import { AUTHORIZATION_PARAMETERS } from '../../src/requests/authorization-request.js';
import { BACKCHANNEL_FORM_PARAMETERS } from '../../src/requests/backchannel-request.js';
import {
  ADMIN_TOKEN,
  BUDGET,
  FORM,
  type FormPair,
  GRANTS,
  type HostileFixture,
  encoded,
  expectAnswer,
  formBytes,
  formContentType,
  hostileAuthorization,
  hostileForm,
  hostileJsonBody,
  hostileJwt,
  hostilePairs,
  hostileProperty,
  hostileText,
  jsonContentType,
  malformedBearer,
  queryString,
  routableSegment,
  send,
  startHostileApp,
} from '../support/hostile.js';
import { REDIRECT_URI } from '../support/flow.js';
import { basic } from '../support/oauth.js';
import { NO_RATE_LIMITS } from '../support/app.js';

/** The parameters each grant reads (src/grants/*), beside client authentication. */
const GRANT_PARAMETERS: Record<string, readonly string[]> = {
  [GRANTS.authorizationCode]: ['code', 'redirect_uri', 'code_verifier', 'authorization_details'],
  [GRANTS.refreshToken]: ['refresh_token', 'scope', 'authorization_details'],
  [GRANTS.clientCredentials]: ['scope', 'authorization_details'],
  [GRANTS.password]: ['username', 'password', 'otp', 'scope'],
  [GRANTS.deviceCode]: ['device_code'],
  [GRANTS.ciba]: ['auth_req_id'],
  [GRANTS.tokenExchange]: ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'scope', 'audience', 'resource'],
  [GRANTS.saml2Bearer]: ['assertion', 'scope'],
  [GRANTS.jwtBearer]: ['assertion', 'scope'],
};

/**
 * Values that pass their own checks, so that the checks behind them meet the hostile ones. No
 * plausible username at the password grant: its failures would lock the fixture's person.
 */
const PLAUSIBLE: Record<string, string> = {
  redirect_uri: REDIRECT_URI,
  response_type: 'code',
  scope: 'openid',
  state: 'state-1',
  nonce: 'nonce-1',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  prompt: 'login',
  max_age: '60',
  login_hint: 'alice',
  binding_message: 'W4SCT',
  requested_expiry: '120',
  subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  actor_token_type: 'urn:ietf:params:oauth:token-type:jwt',
  requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  audience: 'https://api.example',
  resource: 'https://api.example/',
  token_type_hint: 'access_token',
  client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
};

/** RFC 7591 §2 metadata, and what an admin controls (which registration ignores). */
const REGISTRATION_FIELDS = [
  'redirect_uris', 'post_logout_redirect_uris', 'client_name', 'scope', 'grant_types', 'response_types', 'token_endpoint_auth_method',
  'jwks', 'jwks_uri', 'tls_client_auth_subject_dn', 'tls_client_certificate_bound_access_tokens', 'id_token_signed_response_alg', 'introspection_signed_response_alg',
  'require_pushed_authorization_requests', 'require_signed_request_object', 'client_id', 'client_secret', 'skip_consent', 'introspect_any_token',
  'authorization_details_types',
];

describe('hostile input at the OAuth endpoints', () => {
  let f: HostileFixture;
  /** A client registered at /connect/register, for its configuration endpoint (RFC 7592). */
  let registered: { clientId: string; token: string };

  beforeAll(async () => {
    f = await startHostileApp();
    await f.t.admin.createRealm('open', { ...NO_RATE_LIMITS, open_registration: true });
    const initial = await f.t.admin.request('POST', `/realms/${f.realm}/initial-access-tokens`, { grant_types: ['client_credentials'] });
    const response = await f.app.inject({
      method: 'POST',
      url: `${f.path}/connect/register`,
      headers: { authorization: `Bearer ${initial.json().token}`, 'content-type': 'application/json' },
      payload: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' },
    });
    expect(response.statusCode, response.body).toBe(201);
    registered = { clientId: response.json().client_id, token: response.json().registration_access_token };
  });
  afterAll(() => f.t.close());

  /** Client authentication as a form endpoint receives it: right (Basic or in the body), absent, or hostile. */
  const clientAuth = () =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant({ header: basic(f.service.clientId, f.service.secret) as string | undefined, pairs: [] as FormPair[] }) },
      { weight: 1, arbitrary: fc.constant({ header: undefined, pairs: encoded({ client_id: f.service.clientId, client_secret: f.service.secret }) }) },
      { weight: 1, arbitrary: fc.constant({ header: undefined, pairs: [] as FormPair[] }) },
      { weight: 2, arbitrary: hostileAuthorization.map((header) => ({ header: header as string | undefined, pairs: [] as FormPair[] })) },
    );

  /**
   * A form endpoint: hostile pairs among its own parameters and client authentication's,
   * hostile content types and Authorization headers, from rotating addresses.
   */
  async function formProperty(
    path: string,
    names: readonly string[],
    options: { base?: FormPair[]; plausible?: Record<string, string>; allow?: number[]; check?: (body: unknown) => void } = {},
  ) {
    let run = 0;
    const arbitrary = fc.record({
      auth: clientAuth(),
      contentType: formContentType,
      pairs: hostileForm(names, { base: options.base ?? [], others: CLIENT_AUTH_PARAMS, plausible: { ...PLAUSIBLE, ...options.plausible } }),
      address: fc.ipV4(),
    });
    await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ auth, contentType, pairs, address }) => {
      run++;
      // The same hostile username again and again would only earn brute-force delays: each run names its own.
      const unique = pairs.map((pair) => (pair.name === 'username' ? { ...pair, value: `${pair.value} ${run}` } : pair));
      const response = await send(f.app, {
        method: 'POST',
        url: `${f.path}${path}`,
        headers: { 'content-type': contentType, authorization: auth.header },
        body: formBytes([...auth.pairs, ...unique]),
        remoteAddress: address,
      });
      const status = expectAnswer(f, response, { kind: 'oauth', allow: options.allow ?? [] });
      if (status < 300) options.check?.(response.json());
      return status;
    });
  }

  describe('the token endpoint', () => {
    for (const [grant, names] of Object.entries(GRANT_PARAMETERS)) {
      it(`refuses hostile ${grant} requests`, async () => {
        // Client credentials needs nothing but authentication: unknown parameters are ignored (CONTRACT.md §3).
        await formProperty('/access_token', names, {
          base: encoded({ grant_type: grant }),
          allow: grant === GRANTS.clientCredentials ? [200] : [],
        });
      });
    }

    it('refuses a missing, unknown or hostile grant_type', async () => {
      await formProperty('/access_token', ['grant_type']);
    });
  });

  it('introspection answers hostile tokens inactive, and refuses the rest', async () => {
    await formProperty('/introspect', ['token', 'token_type_hint'], { allow: [200], check: (body) => expect(body).toEqual({ active: false }) });
  });

  it('revocation answers 200 to hostile tokens (RFC 7009 §2.2) and refuses the rest', async () => {
    await formProperty('/token/revoke', ['token', 'token_type_hint'], { allow: [200] });
  });

  it('PAR refuses hostile authorization parameters', async () => {
    // Plausible values with only ignorable hostile ones beside them make a valid push.
    await formProperty('/par', AUTHORIZATION_PARAMETERS, { plausible: { client_id: f.service.clientId }, allow: [201] });
  });

  it('the device authorization endpoint refuses hostile requests', async () => {
    // A hostile parameter of another name is ignored: the client gets its codes.
    await formProperty('/device/code', ['scope'], { allow: [200] });
  });

  it('backchannel authentication refuses hostile requests', async () => {
    await formProperty('/bc-authorize', BACKCHANNEL_FORM_PARAMETERS, { plausible: { client_id: f.service.clientId }, allow: [200] });
  });

  describe('userinfo', () => {
    const bearer = () =>
      fc.oneof(
        malformedBearer,
        hostileJwt(() => ({ iss: f.issuer, sub: f.user.sub, aud: f.service.clientId, scope: 'openid', exp: 4_000_000_000 })).map((jwt) => `Bearer ${jwt}`),
        fc.constant(undefined),
        hostileAuthorization,
      );

    it('refuses hostile GET requests', async () => {
      const arbitrary = fc.record({ authorization: bearer(), query: hostilePairs(['access_token', 'scope']) });
      await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ authorization, query }) => {
        const response = await send(f.app, { method: 'GET', url: `${f.path}/userinfo?${queryString(query)}`, headers: { authorization } });
        return expectAnswer(f, response, { kind: 'oauth' });
      });
    });

    it('refuses hostile POST requests', async () => {
      const arbitrary = fc.record({ authorization: bearer(), contentType: formContentType, pairs: hostilePairs(['access_token']) });
      await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ authorization, contentType, pairs }) => {
        const response = await send(f.app, {
          method: 'POST',
          url: `${f.path}/userinfo`,
          headers: { authorization, 'content-type': contentType },
          body: formBytes(pairs),
        });
        return expectAnswer(f, response, { kind: 'oauth' });
      });
    });
  });

  describe('dynamic registration', () => {
    it('refuses hostile metadata where registration is open', async () => {
      const arbitrary = fc.record({
        contentType: jsonContentType,
        authorization: fc.option(hostileAuthorization, { nil: undefined }),
        body: hostileJsonBody(REGISTRATION_FIELDS),
      });
      await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ contentType, authorization, body }) => {
        const response = await send(f.app, {
          method: 'POST',
          url: '/oauth2/open/connect/register',
          headers: { 'content-type': contentType, authorization },
          body,
        });
        // Metadata that happens to be valid registers a client.
        return expectAnswer(f, response, { kind: 'oauth', allow: [201] });
      });
    });

    it('refuses hostile initial access tokens', async () => {
      const arbitrary = fc.record({
        authorization: fc.oneof(malformedBearer, hostileAuthorization, fc.constant(undefined)),
        body: hostileJsonBody(REGISTRATION_FIELDS),
      });
      await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ authorization, body }) => {
        const response = await send(f.app, {
          method: 'POST',
          url: `${f.path}/connect/register`,
          headers: { 'content-type': 'application/json', authorization },
          body,
        });
        return expectAnswer(f, response, { kind: 'oauth' });
      });
    });

    /** The client's URI with a hostile token, or a hostile client id with the client's own token. */
    const configurationTarget = () =>
      fc.oneof(
        fc.record({ clientId: fc.constant(registered.clientId), authorization: fc.oneof(malformedBearer, hostileAuthorization, fc.constant(undefined)) }),
        fc.record({ clientId: routableSegment, authorization: fc.constant<string | undefined>(`Bearer ${registered.token}`) }),
      );

    for (const method of ['GET', 'DELETE'] as const) {
      it(`refuses hostile ${method} requests to the client configuration endpoint`, async () => {
        await hostileProperty(f, BUDGET.endpoint, configurationTarget(), async ({ clientId, authorization }) => {
          const response = await send(f.app, { method, url: `${f.path}/connect/register/${clientId}`, headers: { authorization } });
          return expectAnswer(f, response, { kind: 'oauth' });
        });
      });
    }

    it('refuses hostile PUT requests to the client configuration endpoint', async () => {
      const arbitrary = fc.oneof(
        configurationTarget().map((target) => ({ ...target, body: '{}' as string | Buffer, contentType: 'application/json' as string | undefined })),
        fc.record({
          clientId: fc.constant(registered.clientId),
          authorization: fc.constant<string | undefined>(`Bearer ${registered.token}`),
          body: hostileJsonBody(REGISTRATION_FIELDS, { client_id: registered.clientId }),
          contentType: jsonContentType,
        }),
      );
      await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ clientId, authorization, body, contentType }) => {
        const response = await send(f.app, {
          method: 'PUT',
          url: `${f.path}/connect/register/${clientId}`,
          headers: { authorization, 'content-type': contentType },
          body,
        });
        return expectAnswer(f, response, { kind: 'oauth', allow: [200] });
      });
      // Still the client's own endpoint: hostile updates neither took it nor its token.
      const read = await send(f.app, { method: 'GET', url: `${f.path}/connect/register/${registered.clientId}`, headers: { authorization: `Bearer ${registered.token}` } });
      expect(read.statusCode).toBe(200);
    });
  });

  describe('discovery and the key set', () => {
    /** The realm's own path, or a hostile realm segment (unknown: 404). */
    const realmPathOf = () => fc.oneof({ weight: 2, arbitrary: fc.constant(f.realm) }, { weight: 1, arbitrary: routableSegment });
    const anyHeaders = fc.record({
      authorization: fc.option(hostileAuthorization, { nil: undefined }),
      'if-none-match': fc.option(hostileText.map((text) => text.replace(/[^\x20-\x7e]/g, '?')), { nil: undefined }),
      accept: fc.option(fc.constantFrom('application/xml', 'text/html', '*/*;q=0', 'application/json;q=x'), { nil: undefined }),
    });

    for (const [name, path] of [
      ['OpenID discovery', (realm: string) => `/oauth2/${realm}/.well-known/openid-configuration`],
      ['RFC 8414 metadata', (realm: string) => `/.well-known/oauth-authorization-server/oauth2/${realm}`],
      ['the key set', (realm: string) => `/oauth2/${realm}/connect/jwk_uri`],
    ] as const) {
      it(`${name} ignores hostile queries and headers, and refuses hostile realms`, async () => {
        const arbitrary = fc.record({ realm: realmPathOf(), query: hostilePairs([]), headers: anyHeaders });
        await hostileProperty(f, BUDGET.endpoint, arbitrary, async ({ realm, query, headers }) => {
          const response = await send(f.app, { method: 'GET', url: `${path(realm)}?${queryString(query)}`, headers });
          const status = expectAnswer(f, response, { kind: 'oauth', allow: [200, 304] });
          if (status === 200 && name === 'the key set') {
            // Public keys only, whatever was asked.
            for (const key of response.json().keys as Array<Record<string, unknown>>) {
              for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(member);
            }
          }
          return status;
        });
      });
    }
  });

  it('answers a form endpoint that is sent JSON, XML or nothing with 415 in the contract shape', async () => {
    for (const path of ['/access_token', '/introspect', '/token/revoke', '/par', '/device/code', '/bc-authorize']) {
      for (const contentType of ['application/json', 'application/xml', 'text/plain', undefined]) {
        const response = await send(f.app, {
          method: 'POST',
          url: `${f.path}${path}`,
          headers: { 'content-type': contentType, authorization: basic(f.service.clientId, f.service.secret) },
          body: contentType === 'application/json' ? '{"grant_type":"client_credentials"}' : 'grant_type=client_credentials',
        });
        expect(expectAnswer(f, response, { kind: 'oauth' })).toBe(415);
      }
    }
    // The form parser itself is the only one: a form body is read whatever else is sent.
    const form = await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: { 'content-type': FORM, authorization: `Bearer ${ADMIN_TOKEN}` }, body: 'grant_type=client_credentials' });
    expect(expectAnswer(f, form, { kind: 'oauth' })).toBe(401);
  });
});
