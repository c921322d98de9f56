import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type JWTPayload, SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { TestBrowser, location } from '../support/flow.js';
import { authorize, codeRequest, freshRealm, issuerOf, redirectPath, signInFrom } from '../support/flow-helpers.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { type ServiceClient, introspect, realmPath } from '../support/oauth.js';
import type { Store } from '../../src/store/index.js';
import { type TestUser, createUser, passwordTokens, tokenRequest } from '../support/users.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const MCP = 'https://mcp.example/mcp';
const OTHER_API = 'https://other.example/api';
const CORP = 'https://idp.example';
const now = () => Math.floor(Date.now() / 1000);

/**
 * Two realms of one server as two trust domains (CONTRACT.md §15): `idp` is the company's
 * identity provider, whose client `agent` may obtain ID-JAGs for `saas`, where it is the client
 * `agent-at-saas`; `saas` trusts `idp` for ID-JAGs (its key set copied from `idp`'s jwks_uri) and
 * links people by verified email. `saas` also trusts a foreign identity provider (CORP, a test
 * key) for ID-JAGs, whose subject U-bob is linked to bob through an identity provider of the
 * same issuer.
 */
interface Domains {
  idp: string;
  saas: string;
  agent: ServiceClient;
  agentAtSaas: ServiceClient;
  alice: TestUser;
  aliceAtSaas: TestUser;
  corpKey: KeyPair;
}

async function prepareDomains(app: FastifyInstance, admin: AdminClient, store?: Pick<Store, 'userIdentities'>): Promise<Domains> {
  const suffix = randomUUID().slice(0, 8);
  const idp = `idp-${suffix}`;
  const saas = `saas-${suffix}`;
  await admin.createRealm(idp);
  await admin.createRealm(saas);
  for (const scope of ['notes:read', 'notes:write']) await admin.putScope(saas, scope);
  for (const identifier of [MCP, OTHER_API]) {
    const put = await admin.request('PUT', `/realms/${saas}/resources`, { identifier, scopes: ['notes:read', 'notes:write'] });
    expect(put.statusCode, put.body).toBeLessThan(300);
  }
  const atSaas = await admin.createClient(saas, { client_id: 'agent-at-saas', grant_types: [JWT_BEARER], scope: 'notes:read notes:write' });
  const agent = await admin.createClient(idp, {
    grant_types: ['password', 'client_credentials', TOKEN_EXCHANGE],
    scope: 'openid email',
    id_jag_audiences: [{ issuer: issuerOf(saas), client_id: 'agent-at-saas', scope: 'notes:read notes:write' }],
  });
  const alice = await createUser(admin, idp, 'alice', { claims: { email: 'alice@corp.example', email_verified: true } });
  const aliceAtSaas = await createUser(admin, saas, 'alice', { claims: { email: 'alice@corp.example', email_verified: true } });

  const jwks = await app.inject({ method: 'GET', url: `${realmPath(idp)}/connect/jwk_uri` });
  const trusted = await admin.request('POST', `/realms/${saas}/trusted-issuers`, { kind: 'jwt', issuer: issuerOf(idp), jwks: jwks.json(), id_jag: true, link_by_email: true });
  expect(trusted.statusCode, trusted.body).toBe(201);
  const corpKey = await keyPair('ES256');
  const corp = await admin.request('POST', `/realms/${saas}/trusted-issuers`, { kind: 'jwt', issuer: CORP, jwks: { keys: [corpKey.publicJwk] }, id_jag: true });
  expect(corp.statusCode, corp.body).toBe(201);
  // CORP's subject U-bob is bob's, linked through an identity provider of the same issuer (CONTRACT.md §10).
  if (store) await linkBob(admin, store, saas);
  return {
    idp,
    saas,
    agent: { clientId: agent.client_id, secret: agent.client_secret! },
    agentAtSaas: { clientId: atSaas.client_id, secret: atSaas.client_secret! },
    alice,
    aliceAtSaas,
    corpKey,
  };
}

async function linkBob(admin: AdminClient, store: Pick<Store, 'userIdentities'>, saas: string): Promise<void> {
  const bob = await createUser(admin, saas, 'bob');
  const provider = await admin.request('POST', `/realms/${saas}/identity-providers`, {
    alias: 'corp',
    kind: 'oidc',
    issuer: CORP,
    client_id: 'saas-at-corp',
    client_secret: 'corp-secret-0123456789',
  });
  expect(provider.statusCode, provider.body).toBe(201);
  expect(await store.userIdentities.link(saas, { provider: 'corp', subject: 'U-bob', userId: bob.sub })).toBe(true);
}

