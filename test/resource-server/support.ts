import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { type ResourceServerOptions, resourceServer } from '../../src/resource-server/index.js';
import { ADMIN_TOKEN, AdminClient, TEST_PASSWORD_HASHING, freePort } from '../support/app.js';
import { type TestClock, testClock } from '../support/clock.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';
import { createTestDb } from '../support/store.js';
import { testKeyPairs } from '../support/realm-key-pairs.js';
import { type TestUser, createUser } from '../support/users.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

export interface AuthorizationServer {
  app: FastifyInstance;
  admin: AdminClient;
  baseUrl: string;
  /** The port of the second instance over HTTPS, when asked for (`tls`). */
  tlsPort: number | undefined;
  close(): Promise<void>;
}

export interface AuthorizationServerOptions {
  tls?: { key: string; cert: string };
  /** A clock the test moves, for the server, its database and the APIs in this process (test/support/clock.ts). */
  clock?: boolean;
}

/**
 * realmgate listening on a port of 127.0.0.1, as the APIs of these tests reach it: over HTTP.
 * With `tls`, a second instance on the same store and BASE_URL (as behind a load balancer)
 * serves HTTPS and asks for client certificates, so that clients can get tokens bound to
 * theirs over mutual TLS (RFC 8705) while the APIs keep reading the first instance.
 */
export async function startAuthorizationServer(options: AuthorizationServerOptions & { clock: true }): Promise<AuthorizationServer & { clock: TestClock }>;
export async function startAuthorizationServer(options?: AuthorizationServerOptions): Promise<AuthorizationServer>;
export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer & { clock?: TestClock }> {
  const testDb = await createTestDb({ migrated: true, clock: options.clock ?? false });
  const { store, encryption, adminToken } = await prepare(testDb.db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const deps = { config: { baseUrl, trustProxy: false as const }, encryption, adminTokenHash: adminToken.hash, cleanup: false as const, passwordHashing: TEST_PASSWORD_HASHING, keyPairs: testKeyPairs() };
  const app = await buildApp({ ...deps, store });
  await app.listen({ port, host: '127.0.0.1' });
  // The store is the first instance's to close.
  const tls = options.tls
    ? await buildApp({ ...deps, store: { ...store, close: async () => {} }, https: { ...options.tls, requestCert: true, rejectUnauthorized: false } })
    : undefined;
  await tls?.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    admin: new AdminClient(app),
    baseUrl,
    tlsPort: tls ? (tls.server.address() as AddressInfo).port : undefined,
    ...(options.clock ? { clock: testClock } : {}),
    async close() {
      await tls?.close();
      await app.close();
      await testDb.dispose();
    },
  };
}

/** A realm of the authorization server with the clients and the person the tests use. */
export interface Realm {
  name: string;
  issuer: string;
  /** Client credentials, scope `orders:read orders:write`. */
  service: ServiceClient;
  /** Client credentials, scope `orders:read` only. */
  reader: ServiceClient;
  /** The API's own client: it introspects any token of the realm. */
  api: ServiceClient;
  /** Password and refresh token grants and token exchange, scope `openid orders:read`; may ask for the audience `orders-api`. */
  app: ServiceClient;
  alice: TestUser;
}

export async function createRealm(as: AuthorizationServer, settings: Record<string, unknown> = {}): Promise<Realm> {
  const name = `rs-${randomBytes(4).toString('hex')}`;
  await as.admin.createRealm(name, settings);
  const client = async (record: Record<string, unknown>): Promise<ServiceClient> => {
    const created = await as.admin.createClient(name, record);
    return { clientId: created.client_id, secret: created.client_secret as string };
  };
  const service = await as.admin.serviceClient(name, 'orders:read orders:write');
  return {
    name,
    issuer: `${as.baseUrl}${realmPath(name)}`,
    service,
    reader: await client({ grant_types: ['client_credentials'], scope: 'orders:read' }),
    api: await client({ grant_types: [], introspect_any_token: true }),
    app: await client({
      grant_types: ['password', 'refresh_token', TOKEN_EXCHANGE],
      scope: 'openid orders:read',
      introspect_any_token: true,
      allowed_audiences: ['orders-api'],
    }),
    alice: await createUser(as.admin, name, 'alice'),
  };
}

/** A token response of the realm's token endpoint; anything but 200 throws. */
export async function tokens(
  as: AuthorizationServer,
  realm: Realm,
  client: ServiceClient,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ access_token: string; refresh_token?: string; id_token?: string }> {
  const response = await postForm(as.app, `${realmPath(realm.name)}/access_token`, form, { authorization: basic(client.clientId, client.secret), ...headers });
  if (response.statusCode !== 200) throw new Error(`token: ${response.statusCode} ${response.body}`);
  return response.json();
}

export const serviceToken = async (as: AuthorizationServer, realm: Realm, client = realm.service, scope?: string): Promise<string> =>
  (await tokens(as, realm, client, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) })).access_token;

export async function revoke(as: AuthorizationServer, realm: Realm, client: ServiceClient, token: string): Promise<void> {
  const response = await postForm(as.app, `${realmPath(realm.name)}/token/revoke`, { token }, { authorization: basic(client.clientId, client.secret) });
  if (response.statusCode !== 200) throw new Error(`revoke: ${response.statusCode} ${response.body}`);
}

/**
 * A small API protected by the plugin: `GET /orders` needs `orders:read`, `POST /orders`
 * `orders:write` (by route config), `GET /me` any valid token; each answers the token's claims.
 */
export async function startApi(options: Omit<ResourceServerOptions, 'resource'> & { resource?: string }): Promise<FastifyInstance> {
  const api = Fastify();
  await api.register(resourceServer, withResource(options));
  api.get('/orders', { onRequest: api.requireToken({ scope: 'orders:read' }) }, async (request) => ({ orders: [], token: request.token }));
  api.post('/orders', { config: { requireToken: { scope: ['orders:write'] } } }, async (request) => ({ created: true, token: request.token }));
  api.get('/me', { preHandler: api.requireToken() }, async (request) => ({ token: request.token }));
  api.get('/public', async (request) => ({ token: request.token }));
  await api.ready();
  return api;
}

/** What the tests' APIs are called when a test names no resource of its own: light-my-request's Host. */
export const DEFAULT_RESOURCE = 'http://localhost';

/**
 * The options with a resource (the plugin requires one): a test about something else names
 * none, and its API answers to DEFAULT_RESOURCE and, as its `audience` says or else the issuer,
 * to the tokens asked for no resource, which name the issuer.
 */
export function withResource(options: Omit<ResourceServerOptions, 'resource'> & { resource?: string }): ResourceServerOptions {
  if (options.resource !== undefined) return options as ResourceServerOptions;
  return { ...options, resource: DEFAULT_RESOURCE, audience: [DEFAULT_RESOURCE, ...[options.audience ?? options.issuer].flat()] };
}

/** A request to the API with this bearer token (or none). */
export function call(api: FastifyInstance, token: string | undefined, url = '/orders', method: 'GET' | 'POST' = 'GET'): Promise<LightMyRequestResponse> {
  return api.inject({ method, url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

/** For the resource server's cache of introspection answers, whose lifetime lru-cache counts with `performance.now()`, which the test clock does not move. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The parts of a `WWW-Authenticate: Bearer …` challenge. */
export function challenge(response: LightMyRequestResponse): Record<string, string> {
  const header = response.headers['www-authenticate'];
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) throw new Error(`no Bearer challenge: ${String(header)}`);
  return Object.fromEntries([...header.slice(7).matchAll(/([a-z_]+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!]));
}
