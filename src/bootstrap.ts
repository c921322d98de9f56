import type { Logger } from 'pino';
import { type AdminToken, resolveAdminToken } from './admin/admin-token.js';
import { type FirstAdministratorOutcome, makeFirstAdministrator } from './admin/first-administrator.js';
import { type Config, ConfigError, type FirstAdministrator } from './config.js';
import { ROOT_REALM } from './records/realm-names.js';
import { PASSWORD_HASHING, type PasswordHashing } from './authn/password-hashing.js';
import type { Db } from './store/db.js';
import { type Store, createStore } from './store/index.js';
import { migrate } from './store/migrate.js';
import { createPgDb } from './store/pg.js';
import { createPgliteDb } from './store/pglite.js';
import { insertRealm } from './store/realms.js';
import { KeyEncryption } from './tokens/key-encryption.js';
import { type KeyPairSource, decryptSigningKey, generateRealmKeys, newKeyPair } from './tokens/signing-keys.js';

export function openDb(config: Config, logger?: Logger): Promise<Db> {
  return config.databaseUrl
    ? Promise.resolve(createPgDb(config.databaseUrl, logger ? { logger } : {}))
    : createPgliteDb(config.dataDir);
}

export interface Prepared {
  store: Store;
  encryption: KeyEncryption;
  adminToken: AdminToken;
  /** What `ADMIN_USER` and `ADMIN_PASSWORD` did, when they were given. */
  firstAdministrator?: FirstAdministratorOutcome;
}

/**
 * Makes a database ready to serve: migrations applied, the root realm present with its
 * keys, MASTER_KEY checked against them, the admin token known, and the first administrator
 * made when asked and none is there yet.
 */
export async function prepare(
  db: Db,
  options: {
    masterKey: Buffer;
    adminToken: string | undefined;
    firstAdministrator?: FirstAdministrator | undefined;
    logger?: Logger;
    /** argon2id's cost for the first administrator's password: the server's (AppDeps.passwordHashing). */
    passwordHashing?: PasswordHashing;
    /** Where the root realm's key pairs come from, when it is made: generated afresh unless given (AppDeps.keyPairs). */
    keyPairs?: KeyPairSource;
  },
): Promise<Prepared> {
  const applied = await migrate(db);
  if (applied.length > 0) options.logger?.info({ migrations: applied }, 'migrations applied');
  const store = await createStore(db, options.logger);
  const encryption = new KeyEncryption(options.masterKey);
  await ensureRootRealm(store, encryption, options.keyPairs ?? newKeyPair);
  const adminToken = await resolveAdminToken(options.adminToken, store.serverState);
  if (!options.firstAdministrator) return { store, encryption, adminToken };
  const firstAdministrator = await makeFirstAdministrator(store, options.firstAdministrator, options.passwordHashing ?? PASSWORD_HASHING);
  return { store, encryption, adminToken, firstAdministrator };
}

async function ensureRootRealm(store: Store, encryption: KeyEncryption, keyPairs: KeyPairSource): Promise<void> {
  if (!(await store.realms.get(ROOT_REALM))) {
    const keys = await generateRealmKeys(ROOT_REALM, encryption, keyPairs);
    // Of instances starting together, one inserts; the others' keys are discarded.
    await store.db.transaction((tx) => insertRealm(tx, ROOT_REALM, {}, keys));
  }
  const [key] = await store.signingKeys.current(ROOT_REALM);
  try {
    if (key) await decryptSigningKey(ROOT_REALM, key, encryption);
  } catch {
    throw new ConfigError('invalid configuration: MASTER_KEY: it does not decrypt the stored signing keys');
  }
}
