import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AssembledApp, assembleApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import type { ClientJwks } from '../../src/client-auth/client-jwks.js';
import type { MetadataDocumentFetcher } from '../../src/clients/metadata-document-fetcher.js';
import type { SectorIdentifierFetcher } from '../../src/clients/sector-identifier.js';
import type { AdminPort } from '../../src/http/admin-port.js';
import type { PasswordHashing } from '../../src/authn/password-hashing.js';
import type { MailSettings } from '../../src/mail/settings.js';
import type { OutboxOptions } from '../../src/outbox/deliverer.js';
import type { CleanupOptions } from '../../src/store/cleanup.js';
import type { Store } from '../../src/store/index.js';
import type { KeyEncryption } from '../../src/tokens/key-encryption.js';
import { createPgDb } from '../../src/store/pg.js';
import type { Db } from '../../src/store/db.js';
import { type TestClock, testClock } from './clock.js';
import { createTestDb } from './store.js';
import { rootKeyPairs, testKeyPairs } from './realm-key-pairs.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const BASE_URL = 'https://auth.test';

/** Every rate limit of a realm off (src/records/realm-settings.ts), for tests that send many requests from one client or address. */
export const NO_RATE_LIMITS = {
  rate_limit_token: null,
  rate_limit_par: null,
  rate_limit_device: null,
  rate_limit_ciba: null,
  rate_limit_registration: null,
  rate_limit_sign_in: null,
  rate_limit_device_page: null,
  rate_limit_authorize: null,
} as const;

/**
 * argon2id's cheapest parameters (1 MiB, 1 pass, 1 lane; under a millisecond a hash, against
 * about 26 ms with PASSWORD_HASHING on these machines): what the test applications hash and
 * check passwords with, unless a test asks for the real cost (`passwordHashing: PASSWORD_HASHING`)
 * because the parameters are what it checks. Passed to buildApp as an option: no setting of a
 * deployment reaches it.
 */
export const TEST_PASSWORD_HASHING: PasswordHashing = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

export interface TestApp {
  app: FastifyInstance;
  /** The app's audit trail: tests flush it before they read the events of another instance or of the database. */
  audit: AssembledApp['audit'];
  /** The app's outbox: tests deliver it with `tick()`. */
  outbox: AssembledApp['outbox'];
  store: Store;
  /** The MASTER_KEY's encryption of the app's keys: for tests that sign as the realm does. */
  encryption: KeyEncryption;
  baseUrl: string;
  admin: AdminClient;
  close(): Promise<void>;
}

export interface TestAppOptions {
  baseUrl?: string;
  listen?: boolean;
  cleanup?: CleanupOptions;
  logger?: FastifyBaseLogger;
  clientJwks?: ClientJwks;
  /** The fetcher of clients' metadata documents, for tests whose documents a local HTTPS server serves. */
  metadataDocuments?: MetadataDocumentFetcher;
  /** `OUTBOUND_ALLOW`, for tests whose outbound fetches reach a local server. */
  outboundAllow?: readonly string[];
  /** The fetcher of clients' sector_identifier_uri documents, for tests whose documents a local HTTPS server serves. */
  sectorIdentifiers?: SectorIdentifierFetcher;
  /** `SMTP_URL` and `MAIL_FROM`: test/support/mail.ts's server settings. */
  mail?: MailSettings;
  /** `ADMIN_PORT`: the admin API and console on a listener of their own (not listening here). */
  adminPort?: AdminPort;
  /** The outbox's polling (logout tokens, CIBA notifications); off unless asked: tests call `outbox.tick()`. */
  outbox?: OutboxOptions;
  /** argon2id's cost: TEST_PASSWORD_HASHING unless the test checks the real one. */
  passwordHashing?: PasswordHashing;
  /** A clock the test moves, for the application and its database (test/support/clock.ts). */
  clock?: boolean;
}

