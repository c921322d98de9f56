import { randomUUID } from 'node:crypto';
import type { ClientCreateSchema as ClientCreateSchemaType } from '../../src/records/client.js';
import type { newClientMetadata as newClientMetadataFn } from '../../src/records/client-changes.js';
import type { Db } from '../../src/store/db.js';
import type { createPgDb as createPgDbFn } from '../../src/store/pg.js';
import type { insertRealm as insertRealmFn } from '../../src/store/realms.js';
import type { putScope as putScopeFn } from '../../src/store/scopes.js';
import type { KeyEncryption as KeyEncryptionClass } from '../../src/tokens/key-encryption.js';
import type { randomSecret as randomSecretFn, sha256 as sha256Fn } from '../../src/secrets.js';
import type { NewSigningKey, SIGNING_ALGS as SIGNING_ALGS_VALUE } from '../../src/records/signing-key.js';
import type {
  decryptSigningKey as decryptSigningKeyFn,
  generateSigningKey as generateSigningKeyFn,
} from '../../src/tokens/signing-keys.js';
import { log } from '../processes.js';
import { fromDist } from './server.js';
import type { ClientCredentials } from './token-rows.js';

/** The modules of the build that write what the admin API writes. */
async function storeModules() {
  const [pgModule, realms, scopes, encryption, keys, algs, record, recordChanges, hash] = await Promise.all([
    fromDist<{ createPgDb: typeof createPgDbFn }>('store/pg.js'),
    fromDist<{ insertRealm: typeof insertRealmFn }>('store/realms.js'),
    fromDist<{ putScope: typeof putScopeFn }>('store/scopes.js'),
    fromDist<{ KeyEncryption: typeof KeyEncryptionClass }>('tokens/key-encryption.js'),
    fromDist<{ generateSigningKey: typeof generateSigningKeyFn; decryptSigningKey: typeof decryptSigningKeyFn }>('tokens/signing-keys.js'),
    fromDist<{ SIGNING_ALGS: typeof SIGNING_ALGS_VALUE }>('records/signing-key.js'),
    fromDist<{ ClientCreateSchema: typeof ClientCreateSchemaType }>('records/client.js'),
    fromDist<{ newClientMetadata: typeof newClientMetadataFn }>('records/client-changes.js'),
    fromDist<{ randomSecret: typeof randomSecretFn; sha256: typeof sha256Fn }>('secrets.js'),
  ]);
  return { ...pgModule, ...realms, ...scopes, ...encryption, ...keys, ...algs, ...record, ...recordChanges, ...hash };
}

type Modules = Awaited<ReturnType<typeof storeModules>>;

/** The name of realm `n` of the bulk (1-based). */
export const bulkRealmName = (n: number): string => `scale-${String(n).padStart(5, '0')}`;

const REALMS_PER_TRANSACTION = 50;
const CLIENTS_PER_STATEMENT = 1000;
const CONCURRENCY = 4;

/**
 * The encryption context of a private signing key: src/tokens/signing-keys.ts binds the
 * ciphertext to its realm and key id. `checkKeys` proves the server decrypts what is written.
 */
const keyContext = (realm: string, kid: string): string => `signing-key:${realm}:${kid}`;

/**
 * Signing keys for `realm` as the admin API stores them (an RS256 and an ES256 key, the
 * private JWK encrypted with MASTER_KEY for this realm and kid), except that every realm of
 * the bulk gets the same two key pairs: 10,000 RSA key generations would take the machine
 * a quarter of an hour, and the token endpoint under test signs nothing with opaque tokens.
 */
async function keyTemplates(m: Modules, encryption: KeyEncryptionClass) {
  const templates = await Promise.all(
    m.SIGNING_ALGS.map(async (alg) => {
      const key = await m.generateSigningKey('template', alg, encryption);
      return { key, privateJwk: encryption.decrypt(key.privateJwkEncrypted, keyContext('template', key.kid)) };
    }),
  );
  return (realm: string): NewSigningKey[] =>
    templates.map(({ key, privateJwk }) => ({ ...key, privateJwkEncrypted: encryption.encrypt(privateJwk, keyContext(realm, key.kid)) }));
}

