import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';

/**
 * MASTER_KEY, or for the embedded store one generated into the data dir at first start
 * (in memory for `memory://`). With PostgreSQL the configuration already requires it.
 */
export function resolveMasterKey(config: Config): Buffer {
  if (config.masterKey) return config.masterKey;
  if (config.databaseUrl) throw new ConfigError('invalid configuration: MASTER_KEY: required with DATABASE_URL');
  if (config.dataDir === 'memory://') return randomBytes(32);
  const file = join(config.dataDir, 'master.key');
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (key.length !== 32) throw new ConfigError(`invalid configuration: MASTER_KEY: ${file} does not hold 32 bytes`);
  return key;
}