/** The application on a fresh database, driven through `inject`; or listening, when asked. */
export async function startTestApp(options: TestAppOptions & { clock: true }): Promise<TestApp & { clock: TestClock }>;
export async function startTestApp(options?: TestAppOptions): Promise<TestApp>;
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp & { clock?: TestClock }> {
  const testDb = await createTestDb({ migrated: true, clock: options.clock ?? false });
  const { store, encryption, adminToken } = await prepare(testDb.db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN, keyPairs: rootKeyPairs() });
  const port = options.listen ? await freePort() : undefined;
  const baseUrl = options.baseUrl ?? (port ? `http://127.0.0.1:${port}` : BASE_URL);
  const { app, audit, outbox } = await assembleApp({
    config: {
      baseUrl,
      trustProxy: false,
      ...(options.outboundAllow ? { outboundAllow: options.outboundAllow } : {}),
      ...(options.mail ? { mail: options.mail } : {}),
    },
    store,
    encryption,
    adminTokenHash: adminToken.hash,
    cleanup: options.cleanup ?? false,
    outbox: options.outbox ?? false,
    passwordHashing: options.passwordHashing ?? TEST_PASSWORD_HASHING,
    keyPairs: testKeyPairs(),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clientJwks ? { clientJwks: options.clientJwks } : {}),
    ...(options.metadataDocuments ? { metadataDocuments: options.metadataDocuments } : {}),
    ...(options.sectorIdentifiers ? { sectorIdentifiers: options.sectorIdentifiers } : {}),
    ...(options.adminPort ? { adminPort: options.adminPort } : {}),
  });
  // The issuer derives from BASE_URL, so the port is chosen before the app is built.
  if (port) await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    audit,
    outbox,
    store,
    encryption,
    baseUrl,
    admin: new AdminClient(app),
    ...(options.clock ? { clock: testClock } : {}),
    async close() {
      await app.close();
      await testDb.dispose();
    },
  };
}

/** The admin API, as its callers use it. */
export class AdminClient {
  constructor(private readonly app: FastifyInstance) {}

  request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> {
    return this.app.inject({
      method,
      url: `/admin${url}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  }

  private async ok<T>(method: 'POST' | 'PUT' | 'PATCH', url: string, body: unknown): Promise<T> {
    const response = await this.request(method, url, body);
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as T;
  }

  createRealm(name: string, settings: Record<string, unknown> = {}) {
    return this.ok<{ name: string; issuer: string }>('POST', '/realms', { name, settings });
  }

  putScope(realm: string, name: string, description = `The ${name} scope`) {
    return this.ok('PUT', `/realms/${realm}/scopes/${encodeURIComponent(name)}`, { description });
  }

  createClient(realm: string, record: Record<string, unknown>) {
    return this.ok<{ client_id: string; client_secret?: string } & Record<string, unknown>>('POST', `/realms/${realm}/clients`, record);
  }

  /** A confidential client of the client credentials grant, with its scopes defined in the realm. */
  async serviceClient(realm: string, scope = '', extra: Record<string, unknown> = {}) {
    for (const name of scope.split(' ').filter(Boolean)) await this.putScope(realm, name);
    const client = await this.createClient(realm, { grant_types: ['client_credentials'], scope, ...extra });
    return { clientId: client.client_id, secret: client.client_secret as string };
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Two instances of the application over one database, as behind a load balancer: on
 * PostgreSQL each has its own pool (and so its own LISTEN connection); on PGlite they share
 * the one embedded database.
 */
export async function startTwoInstances(options: { baseUrl?: string; outboundAllow?: readonly string[] } = {}): Promise<{
  a: FastifyInstance;
  b: FastifyInstance;
  /** Each instance's audit trail and outbox, for tests that flush or deliver them. */
  services: { a: Omit<AssembledApp, 'app'>; b: Omit<AssembledApp, 'app'> };
  /** The database both share, as the first instance reaches it. */
  db: Db;
  close(): Promise<void>;
}> {
  const testDb = await createTestDb({ migrated: true });
  const masterKey = randomBytes(32);
  const first = await prepare(testDb.db, { masterKey, adminToken: ADMIN_TOKEN, keyPairs: rootKeyPairs() });
  const secondDb = testDb.databaseUrl ? createPgDb(testDb.databaseUrl, { searchPath: testDb.searchPath, poolSize: 2 }) : testDb.db;
  const second = await prepare(secondDb, { masterKey, adminToken: ADMIN_TOKEN });
  const config = { baseUrl: options.baseUrl ?? BASE_URL, trustProxy: false as const, ...(options.outboundAllow ? { outboundAllow: options.outboundAllow } : {}) };
  const passwordHashing = TEST_PASSWORD_HASHING;
  const keyPairs = testKeyPairs(); // one database: one source for both
  const { app: a, ...servicesOfA } = await assembleApp({ config, store: first.store, encryption: first.encryption, adminTokenHash: first.adminToken.hash, cleanup: false, outbox: false, passwordHashing, keyPairs });
  // On PGlite the second store is the first one's database: closing it is the first app's.
  const secondStore = testDb.databaseUrl ? second.store : { ...second.store, close: async () => {} };
  const { app: b, ...servicesOfB } = await assembleApp({ config, store: secondStore, encryption: second.encryption, adminTokenHash: second.adminToken.hash, cleanup: false, outbox: false, passwordHashing, keyPairs });
  return {
    a,
    b,
    services: { a: servicesOfA, b: servicesOfB },
    db: testDb.db,
    async close() {
      await b.close();
      await a.close();
      await testDb.dispose();
    },
  };
}