async function inParallel<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * Realms 1..`count` (`scale-00001`…), each with `clientsPerRealm` confidential clients of the
 * client credentials grant, written with the build's store module: realms through
 * `insertRealm` (the realm row, its built-in scopes and signing keys, as POST /admin/realms)
 * plus the scope `api` (as PUT …/scopes/api), in transactions of 50 realms; clients as POST
 * …/clients makes them (metadata from the same schema and defaults, a random UUID as id, the
 * SHA-256 of a random secret), a thousand rows per INSERT. Returns every client's credentials.
 */
export async function createBulkRealms(
  databaseUrl: string,
  masterKey: string,
  options: { count: number; clientsPerRealm: number; settings: Record<string, unknown> },
): Promise<{ clients: ClientCredentials[]; seconds: number }> {
  const started = performance.now();
  const m = await storeModules();
  const encryption = new m.KeyEncryption(Buffer.from(masterKey, 'base64url'));
  const keysFor = await keyTemplates(m, encryption);
  const db: Db = m.createPgDb(databaseUrl, { poolSize: CONCURRENCY });
  try {
    const names = Array.from({ length: options.count }, (_, i) => bulkRealmName(i + 1));
    let done = 0;
    await inParallel(chunks(names, REALMS_PER_TRANSACTION), CONCURRENCY, async (batch) => {
      await db.transaction(async (tx) => {
        for (const name of batch) {
          if (!(await m.insertRealm(tx, name, options.settings, keysFor(name)))) throw new Error(`realm ${name} exists`);
          await m.putScope(tx, name, 'api', 'API');
        }
      });
      done += batch.length;
      if (done % 2000 === 0) log(`realms ${done} of ${options.count}`);
    });
    await checkKeys(m, db, encryption, names[names.length - 1]!);

    const { client_id: _none, ...input } = m.ClientCreateSchema.parse({ grant_types: ['client_credentials'], scope: 'api' });
    const record = JSON.stringify(m.newClientMetadata(input));
    const clients: ClientCredentials[] = names.flatMap((realm) =>
      Array.from({ length: options.clientsPerRealm }, () => ({ realm, clientId: randomUUID(), clientSecret: m.randomSecret() })),
    );
    await inParallel(chunks(clients, CLIENTS_PER_STATEMENT), CONCURRENCY, async (batch) => {
      await db.query(
        `INSERT INTO clients (realm, client_id, client_secret_hash, record)
         SELECT realm, client_id, decode(secret_hash, 'hex'), $4::jsonb FROM unnest($1::text[], $2::text[], $3::text[]) AS c(realm, client_id, secret_hash)`,
        [batch.map((c) => c.realm), batch.map((c) => c.clientId), batch.map((c) => m.sha256(c.clientSecret).toString('hex')), record],
      );
    });
    return { clients, seconds: (performance.now() - started) / 1000 };
  } finally {
    await db.close();
  }
}

/** The server reads the keys written for a realm of the bulk: each decrypts in that realm. */
async function checkKeys(m: Modules, db: Db, encryption: KeyEncryptionClass, realm: string): Promise<void> {
  const { rows } = await db.query<{ kid: string; alg: string; private_jwk_encrypted: Buffer }>(
    'SELECT kid, alg, private_jwk_encrypted FROM signing_keys WHERE realm = $1',
    [realm],
  );
  if (rows.length !== m.SIGNING_ALGS.length) throw new Error(`realm ${realm} has ${rows.length} signing keys`);
  for (const row of rows) {
    await m.decryptSigningKey(realm, { kid: row.kid, alg: row.alg, privateJwkEncrypted: Buffer.from(row.private_jwk_encrypted) }, encryption);
  }
}