/** The realm's key set, found as a client finds it: discovery's jwks_uri. */
async function keySetOf(app: FastifyInstance, realm: string) {
  const discovery = (await app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json() as { jwks_uri: string };
  const jwks = await app.inject({ method: 'GET', url: new URL(discovery.jwks_uri).pathname });
  return createLocalJWKSet(jwks.json());
}

function expectRefused(response: LightMyRequestResponse, error: string, description?: RegExp): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.headers['cache-control']).toBe('no-store');
  const body = response.json() as { error: string; error_description: string };
  expect(body.error).toBe(error);
  if (description) expect(body.error_description).toMatch(description);
}

describe('ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant, CONTRACT.md §15)', () => {
  let t: TestApp;
  let d: Domains;

  beforeAll(async () => {
    t = await startTestApp();
    d = await prepareDomains(t.app, t.admin, t.store);
    // Two realms, their clients, four people (argon2) and three issuers: slow on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  const idTokenOf = async (user: TestUser = d.alice, client: ServiceClient = d.agent) => (await passwordTokens(t.app, d.idp, client, user, 'openid email')).id_token!;

  /** The token exchange at the identity provider for an ID-JAG for `saas`, with an ID token of alice unless `form` says otherwise. */
  const exchange = async (form: Record<string, string | string[]> = {}, by: ServiceClient = d.agent) =>
    tokenRequest(t.app, d.idp, by, {
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: await idTokenOf(),
      subject_token_type: ID_TOKEN,
      audience: issuerOf(d.saas),
      resource: MCP,
      scope: 'notes:read',
      ...form,
    });

  const idJag = async (form: Record<string, string | string[]> = {}): Promise<string> => {
    const response = await exchange(form);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { access_token: string }).access_token;
  };

  const redeem = (assertion: string, form: Record<string, string> = {}, by: ServiceClient = d.agentAtSaas) =>
    tokenRequest(t.app, d.saas, by, { grant_type: JWT_BEARER, assertion, ...form });

  /** An ID-JAG of the foreign identity provider CORP, signed with its key; `claims` change it (undefined removes one). */
  function corpIdJag(claims: Record<string, unknown> = {}, typ: string | null = 'oauth-id-jag+jwt'): Promise<string> {
    const all: Record<string, unknown> = {
      iss: CORP,
      sub: 'U-bob',
      aud: issuerOf(d.saas),
      client_id: 'agent-at-saas',
      jti: randomUUID(),
      iat: now(),
      exp: now() + 300,
      scope: 'notes:read',
      ...claims,
    };
    for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
    return new SignJWT(all as JWTPayload).setProtectedHeader({ alg: 'ES256', kid: d.corpKey.kid, ...(typ === null ? {} : { typ }) }).sign(d.corpKey.privateKey);
  }

  describe('the identity provider issues them by token exchange', () => {
    it('trades an ID token of the client for an ID-JAG for the other server, verified with jose against jwks_uri', async () => {
      const response = await exchange();
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json() as Record<string, unknown>;
      expect(body).toMatchObject({ issued_token_type: ID_JAG, token_type: 'N_A', scope: 'notes:read' });
      expect(body.expires_in).toBeLessThanOrEqual(300);
      expect(body.refresh_token).toBeUndefined();

      const { payload, protectedHeader } = await jwtVerify(body.access_token as string, await keySetOf(t.app, d.idp), {
        issuer: issuerOf(d.idp),
        audience: issuerOf(d.saas),
        typ: 'oauth-id-jag+jwt',
      });
      expect(protectedHeader.typ).toBe('oauth-id-jag+jwt');
      expect(payload).toMatchObject({ sub: d.alice.sub, client_id: 'agent-at-saas', resource: MCP, scope: 'notes:read', email: 'alice@corp.example', email_verified: true });
      expect(payload.jti).toEqual(expect.any(String));
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
      expect(payload.exp! - now()).toBeLessThanOrEqual(300);
    });

    it('trades an access token issued to the client as well, and records id_jag.issued without the token', async () => {
      const { access_token: accessToken } = await passwordTokens(t.app, d.idp, d.agent, d.alice, 'openid');
      const response = await exchange({ subject_token: accessToken, subject_token_type: ACCESS_TOKEN, scope: 'notes:read notes:write' });
      expect(response.statusCode, response.body).toBe(200);
      const jag = (response.json() as { access_token: string }).access_token;
      const claims = decodeJwt(jag);
      expect(claims).toMatchObject({ sub: d.alice.sub, aud: issuerOf(d.saas), scope: 'notes:read notes:write' });
      // The access token's scope holds no `email`: the ID-JAG tells none.
      expect(claims.email).toBeUndefined();

      const events = await t.admin.request('GET', `/realms/${d.idp}/events?type=id_jag.issued`);
      const found = (events.json() as { events: Array<{ client_id: string; user_id: string; details: Record<string, unknown> }> }).events;
      const event = found.find((candidate) => candidate.details.jti === claims.jti);
      expect(event).toMatchObject({ client_id: d.agent.clientId, user_id: d.alice.sub, details: { audience: issuerOf(d.saas), audience_client_id: 'agent-at-saas' } });
      expect(JSON.stringify(found)).not.toContain(jag);
      expect(JSON.stringify(found)).not.toContain(accessToken);
    });

    it("refuses an audience the client's id_jag_audiences do not list, none, or two, with invalid_target", async () => {
      expectRefused(await exchange({ audience: 'https://elsewhere.example' }), 'invalid_target', /id_jag_audiences/);
      expectRefused(await exchange({ audience: [] }), 'invalid_target', /exactly one audience/);
      expectRefused(await exchange({ audience: [issuerOf(d.saas), 'https://elsewhere.example'] }), 'invalid_target', /exactly one audience/);
    });

    it("refuses a scope beyond the id_jag_audiences entry's with invalid_scope", async () => {
      expectRefused(await exchange({ scope: 'notes:read notes:admin' }), 'invalid_scope', /notes:admin/);
    });

    it('refuses a subject token not issued to the client, of no person, forged, or of a type it does not take, with invalid_request', async () => {
      const other = await t.admin.createClient(d.idp, { grant_types: ['password', TOKEN_EXCHANGE], scope: 'openid email' });
      const otherClient = { clientId: other.client_id, secret: other.client_secret! };
      expectRefused(await exchange({ subject_token: await idTokenOf(d.alice, otherClient) }), 'invalid_request', /issued to this client/);
      const othersAccess = (await passwordTokens(t.app, d.idp, otherClient, d.alice, 'openid')).access_token;
      expectRefused(await exchange({ subject_token: othersAccess, subject_token_type: ACCESS_TOKEN }), 'invalid_request', /not issued to this client/);
      const serviceToken = (await tokenRequest(t.app, d.idp, d.agent, { grant_type: 'client_credentials' })).json().access_token as string;
      expectRefused(await exchange({ subject_token: serviceToken, subject_token_type: ACCESS_TOKEN }), 'invalid_request', /no person/);
      const idToken = await idTokenOf();
      const [header, , signature] = idToken.split('.');
      const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(idToken), sub: 'someone-else' })).toString('base64url')}.${signature}`;
      expectRefused(await exchange({ subject_token: forged }), 'invalid_request', /not a live ID token/);
      expectRefused(await exchange({ subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' }), 'invalid_request', /subject_token_type/);
      expectRefused(await exchange({ actor_token: idToken, actor_token_type: ID_TOKEN }), 'invalid_request', /actor_token/);
    });

    it('refuses a client without id_jag_audiences (invalid_target), and an ID token of a person disabled or whose password changed since (invalid_request)', async () => {
      const plain = await t.admin.createClient(d.idp, { grant_types: ['password', TOKEN_EXCHANGE], scope: 'openid' });
      const plainClient = { clientId: plain.client_id, secret: plain.client_secret! };
      const response = await tokenRequest(t.app, d.idp, plainClient, {
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        subject_token: (await passwordTokens(t.app, d.idp, plainClient, d.alice, 'openid')).id_token!,
        subject_token_type: ID_TOKEN,
        audience: issuerOf(d.saas),
      });
      expectRefused(response, 'invalid_target', /id_jag_audiences/);

      const carol = await createUser(t.admin, d.idp, 'carol');
      const carolsIdToken = await idTokenOf(carol);
      expect((await t.admin.request('PATCH', `/realms/${d.idp}/users/carol`, { enabled: false })).statusCode).toBe(200);
      expectRefused(await exchange({ subject_token: carolsIdToken }), 'invalid_request');

      // A password change denies the ID tokens issued before it (CONTRACT.md §7), though the person is
      // enabled, and not those issued after it, in the same second too (iat has seconds; the jti, milliseconds).
      const dave = await createUser(t.admin, d.idp, 'dave');
      while (Date.now() % 1000 > 500) await new Promise((resolve) => setTimeout(resolve, 50));
      const davesIdToken = await idTokenOf(dave);
      expect((await exchange({ subject_token: davesIdToken })).statusCode).toBe(200);
      expect((await t.admin.request('PATCH', `/realms/${d.idp}/users/dave`, { password: 'a new password 0123456789' })).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const newIdToken = (await passwordTokens(t.app, d.idp, d.agent, { ...dave, password: 'a new password 0123456789' }, 'openid email')).id_token!;
      expectRefused(await exchange({ subject_token: davesIdToken }), 'invalid_request', /not a live ID token/);
      expect((await exchange({ subject_token: newIdToken })).statusCode).toBe(200);
    });

    it('is advertised in discovery (identity_chaining_requested_token_types_supported)', async () => {
      const metadata = (await t.app.inject({ method: 'GET', url: `${realmPath(d.idp)}/.well-known/openid-configuration` })).json();
      expect(metadata.identity_chaining_requested_token_types_supported).toEqual([ID_JAG]);
    });

    it('the consent page names the servers the client may obtain ID-JAGs for', async () => {
      const client = await t.admin.createClient(d.idp, {
        redirect_uris: ['https://app.example/callback'],
        grant_types: ['authorization_code', TOKEN_EXCHANGE],
        scope: 'openid email',
        client_name: 'Acme agent',
        id_jag_audiences: [{ issuer: issuerOf(d.saas), client_id: 'agent-at-saas' }],
      });
      const browser = new TestBrowser(t.app, BASE_URL);
      const signedIn = await signInFrom(browser, await authorize(browser, d.idp, codeRequest(client.client_id, { scope: 'openid email' })), d.alice);
      expect(redirectPath(signedIn)).toMatch(/\/consent$/);
      const page = await browser.get(location(signedIn));
      expect(page.body).toContain('<p>It may also present your sign-in to these services, to act for you there:</p>');
      expect(page.body).toContain(`<strong>${new URL(BASE_URL).host}${realmPath(d.saas)}</strong>`);
      // The client is named once, in the sentence that leads the page.
      expect(page.body.split('Acme agent').length - 1).toBe(1);
    });

    it('is set by an admin only: refused on a public client, and at dynamic registration', async () => {
      const publicClient = await t.admin.request('POST', `/realms/${d.idp}/clients`, {
        client_type: 'public',
        redirect_uris: ['https://app.example/callback'],
        id_jag_audiences: [{ issuer: issuerOf(d.saas), client_id: 'x' }],
      });
      expect(publicClient.statusCode).toBe(400);
      expect(publicClient.json().error_description).toContain('id_jag_audiences');

      const open = await freshRealm(t, { open_registration: true });
      const viaJson = await t.app.inject({
        method: 'POST',
        url: `${realmPath(open)}/connect/register`,
        headers: { 'content-type': 'application/json' },
        payload: { redirect_uris: ['https://app.example/callback'], id_jag_audiences: [{ issuer: issuerOf(d.saas), client_id: 'x' }] },
      });
      expect(viaJson.statusCode, viaJson.body).toBe(400);
      expect(viaJson.json()).toMatchObject({ error: 'invalid_client_metadata' });
      expect(viaJson.json().error_description).toContain('id_jag_audiences');
    });

    it('goes with the realm: export holds the client field and the trusted issuer flags', async () => {
      const idpExport = (await t.admin.request('GET', `/realms/${d.idp}/export`)).json();
      const agent = idpExport.clients.find((client: { client_id: string }) => client.client_id === d.agent.clientId);
      expect(agent.id_jag_audiences).toEqual([{ issuer: issuerOf(d.saas), client_id: 'agent-at-saas', scope: 'notes:read notes:write' }]);
      const saasExport = (await t.admin.request('GET', `/realms/${d.saas}/export`)).json();
      expect(saasExport.trusted_issuers).toEqual(expect.arrayContaining([expect.objectContaining({ issuer: issuerOf(d.idp), id_jag: true, link_by_email: true })]));
    });
  });

  describe('the resource authorization server redeems them with the JWT bearer grant', () => {
    it('gives the client it names an access token for the asked resource and scope, for the person with that verified email', async () => {
      const response = await redeem(await idJag());
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as Record<string, unknown>;
      expect(body).toMatchObject({ token_type: 'Bearer', scope: 'notes:read' });
      expect(body.refresh_token).toBeUndefined();
      expect(body.id_token).toBeUndefined();
      const described = (await introspect(t.app, d.saas, d.agentAtSaas, body.access_token as string)).json();
      expect(described).toMatchObject({ active: true, sub: d.aliceAtSaas.sub, username: 'alice', client_id: 'agent-at-saas', scope: 'notes:read', aud: MCP });
    });

    it('redeems one once: a replay is invalid_grant, and of two at once exactly one succeeds', async () => {
      const jag = await idJag();
      expect((await redeem(jag)).statusCode).toBe(200);
      expectRefused(await redeem(jag), 'invalid_grant', /used already/);
      const racing = await idJag();
      const answers = await Promise.all([redeem(racing), redeem(racing), redeem(racing)]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400]);
    });

    it('refuses it from another client than the one it names, and that refusal spends nothing', async () => {
      const intruder = await t.admin.createClient(d.saas, { grant_types: [JWT_BEARER], scope: 'notes:read notes:write' });
      const jag = await idJag();
      expectRefused(await redeem(jag, {}, { clientId: intruder.client_id, secret: intruder.client_secret! }), 'invalid_grant', /client_id claim names another client/);
      expect((await redeem(jag)).statusCode).toBe(200);
    });

    it('refuses one for another audience, and one typed otherwise, naming the rule', async () => {
      expectRefused(await redeem(await corpIdJag({ aud: 'https://elsewhere.example' })), 'invalid_grant', /aud claim/);
      expectRefused(await redeem(await corpIdJag({ aud: [issuerOf(d.saas)] })), 'invalid_grant', /aud claim/);
      expectRefused(await redeem(await corpIdJag({ aud: `${issuerOf(d.saas)}/access_token` })), 'invalid_grant', /aud claim/);
      expectRefused(await redeem(await corpIdJag({}, 'JWT')), 'invalid_grant', /typ header must be oauth-id-jag\+jwt/);
      expectRefused(await redeem(await corpIdJag({}, null)), 'invalid_grant', /typ header must be oauth-id-jag\+jwt/);
      expectRefused(await redeem(await corpIdJag({}, 'at+jwt')), 'invalid_grant', /typ header/);
      expect((await redeem(await corpIdJag())).statusCode).toBe(200);
    });

    it('refuses a scope wider than the ID-JAG names with invalid_scope, spending nothing; without one, gives at most its scope', async () => {
      const jag = await corpIdJag({ scope: 'notes:read' });
      expectRefused(await redeem(jag, { scope: 'notes:read notes:write' }), 'invalid_scope', /wider than the assertion's scope/);
      const granted = await redeem(jag);
      expect(granted.statusCode, granted.body).toBe(200);
      expect(granted.json()).toMatchObject({ scope: 'notes:read' });
      const narrower = await redeem(await corpIdJag({ scope: 'notes:read notes:write' }), { scope: 'notes:write' });
      expect(narrower.json()).toMatchObject({ scope: 'notes:write' });
    });

    it('holds the resource to the ID-JAG and to the realm, with invalid_target', async () => {
      expectRefused(await redeem(await corpIdJag({ resource: MCP }), { resource: OTHER_API }), 'invalid_target', /resource claim does not name/);
      expectRefused(await redeem(await corpIdJag({ resource: 'https://unknown.example/api' })), 'invalid_target');
      const both = await redeem(await corpIdJag({ resource: [MCP, OTHER_API] }), { resource: OTHER_API });
      expect(both.statusCode, both.body).toBe(200);
      const described = (await introspect(t.app, d.saas, d.agentAtSaas, both.json().access_token)).json();
      expect(described.aud).toBe(OTHER_API);
    });

    it('finds the person linked to the issuer and subject; an unlinked subject without link_by_email is refused', async () => {
      const bob = (await t.admin.request('GET', `/realms/${d.saas}/users/bob`)).json() as { sub: string };
      const response = await redeem(await corpIdJag());
      expect(response.statusCode, response.body).toBe(200);
      expect((await introspect(t.app, d.saas, d.agentAtSaas, response.json().access_token)).json()).toMatchObject({ sub: bob.sub, username: 'bob' });
      // CORP has no link_by_email: its email claim finds nobody.
      expectRefused(await redeem(await corpIdJag({ sub: 'U-nobody', email: 'alice@corp.example', email_verified: true })), 'invalid_grant', /linked to no person/);
    });

    it('links by email only when both sides verified it', async () => {
      await createUser(t.admin, d.idp, 'erin', { claims: { email: 'erin@corp.example', email_verified: true } });
      await createUser(t.admin, d.saas, 'erin', { claims: { email: 'erin@corp.example' } });
      const erinsIdToken = await idTokenOf({ username: 'erin', password: 'pw-erin-0123456789', sub: '' });
      expectRefused(await redeem(await idJag({ subject_token: erinsIdToken })), 'invalid_grant', /verified email/);
    });

    it('refuses an ID-JAG to an issuer not trusted for them, and as a subject token of token exchange', async () => {
      const plainKey = await keyPair('ES256');
      await t.admin.request('POST', `/realms/${d.saas}/trusted-issuers`, { kind: 'jwt', issuer: 'https://plain.example', jwks: { keys: [plainKey.publicJwk] } });
      const plain = await new SignJWT({ iss: 'https://plain.example', sub: 'alice', aud: issuerOf(d.saas), client_id: 'agent-at-saas', jti: randomUUID(), iat: now(), exp: now() + 300 })
        .setProtectedHeader({ alg: 'ES256', kid: plainKey.kid, typ: 'oauth-id-jag+jwt' })
        .sign(plainKey.privateKey);
      expectRefused(await redeem(plain), 'invalid_grant', /typ header/);

      const exchanger = await t.admin.createClient(d.saas, { grant_types: [TOKEN_EXCHANGE], scope: 'notes:read' });
      const traded = await tokenRequest(t.app, d.saas, { clientId: exchanger.client_id, secret: exchanger.client_secret! }, {
        grant_type: TOKEN_EXCHANGE,
        subject_token: await idJag(),
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      });
      expectRefused(traded, 'invalid_request', /ID-JAGs alone/);
    });

    it("refuses a disabled person's, and checks the admin rules of the trusted issuer", async () => {
      const frank = await createUser(t.admin, d.saas, 'frank');
      await t.store.userIdentities.link(d.saas, { provider: 'corp', subject: 'U-frank', userId: frank.sub });
      expect((await t.admin.request('PATCH', `/realms/${d.saas}/users/frank`, { enabled: false })).statusCode).toBe(200);
      expectRefused(await redeem(await corpIdJag({ sub: 'U-frank' })), 'invalid_grant', /disabled/);

      const linkOnly = await t.admin.request('POST', `/realms/${d.saas}/trusted-issuers`, { kind: 'jwt', issuer: 'https://x.example', jwks: { keys: [d.corpKey.publicJwk] }, link_by_email: true });
      expect(linkOnly.statusCode).toBe(400);
      expect(linkOnly.json().error_description).toContain('link_by_email');
    });
  });
});

describe('ID-JAG once-only across two instances', () => {
  it('of the same ID-JAG redeemed at two instances at once, exactly one succeeds', async () => {
    const instances = await startTwoInstances();
    try {
      const d = await prepareDomains(instances.a, new AdminClient(instances.a));
      const idToken = (await passwordTokens(instances.a, d.idp, d.agent, d.alice, 'openid email')).id_token!;
      const exchanged = await tokenRequest(instances.a, d.idp, d.agent, {
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        subject_token: idToken,
        subject_token_type: ID_TOKEN,
        audience: issuerOf(d.saas),
        scope: 'notes:read',
      });
      const jag = (exchanged.json() as { access_token: string }).access_token;
      expect(decodeProtectedHeader(jag).typ).toBe('oauth-id-jag+jwt');
      const form = { grant_type: JWT_BEARER, assertion: jag };
      const answers = await Promise.all([
        tokenRequest(instances.a, d.saas, d.agentAtSaas, form),
        tokenRequest(instances.b, d.saas, d.agentAtSaas, form),
        tokenRequest(instances.b, d.saas, d.agentAtSaas, form),
      ]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400]);
      for (const refused of answers.filter((answer) => answer.statusCode === 400)) expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
    } finally {
      await instances.close();
    }
  }, 180_000);
});
