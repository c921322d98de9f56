#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { openDb, prepare } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { resolveMasterKey } from './tokens/master-key.js';

/** The process: configuration, logger, store, listening, and a graceful stop on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const masterKey = resolveMasterKey(config);
  const db = await openDb(config, logger);
  const { store, encryption, adminToken } = await prepare(db, { masterKey, adminToken: config.adminToken, logger });
  if (adminToken.generated) {
    // Printed once, outside the log: only its hash is stored.
    process.stdout.write(`\nrealmgate admin token (shown once, keep it safe): ${adminToken.generated}\n\n`);
  }

  const https = config.tls && {
    cert: readFileSync(config.tls.cert),
    key: readFileSync(config.tls.key),
    ...(config.tls.ca ? { ca: readFileSync(config.tls.ca) } : {}),
    // Mutual TLS client authentication: ask for a certificate, let the endpoint decide.
    requestCert: true,
    rejectUnauthorized: false,
  };
  const app = await buildApp({ config, store, encryption, adminTokenHash: adminToken.hash, logger, ...(https ? { https } : {}) });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing in-flight requests');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  logger.info({ baseUrl: config.baseUrl, store: db.kind }, 'realmgate is serving');
}

main().catch((error: unknown) => {
  // One line naming what is wrong: a bad variable, an unreachable database.
  const message = error instanceof ConfigError ? error.message : `cannot start: ${(error as Error).message ?? String(error)}`;
  process.stderr.write(`realmgate: ${message}\n`);
  process.exit(1);
});
