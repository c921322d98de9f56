import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_HASHING } from '../../src/authn/password-hashing.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser } from '../support/flow.js';
import { keyPair } from '../support/keys.js';
import { basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { createUser, passwordGrant } from '../support/users.js';
import { appClient, startAtProvider } from '../identity-providers/support.js';

type Json = Record<string, unknown>;
type Document = Json & { realm?: string };

const CLIENT_SECRET_HOLDER = 'billing';
const PROVIDER_SECRET = 'upstream-secret-3f9a1c7e5b2d4f60';
const STRONG = {
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'otp' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
};

/** A self-signed certificate made by openssl, as a SAML identity provider signs with. */
function selfSignedCertificate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=idp.example'], { stdio: 'ignore' });
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A realm as data (CONTRACT.md §10): `GET …/export` and `PUT …/import`, through the admin API.
 * The source realm holds one of everything, secrets included, so that the tests can look for
 * each secret in the documents.
 */
describe('admin API: a realm\'s export and import', () => {
  let t: TestApp;
  /** Every secret the source realm holds: none may appear in an export. */
  const secrets: string[] = [];
  let alice: { username: string; password: string; sub: string };
  /** An upstream that counts the requests it is sent, as the identity provider `corp`. */
  let upstream: Server;
  let upstreamHits = 0;
  let upstreamIssuer: string;

  const request = (method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => t.admin.request(method, url, body);
  const exported = async (realm: string, users = false): Promise<Document> => {
    const response = await request('GET', `/realms/${realm}/export${users ? '?users=true' : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Document;
  };
  const imported = async (realm: string, document: unknown, query = ''): Promise<Json & { sections: Record<string, Json> }> => {
    const response = await request('PUT', `/realms/${realm}/import${query}`, document);
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json() as Json & { sections: Record<string, Json> };
  };
  /** Runs `act` while every Store.transaction fails after its work, as a database gone at the commit would. */
  async function failingAfterTheLastWrite(act: () => Promise<void>): Promise<void> {
    const transaction = t.store.transaction;
    (t.store as { transaction: typeof transaction }).transaction = (work) =>
      transaction(async (tx) => {
        await work(tx);
        throw new Error('the database went away after the last write');
      });
    try {
      await act();
    } finally {
      (t.store as { transaction: typeof transaction }).transaction = transaction;
    }
  }
  /** The document as another realm's: apart from the name of the realm it came from. */
  const asRealm = (document: Document, realm: string): Document => ({ ...document, realm });

  beforeAll(async () => {
    upstream = createServer((_request, response) => {
      upstreamHits++;
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamIssuer = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    t = await startTestApp({ outboundAllow: ['127.0.0.1'], passwordHashing: PASSWORD_HASHING }); // the exported hashes' parameters are checked

    await t.admin.createRealm('source', { access_token_lifetime: 900, require_pkce: true });
    const roles = { name: 'roles', source: 'roles', tokens: ['access_token', 'id_token'] };
    expect((await request('PUT', '/realms/source/scopes/orders:read', { description: 'Read your orders', claims: [roles] })).statusCode).toBe(201);
    expect((await request('PUT', '/realms/source/roles/invoice-approver', { description: 'Approves invoices' })).statusCode).toBe(201);
    expect((await request('PUT', '/realms/source/roles/viewer', {})).statusCode).toBe(201);
    expect((await request('PUT', '/realms/source/groups/accounting', { description: 'The accountants', roles: ['invoice-approver', 'viewer'] })).statusCode).toBe(201);
    await t.admin.putScope('source', 'orders:write', 'Change your orders');
    await t.admin.putScope('source', 'profile', 'Your name, as the shop shows it');
    expect((await request('PUT', '/realms/source/journeys/strong', STRONG)).statusCode).toBe(201);
    expect((await request('PATCH', '/realms/source', { settings: { acr_journeys: { 'urn:example:strong': 'strong' } } })).statusCode).toBe(200);

    const billing = await t.admin.createClient('source', {
      client_id: CLIENT_SECRET_HOLDER,
      client_name: 'Billing',
      grant_types: ['client_credentials', 'password'],
      scope: 'orders:read openid',
      introspect_any_token: true,
    });
    secrets.push(billing.client_secret!, createHash('sha256').update(billing.client_secret!).digest('base64'), createHash('sha256').update(billing.client_secret!).digest('hex'));
    await t.admin.createClient('source', {
      client_id: 'spa',
      client_type: 'public',
      redirect_uris: ['https://spa.example/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile orders:read orders:write',
      require_pkce: true,
      journey: 'strong',
    });
    await t.admin.createClient('source', {
      client_id: 'batch',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [(await keyPair('ES256')).publicJwk] },
      scope: 'orders:write',
      introspection_signed_response_alg: 'ES256',
    });
    const provider = await request('POST', '/realms/source/identity-providers', {
      alias: 'corp',
      kind: 'oidc',
      issuer: upstreamIssuer,
      client_id: 'realmgate-at-corp',
      client_secret: PROVIDER_SECRET,
      display_name: 'Corp',
    });
    expect(provider.statusCode, provider.body).toBe(201);
    secrets.push(PROVIDER_SECRET);
    for (const body of [
      { kind: 'jwt', issuer: 'https://idp.example', jwks: { keys: [(await keyPair('RS256')).publicJwk] }, client_ids: ['billing'] },
      { kind: 'saml2', issuer: 'https://saml.example', certificate_pem: selfSignedCertificate(), subject_mapping: 'email' },
    ]) {
      const issuer = await request('POST', '/realms/source/trusted-issuers', body);
      expect(issuer.statusCode, issuer.body).toBe(201);
    }

    alice = await createUser(t.admin, 'source', 'alice', { password: 'correct horse battery staple', claims: { email: 'alice@example.com', name: 'Alice' } });
    secrets.push(alice.password);
    await createUser(t.admin, 'source', 'Bob', { claims: { department: { name: 'Sales', floor: 3 } } });
    expect((await request('PATCH', '/realms/source/users/bob', { enabled: false })).statusCode).toBe(200);
    expect(await t.store.userIdentities.link('source', { provider: 'corp', subject: 'corp-alice-1', userId: alice.sub })).toBe(true);
    expect((await request('PUT', '/realms/source/users/alice/roles/viewer')).statusCode).toBe(204);
    expect((await request('PUT', '/realms/source/users/alice/groups/accounting')).statusCode).toBe(204);
    const totp = await request('POST', '/realms/source/users/alice/totp');
    expect(totp.statusCode, totp.body).toBe(201);
    secrets.push((totp.json() as { secret: string }).secret);
    for (const body of [{ identifier: 'https://orders.example.com/api', name: 'Orders API', scopes: ['orders:read'] }, { identifier: 'https://reports.example.com/' }]) {
      expect((await request('PUT', '/realms/source/resources', body)).statusCode).toBe(201);
    }
    const initial = await request('POST', '/realms/source/initial-access-tokens', {});
    secrets.push((initial.json() as { token: string }).token);
  });

  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  describe('GET /admin/realms/{realm}/export', () => {
    it('answers one document: settings, scopes, journeys, clients, identity providers, trusted issuers, resources; people only when asked', async () => {
      const document = await exported('source');
      expect(Object.keys(document)).toEqual(['version', 'realm', 'settings', 'scopes', 'journeys', 'roles', 'groups', 'clients', 'identity_providers', 'trusted_issuers', 'resources', 'texts']);
      expect(document).toMatchObject({ version: 1, realm: 'source', settings: { access_token_lifetime: 900, require_pkce: true, acr_journeys: { 'urn:example:strong': 'strong' } } });
      expect(document.scopes).toEqual([
        { name: 'email', description: 'See your email address' },
        { name: 'openid', description: 'Sign you in with your account' },
        { name: 'orders:read', description: 'Read your orders', claims: [{ name: 'roles', source: 'roles', tokens: ['access_token', 'id_token'] }] },
        { name: 'orders:write', description: 'Change your orders' },
        { name: 'profile', description: 'Your name, as the shop shows it' },
      ]);
      expect(document.journeys).toEqual({ strong: STRONG });
      expect(document.roles).toEqual([{ name: 'invoice-approver', description: 'Approves invoices' }, { name: 'viewer', description: '' }]);
      expect(document.groups).toEqual([{ name: 'accounting', description: 'The accountants', roles: ['invoice-approver', 'viewer'] }]);
      expect((document.clients as Json[]).map((client) => client.client_id)).toEqual(['batch', 'billing', 'spa']);
      expect((document.clients as Json[])[1]).toMatchObject({ client_id: 'billing', client_type: 'confidential', token_endpoint_auth_method: 'client_secret_basic', scope: 'orders:read openid' });
      expect(document.identity_providers).toEqual([
        { alias: 'corp', kind: 'oidc', issuer: upstreamIssuer, client_id: 'realmgate-at-corp', scope: 'openid email profile', display_name: 'Corp', username_claim: 'preferred_username', link_by_verified_email: false },
      ]);
      expect((document.trusted_issuers as Json[]).map((issuer) => `${issuer.kind} ${issuer.issuer}`)).toEqual(['jwt https://idp.example', 'saml2 https://saml.example']);
      expect(document.resources).toEqual([
        { identifier: 'https://orders.example.com/api', name: 'Orders API', scopes: ['orders:read'] },
        { identifier: 'https://reports.example.com/' },
      ]);
      expect(document).not.toHaveProperty('users');

      const withPeople = await exported('source', true);
      expect(withPeople.users).toEqual([
        {
          username: 'alice',
          sub: alice.sub,
          password_hash: expect.stringMatching(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/),
          claims: { email: 'alice@example.com', name: 'Alice' },
          enabled: true,
          identities: [{ provider: 'corp', subject: 'corp-alice-1' }],
          roles: ['viewer'],
          groups: ['accounting'],
        },
        expect.objectContaining({ username: 'Bob', claims: { department: { name: 'Sales', floor: 3 } }, enabled: false, identities: [], roles: [], groups: [] }),
      ]);
    });

    it('holds no secret: no client secret nor its hash, no provider secret, no one-time-code secret, no token, no signing key', async () => {
      const text = JSON.stringify(await exported('source', true));
      for (const secret of secrets) expect(text).not.toContain(secret);
      const keys = await t.store.db.query<{ kid: string }>('SELECT kid FROM signing_keys WHERE realm = $1', ['source']);
      expect(keys.rows.length).toBeGreaterThan(0);
      for (const { kid } of keys.rows) expect(text).not.toContain(kid);
      expect(text).not.toMatch(/"(d|p|q|dp|dq|qi|k|client_secret|secret|private_key)":/);
    });

    it('is the same text each time, and says not to be cached', async () => {
      const [first, second] = await Promise.all([request('GET', '/realms/source/export?users=true'), request('GET', '/realms/source/export?users=true')]);
      expect(first.body).toBe(second.body);
      expect(first.headers['cache-control']).toBe('no-store');
    });

    it('is 404 for a realm that does not exist, and 400 for a query it does not take', async () => {
      expect((await request('GET', '/realms/nowhere/export')).statusCode).toBe(404);
      const bad = await request('GET', '/realms/source/export?users=yes');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('users') });
      expect((await request('GET', '/realms/source/export?people=true')).statusCode).toBe(400);
    });
  });

  describe('PUT /admin/realms/{realm}/import', () => {
    it('creates a realm from another\'s export, which then exports the same document (201, a summary of what it made)', async () => {
      const source = await exported('source', true);
      const response = await request('PUT', '/realms/copy/import', source);
      expect(response.statusCode, response.body).toBe(201);
      const summary = response.json() as Json & { sections: Record<string, Json> };
      expect(summary).toMatchObject({ realm: 'copy', realm_created: true, secrets_to_set: { clients: ['billing'], identity_providers: ['corp'] } });
      expect(summary.sections.clients).toEqual({ created: ['batch', 'billing', 'spa'], changed: [], deleted: [], unchanged: 0 });
      expect(summary.sections.scopes).toMatchObject({ created: ['orders:read', 'orders:write'], changed: ['profile'], unchanged: 2 });
      expect(summary.sections.users).toMatchObject({ created: ['alice', 'Bob'] });
      expect((await request('GET', '/realms/copy')).json()).toMatchObject({ issuer: 'https://auth.test/oauth2/copy' });
      expect((await request('GET', '/realms/copy/users/bob')).json()).toMatchObject({ enabled: false });
      expect((await request('GET', '/realms/copy/clients/batch')).json()).toMatchObject({ introspection_signed_response_alg: 'ES256' });

      expect(await exported('copy', true)).toEqual(asRealm(source, 'copy'));
    });

    it('changes nothing the second time: every section unchanged, no row written again', async () => {
      const source = await exported('source', true);
      await imported('again', source);
      const rowVersions = async () =>
        (
          await t.store.db.query<{ row: string }>(
            `SELECT 'realm ' || xmin::text AS row FROM realms WHERE name = $1
             UNION ALL SELECT 'scope ' || name || ' ' || xmin::text FROM scopes WHERE realm = $1
             UNION ALL SELECT 'client ' || client_id || ' ' || xmin::text || ' ' || updated_at::text FROM clients WHERE realm = $1
             UNION ALL SELECT 'user ' || username || ' ' || xmin::text || ' ' || updated_at::text FROM users WHERE realm = $1
             UNION ALL SELECT 'provider ' || alias || ' ' || xmin::text FROM identity_providers WHERE realm = $1
             UNION ALL SELECT 'issuer ' || issuer || ' ' || xmin::text FROM trusted_issuers WHERE realm = $1
             UNION ALL SELECT 'link ' || subject || ' ' || xmin::text FROM user_identities WHERE realm = $1
             UNION ALL SELECT 'key ' || kid || ' ' || xmin::text FROM signing_keys WHERE realm = $1
             UNION ALL SELECT 'role ' || name || ' ' || xmin::text FROM roles WHERE realm = $1
             UNION ALL SELECT 'group ' || name || ' ' || xmin::text FROM groups WHERE realm = $1
             UNION ALL SELECT 'group role ' || group_name || ' ' || role || ' ' || xmin::text FROM group_roles WHERE realm = $1
             UNION ALL SELECT 'user role ' || role || ' ' || xmin::text FROM user_roles WHERE realm = $1
             UNION ALL SELECT 'user group ' || group_name || ' ' || xmin::text FROM user_groups WHERE realm = $1
             UNION ALL SELECT 'resource ' || identifier || ' ' || xmin::text || ' ' || updated_at::text FROM resources WHERE realm = $1
             ORDER BY 1`,
            ['again'],
          )
        ).rows.map((row) => row.row);
      const before = await rowVersions();
      const events = async () => (await request('GET', '/realms/again/events?limit=100')).json() as { events: Json[] };
      const eventsBefore = (await events()).events.length;

      const response = await request('PUT', '/realms/again/import', source);
      expect(response.statusCode, response.body).toBe(200);
      const summary = response.json() as { realm_created: boolean; sections: Record<string, { created: string[]; changed: string[]; deleted: string[]; unchanged: number }> };
      expect(summary.realm_created).toBe(false);
      expect(Object.keys(summary.sections).sort()).toEqual(['clients', 'groups', 'identity_providers', 'journeys', 'resources', 'roles', 'scopes', 'settings', 'texts', 'trusted_issuers', 'users']);
      for (const [section, done] of Object.entries(summary.sections)) {
        expect({ section, ...done }).toEqual({ section, created: [], changed: [], deleted: [], unchanged: expect.any(Number) });
      }
      expect(summary.sections.clients!.unchanged).toBe(3);
      expect(summary.sections.users!.unchanged).toBe(2);
      expect(summary.sections.resources!.unchanged).toBe(2);
      expect(await rowVersions()).toEqual(before);
      // The import itself is one audit event, which says it changed nothing.
      const after = (await events()).events;
      expect(after.length).toBe(eventsBefore + 1);
      expect(after[0]).toMatchObject({ type: 'realm.imported', details: { realm_created: false, created: 0, changed: 0, deleted: 0 } });

      // The source realm, given its own document, changes nothing either.
      const own = await imported('source', await exported('source', true));
      for (const done of Object.values(own.sections)) expect(done).toMatchObject({ created: [], changed: [], deleted: [] });
    });

    it('brings people with their password hashes and subs: they sign in with the same password; clients wait for their secret', async () => {
      await imported('people', await exported('source', true));
      // A confidential client has no secret after an import: it authenticates once one is rotated in.
      const refused = await postForm(t.app, `${realmPath('people')}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic('billing', 'anything') });
      expect(refused.statusCode).toBe(401);
      const rotated = await request('POST', '/realms/people/clients/billing/secret');
      expect(rotated.statusCode).toBe(200);
      const client = { clientId: 'billing', secret: (rotated.json() as { client_secret: string }).client_secret };

      const signedIn = await passwordGrant(t.app, 'people', client, { username: 'alice', password: 'correct horse battery staple' }, { scope: 'openid' });
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      const idToken = JSON.parse(Buffer.from((signedIn.json() as { id_token: string }).id_token.split('.')[1]!, 'base64url').toString()) as Json;
      expect(idToken).toMatchObject({ sub: alice.sub, iss: 'https://auth.test/oauth2/people' });
      // Her roles came with her, and the scope's claims that carry them.
      const withRoles = await passwordGrant(t.app, 'people', client, { username: 'alice', password: 'correct horse battery staple' }, { scope: 'openid orders:read' });
      const rolesClaim = JSON.parse(Buffer.from((withRoles.json() as { id_token: string }).id_token.split('.')[1]!, 'base64url').toString()) as Json;
      expect(rolesClaim.roles).toEqual(['invoice-approver', 'viewer']);
      expect((await request('GET', '/realms/people/users/alice')).json()).toMatchObject({ roles: ['viewer'], groups: ['accounting'] });
      expect((await passwordGrant(t.app, 'people', client, { username: 'alice', password: 'not her password' })).statusCode).toBe(400);
      // Bob came disabled, and signs in once a document says he is enabled.
      const bob = { username: 'Bob', password: 'pw-Bob-0123456789' };
      expect((await passwordGrant(t.app, 'people', client, bob)).statusCode).toBe(400);
      const document = await exported('people', true);
      const enabled = await imported('people', { users: (document.users as Json[]).map((user) => ({ ...user, enabled: true })) });
      expect(enabled.sections.users).toMatchObject({ changed: ['Bob'], unchanged: 1 });
      expect((await passwordGrant(t.app, 'people', client, bob)).statusCode).toBe(200);
      // What the person enrolled is not brought: no one-time-code secret, so none is asked for or known.
      const enrolled = await t.store.db.query('SELECT 1 FROM user_totp WHERE realm = $1', ['people']);
      expect(enrolled.rows).toEqual([]);
    });

    it('brings an identity provider without its secret: it sends nothing upstream until one is set', async () => {
      await imported('upstream', await exported('source'));
      const clientId = await appClient(t, 'upstream');
      const hits = upstreamHits;
      const { response } = await startAtProvider(new TestBrowser(t.app, t.baseUrl), 'upstream', clientId, 'corp');
      expect(response.statusCode).toBe(502);
      expect(response.body).toMatch(/cannot be reached/);
      expect(upstreamHits).toBe(hits);
      // Once an admin sets the secret, the provider is asked for its discovery document.
      expect((await request('PATCH', '/realms/upstream/identity-providers/corp', { client_secret: 'a new secret' })).statusCode).toBe(200);
      await startAtProvider(new TestBrowser(t.app, t.baseUrl), 'upstream', clientId, 'corp');
      expect(upstreamHits).toBeGreaterThan(hits);
      const summary = await imported('upstream', { identity_providers: (await exported('upstream')).identity_providers });
      expect(summary.secrets_to_set).toEqual({ clients: [], identity_providers: [] });
    });

    it('sets a provider\'s secret the document brings, and does not write it again when it is the same', async () => {
      const providers = ((await exported('source')).identity_providers as Json[]).map((provider) => ({ ...provider, client_secret: 'secret from the pipeline' }));
      const first = await imported('with-secret', { identity_providers: providers });
      expect(first).toMatchObject({ realm_created: true, sections: { identity_providers: { created: ['corp'] } }, secrets_to_set: { identity_providers: [] } });
      expect((await imported('with-secret', { identity_providers: providers })).sections.identity_providers).toMatchObject({ changed: [], unchanged: 1 });
      const replaced = await imported('with-secret', { identity_providers: providers.map((provider) => ({ ...provider, client_secret: 'rotated upstream' })) });
      expect(replaced.sections.identity_providers).toMatchObject({ changed: ['corp'] });
      expect(JSON.stringify(await exported('with-secret'))).not.toContain('rotated upstream');
    });

    it('changes what differs: a client, a setting, a scope\'s text, a person\'s claims; the rest is left alone', async () => {
      await imported('edit', await exported('source', true));
      const document = await exported('edit', true);
      const clients = (document.clients as Json[]).map((client) => (client.client_id === 'spa' ? { ...client, client_name: 'The shop' } : client));
      const users = (document.users as Json[]).map((user) =>
        user.username === 'Bob' ? { ...user, claims: { department: { name: 'Support' } }, roles: ['invoice-approver'] } : user.username === 'alice' ? { ...user, groups: [], enabled: false } : user,
      );
      const summary = await imported('edit', {
        ...document,
        settings: { ...(document.settings as Json), access_token_lifetime: 600 },
        scopes: (document.scopes as Json[]).map((scope) => (scope.name === 'orders:read' ? { ...scope, description: 'See your orders' } : scope)),
        groups: [{ name: 'accounting', description: 'Accounts payable', roles: ['invoice-approver'] }],
        clients,
        users,
      });
      expect(summary.sections).toMatchObject({
        settings: { changed: ['access_token_lifetime'] },
        scopes: { created: [], changed: ['orders:read'], unchanged: 4 },
        clients: { created: [], changed: ['spa'], unchanged: 2 },
        groups: { created: [], changed: ['accounting'], unchanged: 0 },
        users: { created: [], changed: ['alice', 'Bob'], unchanged: 0 },
        journeys: { changed: [], unchanged: 1 },
      });
      expect((await request('GET', '/realms/edit/clients/spa')).json()).toMatchObject({ client_name: 'The shop', journey: 'strong' });
      expect((await request('GET', '/realms/edit/users/bob')).json()).toMatchObject({ claims: { department: { name: 'Support' } }, roles: ['invoice-approver'], groups: [] });
      expect((await request('GET', '/realms/edit/users/alice')).json()).toMatchObject({ enabled: false, roles: ['viewer'], groups: [], effective_roles: ['viewer'] });
      expect((await request('GET', '/realms/edit/groups/accounting')).json()).toEqual({ name: 'accounting', description: 'Accounts payable', roles: ['invoice-approver'] });
      expect((await request('GET', '/realms/edit')).json()).toMatchObject({ settings: { access_token_lifetime: 600, require_pkce: true } });
    });

    it('keeps what the document leaves out, unless ?prune=true, which never deletes a built-in scope or a section the document does not have', async () => {
      await imported('trim', await exported('source', true));
      const document = await exported('trim', true);
      const smaller = {
        scopes: (document.scopes as Json[]).filter((scope) => scope.name !== 'orders:write' && scope.name !== 'email'),
        clients: (document.clients as Json[]).filter((client) => client.client_id === 'billing'),
        users: (document.users as Json[]).filter((user) => user.username === 'alice').map((user) => ({ ...user, roles: [] })),
        roles: (document.roles as Json[]).filter((role) => role.name === 'invoice-approver'),
      };
      const kept = await imported('trim', smaller);
      expect(kept.sections).toMatchObject({ clients: { deleted: [], unchanged: 1 }, users: { deleted: [] }, scopes: { deleted: [] } });
      expect((await request('GET', '/realms/trim/clients/spa')).statusCode).toBe(200);

      const pruned = await imported('trim', smaller, '?prune=true');
      expect(pruned.sections).toMatchObject({ clients: { deleted: ['batch', 'spa'] }, users: { deleted: ['Bob'] }, scopes: { deleted: ['orders:write'] }, roles: { deleted: ['viewer'] } });
      // A deleted role leaves every group that gave it, as the admin API's deletion of a role does.
      expect((await request('GET', '/realms/trim/groups/accounting')).json()).toMatchObject({ roles: ['invoice-approver'] });
      expect(pruned.sections).not.toHaveProperty('journeys');
      expect((await request('GET', '/realms/trim/clients/spa')).statusCode).toBe(404);
      expect((await request('GET', '/realms/trim/users/bob')).statusCode).toBe(404);
      expect((await request('GET', '/realms/trim/scopes/email')).statusCode).toBe(200);
      expect((await request('GET', '/realms/trim/journeys/strong')).statusCode).toBe(200);
      expect(((await request('GET', '/realms/trim/trusted-issuers')).json() as Json[]).length).toBe(2);
    });

    it('registers and changes the resources it describes (a field left out is none), deletes the others only with prune, and never prunes a scope a kept resource lists', async () => {
      const orders = 'https://orders.example.com/api';
      await imported('apis', await exported('source'));
      const changed = await imported('apis', { resources: [{ identifier: orders, scopes: ['orders:read', 'orders:write'] }, { identifier: 'https://billing.example.com/' }] });
      expect(changed.sections.resources).toEqual({ created: ['https://billing.example.com/'], changed: [orders], deleted: [], unchanged: 0 });
      expect((await request('GET', `/realms/apis/resources?identifier=${encodeURIComponent(orders)}`)).json()).toEqual({ identifier: orders, scopes: ['orders:read', 'orders:write'] });
      expect(((await request('GET', '/realms/apis/resources')).json() as Json[]).map((resource) => resource.identifier)).toEqual([
        'https://billing.example.com/', orders, 'https://reports.example.com/',
      ]);
      const pruned = await imported('apis', { resources: [{ identifier: 'https://billing.example.com/' }] }, '?prune=true');
      expect(pruned.sections.resources).toEqual({ created: [], changed: [], deleted: [orders, 'https://reports.example.com/'], unchanged: 1 });
      expect((await request('GET', '/realms/apis/resources')).json()).toEqual([{ identifier: 'https://billing.example.com/' }]);

      await imported('apis-scopes', { scopes: [{ name: 'a', description: 'A' }, { name: 'b', description: 'B' }], resources: [{ identifier: 'https://x.example/', scopes: ['b'] }] });
      const refused = await request('PUT', '/realms/apis-scopes/import?prune=true', { scopes: [{ name: 'a', description: 'A' }] });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'invalid_request', error_description: 'scopes: the resource "https://x.example/", which the document leaves in the realm, lists b' });
      expect((await request('GET', '/realms/apis-scopes/scopes/b')).statusCode).toBe(200);
    });

    it('prunes only what nothing left in the realm names: a scope a kept client uses is refused, naming it', async () => {
      await imported('keep-refs', await exported('source'));
      const refused = await request('PUT', '/realms/keep-refs/import?prune=true', { scopes: [{ name: 'orders:read', description: 'x' }] });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/^scopes: the client "(batch|spa)", which the document leaves in the realm, uses orders:write/) });
      const journey = await request('PUT', '/realms/keep-refs/import?prune=true', { journeys: {} });
      expect(journey.statusCode).toBe(400);
      expect((journey.json() as Json).error_description).toMatch(/^settings\.acr_journeys: "urn:example:strong" names the journey "strong"/);
    });

    it('leaves other realms alone: the source is unchanged by imports of its document, and each realm has only its own', async () => {
      const before = await exported('source', true);
      await imported('isolated', before);
      await imported('isolated', { clients: [{ client_id: 'only-here', client_type: 'public', redirect_uris: ['https://x.example/cb'] }], users: [{ username: 'carol' }] });
      expect(await exported('source', true)).toEqual(before);
      expect((await request('GET', '/realms/source/clients/only-here')).statusCode).toBe(404);
      expect((await request('GET', '/realms/source/users/carol')).statusCode).toBe(404);
      // The same sub in two realms is two people: each realm's own.
      const isolated = await exported('isolated', true);
      expect((isolated.users as Json[]).find((user) => user.username === 'alice')?.sub).toBe(alice.sub);
      expect((await request('DELETE', '/realms/isolated/users/alice')).statusCode).toBe(204);
      expect((await request('GET', '/realms/source/users/alice')).statusCode).toBe(200);
    });

    it('records one realm.imported audit event with what it did, and an export as realm.exported', async () => {
      await imported('audited', { scopes: [{ name: 'a', description: 'A' }], users: [{ username: 'dan', claims: { name: 'Dan' } }] });
      await exported('audited', true);
      const events = ((await request('GET', '/realms/audited/events?limit=10')).json() as { events: Json[] }).events;
      expect(events.map((event) => event.type)).toEqual(['realm.exported', 'realm.imported']);
      expect(events[1]!.details).toEqual({ realm_created: true, prune: false, created: 2, changed: 0, deleted: 0 });
      expect(events[0]!.details).toEqual({ users: true });
    });
  });

  describe('a bad document', () => {
    const realmRows = async (realm: string) =>
      (await t.store.db.query<{ n: number }>('SELECT ((SELECT count(*) FROM realms WHERE name = $1) + (SELECT count(*) FROM clients WHERE realm = $1) + (SELECT count(*) FROM users WHERE realm = $1))::int AS n', [realm])).rows[0]!.n;

    async function expectRefused(realm: string, document: unknown, description: RegExp | string, query = '') {
      const before = (await request('GET', `/realms/${realm}`)).statusCode === 200 ? await exported(realm, true) : undefined;
      const response: LightMyRequestResponse = await request('PUT', `/realms/${realm}/import${query}`, document);
      expect(response.statusCode, response.body).toBe(400);
      const body = response.json() as Json;
      expect(body.error).toBe('invalid_request');
      if (typeof description === 'string') expect(body.error_description).toBe(description);
      else expect(body.error_description).toMatch(description);
      if (before) expect(await exported(realm, true)).toEqual(before);
      else expect(await realmRows(realm)).toBe(0);
    }

    let good: Document;
    beforeAll(async () => {
      good = await exported('source', true);
      await imported('target', good);
    });

    const withClient = (index: number, change: Json) => ({ ...good, clients: (good.clients as Json[]).map((client, at) => (at === index ? { ...client, ...change } : client)) });
    const withUser = (index: number, change: Json) => ({ ...good, users: (good.users as Json[]).map((user, at) => (at === index ? { ...user, ...change } : user)) });

    it('is 400 naming the path of the bad field, and changes nothing, in an existing realm or a new one', async () => {
      for (const realm of ['target', 'never-made']) {
        await expectRefused(realm, withClient(2, { redirect_uris: ['not-a-uri'] }), /^clients\.2\.redirect_uris\.0: must be an absolute URI/);
        await expectRefused(realm, withClient(1, { client_type: 'public' }), /^clients\.1\.token_endpoint_auth_method: a public client authenticates with "none"/);
        await expectRefused(realm, withClient(0, { scope: 'orders:write payroll' }), 'clients.0.scope: not defined in this realm: payroll');
        await expectRefused(realm, withClient(2, { journey: 'missing' }), 'clients.2.journey: the realm has no journey "missing"');
        await expectRefused(realm, { ...good, clients: [...(good.clients as Json[]), (good.clients as Json[])[0]] }, 'clients.3: the same client_id as clients.0');
        await expectRefused(realm, withUser(0, { password_hash: 'plain text' }), /^users\.0\.password_hash: must be an argon2 hash/);
        // Every sign-in of the person would hold a thread of argon2's pool for seconds.
        const hashWith = (parameters: string) => ((good.users as Json[])[0]!.password_hash as string).replace(/m=\d+,t=\d+,p=\d+/, parameters);
        await expectRefused(realm, withUser(0, { password_hash: hashWith('m=19456,t=200,p=1') }), 'users.0.password_hash: the password hash of "alice" asks more of argon2 than m=262144, t=10, p=8 allow (t=200 > 10)');
        await expectRefused(realm, withUser(1, { password_hash: hashWith('m=262145,t=2,p=9') }), /^users\.1\.password_hash: the password hash of "Bob" .*\(m=262145 > 262144, p=9 > 8\)$/);
        await expectRefused(realm, withUser(1, { claims: { sub: 'someone else' } }), /^users\.1\.claims\.sub: is set by the server/);
        await expectRefused(realm, withUser(0, { identities: [{ provider: 'elsewhere', subject: 'x' }] }), 'users.0.identities.0.provider: the realm has no identity provider "elsewhere"');
        await expectRefused(realm, withUser(1, { username: 'ALICE' }), 'users.1: the same username (ignoring case) as users.0');
        await expectRefused(realm, withUser(1, { roles: ['viewer', 'auditor'] }), 'users.1.roles: no such role in the realm: auditor');
        await expectRefused(realm, withUser(0, { groups: ['sales'] }), 'users.0.groups: no such group in the realm: sales');
        await expectRefused(realm, { ...good, groups: [{ name: 'accounting', roles: ['auditor'] }] }, 'groups.0.roles: no such role in the realm: auditor');
        await expectRefused(realm, { ...good, scopes: [{ name: 'orders:read', description: 'x', claims: [{ name: 'sub', source: 'username', tokens: ['id_token'] }] }] }, /^scopes\.0\.claims\.0\.name: is set by the server/);
        await expectRefused(realm, { ...good, journeys: { strong: { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'nowhere' } } } } } }, /^journeys\.strong: node "pw"/);
        await expectRefused(realm, { ...good, settings: { colour: 'blue' } }, /^settings: /);
        await expectRefused(realm, { ...good, settings: { access_token_lifetime: -1 } }, /^settings\.access_token_lifetime: /);
        await expectRefused(realm, { ...good, settings: { self_registration: true } }, /^settings\.self_registration: needs outgoing mail/);
        await expectRefused(realm, { ...good, trusted_issuers: [{ kind: 'jwt', issuer: 'https://keyless.example' }] }, 'trusted_issuers.0.jwks: give jwks or jwks_uri, exactly one');
        await expectRefused(realm, { ...good, resources: [{ identifier: 'https://payroll.example/', scopes: ['payroll'] }] }, 'resources.0.scopes: not defined in this realm: payroll');
        await expectRefused(realm, { ...good, resources: [{ identifier: 'https://payroll.example/#api' }] }, /^resources\.0\.identifier: must be an absolute URI without a fragment/);
        await expectRefused(realm, { ...good, resources: [{ identifier: 'payroll' }] }, /^resources\.0\.identifier: must be an absolute URI/);
        await expectRefused(realm, { ...good, resources: [{ identifier: 'https://a.example/' }, { identifier: 'https://a.example/' }] }, 'resources.1: the same identifier as resources.0');
        await expectRefused(realm, { ...good, identity_providers: [{ alias: 'corp', kind: 'oidc', issuer: 'ftp://corp.example', client_id: 'x' }] }, /^identity_providers\.0\.issuer: must be an https URL/);
        await expectRefused(realm, withClient(1, { client_name: 'Bill\0ing' }), 'clients.1.client_name: holds a NUL character');
        await expectRefused(realm, { ...good, colour: 'blue' }, /^body: .*colour|^: |Unrecognized key/);
        await expectRefused(realm, { ...good, version: 2 }, /^version: /);
        await expectRefused(realm, [good], /^body: /);
      }
    });

    it('keeps a person\'s sub: one that differs from theirs, or is another person\'s, is refused', async () => {
      const otherSub = '00000000-0000-4000-8000-000000000001';
      await expectRefused('target', withUser(0, { sub: otherSub }), /^users\.0\.sub: the realm's person "alice" has another sub/);
      const bobsSub = (good.users as Json[])[1]!.sub;
      await expectRefused('target', { users: [{ username: 'eve', sub: bobsSub }] }, 'users.0.sub: another person of the realm ("Bob") has it');
    });

    it('refuses a new realm\'s name that is not a realm name', async () => {
      const response = await request('PUT', '/realms/Not_A_Name/import', {});
      expect(response.statusCode).toBe(400);
      expect((response.json() as Json).error_description).toMatch(/^realm: a realm name is/);
      expect(await realmRows('Not_A_Name')).toBe(0);
    });

    it('rolls back every write of an import that fails while writing, and the caches show what is committed', async () => {
      await imported('rollback', good);
      // Read through the caches first, so that they hold the realm as it is.
      const seen = await Promise.all(['', '/scopes', '/clients/spa', '/identity-providers'].map(async (path) => (await request('GET', `/realms/rollback${path}`)).json()));
      await failingAfterTheLastWrite(async () => {
        const changed = {
          ...good,
          settings: { ...(good.settings as Json), access_token_lifetime: 60 },
          scopes: [...(good.scopes as Json[]), { name: 'new-scope', description: 'New' }],
          clients: (good.clients as Json[]).map((client) => ({ ...client, client_name: 'Renamed' })),
          identity_providers: [{ ...(good.identity_providers as Json[])[0], display_name: 'Renamed' }],
        };
        const failed = await request('PUT', '/realms/rollback/import', changed);
        expect(failed.statusCode).toBe(500);
        const refusedNew = await request('PUT', '/realms/rollback-new/import', changed);
        expect(refusedNew.statusCode).toBe(500);
      });
      const after = await Promise.all(['', '/scopes', '/clients/spa', '/identity-providers'].map(async (path) => (await request('GET', `/realms/rollback${path}`)).json()));
      expect(after).toEqual(seen);
      expect(await realmRows('rollback-new')).toBe(0);
      expect((await request('GET', '/realms/rollback-new')).statusCode).toBe(404);
    });

    it('denies the JWTs of a password it changes only once the import commits: one rolled back denies nothing, on this instance as on the others', async () => {
      await t.admin.createRealm('denials', { stateless_tokens: true });
      // With a refresh token, the grant leaves a row that a password change denies the JWTs of.
      const created = await t.admin.createClient('denials', { grant_types: ['password', 'refresh_token'], scope: 'openid' });
      const client = { clientId: created.client_id, secret: created.client_secret as string };
      const carol = await createUser(t.admin, 'denials', 'carol');
      const granted = await passwordGrant(t.app, 'denials', client, carol, { scope: 'openid' });
      expect(granted.statusCode, granted.body).toBe(200);
      expect(granted.json().refresh_token).toEqual(expect.any(String));
      const jwt = granted.json().access_token as string;
      const active = async () => (await introspect(t.app, 'denials', client, jwt)).json().active;
      expect(await active()).toBe(true);

      const document = await exported('denials', true);
      const otherHash = (await exported('source', true)).users as Json[];
      const changed = { users: (document.users as Json[]).map((user) => ({ ...user, password_hash: otherHash[0]!.password_hash })) };
      await failingAfterTheLastWrite(async () => {
        expect((await request('PUT', '/realms/denials/import', changed)).statusCode).toBe(500);
      });
      expect(await active()).toBe(true);

      await imported('denials', changed);
      expect(await active()).toBe(false);
    });
  });
});
