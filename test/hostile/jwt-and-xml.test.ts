import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUDGET,
  GRANTS,
  type HostileFixture,
  type HostileRequest,
  compactJwt,
  encoded,
  expectAnswer,
  formBytes,
  hostileJwt,
  hostileProperty,
  hostileXml,
  selfSignedCertificate,
  send,
  startHostileApp,
  xmlEncoding,
} from '../support/hostile.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic } from '../support/oauth.js';

const IDP = 'https://idp.example.test';
const SAML_IDP = 'https://idp.example.test/saml';
const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const TOKEN_TYPES = {
  access_token: 'urn:ietf:params:oauth:token-type:access_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  id_token: 'urn:ietf:params:oauth:token-type:id_token',
};

/** A request over the time any hostile document may take: a parser that expands entities would take far longer. */
const MAX_ANSWER_MS = 5_000;

describe('garbage and unsigned JWTs, XML bombs', () => {
  let f: HostileFixture;
  let tokenEndpoint: string;
  /** The trusted identity provider's key, and the key of a client that authenticates with private_key_jwt. */
  let idpKey: KeyPair;
  let clientKey: KeyPair;
  let jwtClientId: string;

  beforeAll(async () => {
    f = await startHostileApp();
    tokenEndpoint = `${f.issuer}/access_token`;
    idpKey = await keyPair('ES256');
    clientKey = await keyPair('ES256');
    const trusted = await f.t.admin.request('POST', `/realms/${f.realm}/trusted-issuers`, { kind: 'jwt', issuer: IDP, jwks: { keys: [idpKey.publicJwk] } });
    expect(trusted.statusCode, trusted.body).toBe(201);
    const saml = await f.t.admin.request('POST', `/realms/${f.realm}/trusted-issuers`, { kind: 'saml2', issuer: SAML_IDP, certificate_pem: selfSignedCertificate('idp') });
    expect(saml.statusCode, saml.body).toBe(201);
    jwtClientId = (
      await f.t.admin.createClient(f.realm, {
        grant_types: ['client_credentials', GRANTS.jwtBearer, GRANTS.tokenExchange, GRANTS.ciba],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [clientKey.publicJwk] },
        scope: 'openid api',
      })
    ).client_id;
  });
  afterAll(() => f.t.close());

  const now = () => Math.floor(Date.now() / 1000);
  const serviceAuth = () => ({ authorization: basic(f.service.clientId, f.service.secret) });
  const form = (url: string, fields: Record<string, string>, headers: Record<string, string> = serviceAuth()): HostileRequest => ({
    method: 'POST',
    url: `${f.path}${url}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: formBytes(encoded(fields)),
  });

  /** Claims that pass every check but the signature, per place. */
  const claims = {
    clientAssertion: () => ({ iss: jwtClientId, sub: jwtClientId, aud: tokenEndpoint, exp: now() + 60, iat: now(), jti: randomUUID() }),
    assertion: () => ({ iss: IDP, sub: f.user.username, aud: tokenEndpoint, exp: now() + 60, iat: now(), jti: randomUUID() }),
    accessToken: () => ({ iss: f.issuer, sub: f.user.sub, aud: f.service.clientId, client_id: f.service.clientId, scope: 'openid api', exp: now() + 60, iat: now(), jti: randomUUID() }),
    idToken: () => ({ iss: f.issuer, sub: f.user.sub, aud: f.service.clientId, exp: now() + 60, iat: now(), auth_time: now() }),
    requestObject: () => ({ iss: f.service.clientId, aud: f.issuer, scope: 'openid', login_hint: f.user.username, exp: now() + 60, iat: now(), nbf: now(), jti: randomUUID() }),
    authorizationRequestObject: () => ({
      iss: f.service.clientId, aud: f.issuer, client_id: f.service.clientId, response_type: 'code', scope: 'openid', exp: now() + 60, iat: now(), jti: randomUUID(),
    }),
    loginHintToken: () => ({ iss: f.service.clientId, aud: f.issuer, sub_id: { format: 'opaque', id: f.user.sub }, exp: now() + 60 }),
  };

  /** The places that take a JWT, each with what a hostile one there must get. */
  const places: Array<{
    name: string;
    claims: () => Record<string, unknown>;
    request: (jwt: string) => HostileRequest;
    /** Introspection and revocation answer 200 to any token they do not know (RFC 7662 §2.2, RFC 7009 §2.2). */
    allow?: number[];
    kind?: 'page';
  }> = [
    {
      name: 'client_assertion (private_key_jwt)',
      claims: claims.clientAssertion,
      request: (jwt) => form('/access_token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: jwt }, {}),
    },
    {
      name: 'client_assertion at PAR',
      claims: claims.clientAssertion,
      request: (jwt) => form('/par', { response_type: 'code', client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: jwt }, {}),
    },
    { name: 'assertion (JWT bearer grant)', claims: claims.assertion, request: (jwt) => form('/access_token', { grant_type: GRANTS.jwtBearer, assertion: jwt }) },
    { name: 'assertion (SAML 2.0 bearer grant)', claims: claims.assertion, request: (jwt) => form('/access_token', { grant_type: GRANTS.saml2Bearer, assertion: jwt }) },
    ...Object.entries(TOKEN_TYPES).map(([type, uri]) => ({
      name: `subject_token of type ${type}`,
      claims: type === 'id_token' ? claims.idToken : type === 'jwt' ? claims.assertion : claims.accessToken,
      request: (jwt: string) => form('/access_token', { grant_type: GRANTS.tokenExchange, subject_token: jwt, subject_token_type: uri }),
    })),
    {
      name: 'actor_token',
      claims: claims.assertion,
      request: (jwt) => form('/access_token', { grant_type: GRANTS.tokenExchange, subject_token: jwt, subject_token_type: TOKEN_TYPES.jwt, actor_token: jwt, actor_token_type: TOKEN_TYPES.jwt }),
    },
    { name: 'id_token_hint at backchannel authentication', claims: claims.idToken, request: (jwt) => form('/bc-authorize', { scope: 'openid', id_token_hint: jwt }) },
    { name: 'login_hint_token', claims: claims.loginHintToken, request: (jwt) => form('/bc-authorize', { scope: 'openid', login_hint_token: jwt }) },
    { name: 'request (CIBA request object)', claims: claims.requestObject, request: (jwt) => form('/bc-authorize', { request: jwt }) },
    { name: 'request (authorization request object) at PAR', claims: claims.authorizationRequestObject, request: (jwt) => form('/par', { request: jwt }) },
    { name: 'token at introspection', claims: claims.accessToken, request: (jwt) => form('/introspect', { token: jwt }), allow: [200] },
    { name: 'token at revocation', claims: claims.accessToken, request: (jwt) => form('/token/revoke', { token: jwt }), allow: [200] },
    { name: 'access token at userinfo', claims: claims.accessToken, request: (jwt) => ({ method: 'GET', url: `${f.path}/userinfo`, headers: { authorization: `Bearer ${jwt}` } }) },
    {
      name: 'id_token_hint at sign-out',
      claims: claims.idToken,
      request: (jwt) => ({ method: 'GET', url: `${f.path}/connect/endSession?${new URLSearchParams({ id_token_hint: jwt, post_logout_redirect_uri: 'https://app.example/signed-out' })}` }),
      kind: 'page',
    },
  ];

  for (const place of places) {
    it(`refuses garbage and unsigned JWTs as ${place.name}`, async () => {
      await hostileProperty(f, BUDGET.jwt, hostileJwt(place.claims), async (jwt) => {
        const response = await send(f.app, place.request(jwt));
        const status = expectAnswer(f, response, { kind: place.kind ?? 'oauth', allow: place.allow ?? [] });
        if (place.name === 'token at introspection' && status === 200) expect(response.json()).toEqual({ active: false });
        return status;
      }, { refusals: place.allow === undefined });
    });
  }

  describe('the claims above are otherwise accepted: only the signature is missing', () => {
    it('a client assertion signed with the client key authenticates', async () => {
      const jwt = await new SignJWT(claims.clientAssertion()).setProtectedHeader({ alg: 'ES256', kid: clientKey.kid }).sign(clientKey.privateKey);
      const response = await send(f.app, form('/access_token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: jwt }, {}));
      expect(response.statusCode, response.body).toBe(200);
      const unsigned = compactJwt({ alg: 'none' }, claims.clientAssertion());
      expect((await send(f.app, form('/access_token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: unsigned }, {}))).statusCode).toBe(401);
    });

    it('an assertion signed by the trusted issuer gives a token', async () => {
      const jwt = await new SignJWT(claims.assertion()).setProtectedHeader({ alg: 'ES256', kid: idpKey.kid }).sign(idpKey.privateKey);
      const response = await send(f.app, form('/access_token', { grant_type: GRANTS.jwtBearer, assertion: jwt }));
      expect(response.statusCode, response.body).toBe(200);
    });
  });

  it('refuses XML bombs and malformed XML as SAML 2.0 assertions, quickly', async () => {
    const arbitrary = fc.record({ xml: hostileXml, encode: xmlEncoding });
    await hostileProperty(f, BUDGET.xml, arbitrary, async ({ xml, encode }) => {
      const started = performance.now();
      const response = await send(f.app, form('/access_token', { grant_type: GRANTS.saml2Bearer, assertion: encode(xml) }));
      expect(performance.now() - started, `answered ${response.statusCode} after`).toBeLessThan(MAX_ANSWER_MS);
      return expectAnswer(f, response, { kind: 'oauth' });
    });
  });

  it('refuses XML as a JWT assertion and as a subject token', async () => {
    const arbitrary = fc.record({ xml: hostileXml, encode: xmlEncoding, where: fc.constantFrom('jwt-bearer', 'token-exchange') });
    await hostileProperty(f, BUDGET.xml, arbitrary, async ({ xml, encode, where }) => {
      const fields: Record<string, string> =
        where === 'jwt-bearer'
          ? { grant_type: GRANTS.jwtBearer, assertion: encode(xml) }
          : { grant_type: GRANTS.tokenExchange, subject_token: encode(xml), subject_token_type: 'urn:ietf:params:oauth:token-type:saml2' };
      return expectAnswer(f, await send(f.app, form('/access_token', fields)), { kind: 'oauth' });
    });
  });
});
