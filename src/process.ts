import { readFileSync } from 'node:fs';
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { CONSOLE_PATH } from './admin/console/page.js';
import { logFirstAdministrator } from './admin/first-administrator.js';
import { readCaBundle } from './client-auth/tls-client-auth.js';
import { openDb, prepare } from './bootstrap.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { CatalogueError, loadCatalogues } from './pages/i18n/json-catalogues.js';
import { StoreUnavailableError } from './errors.js';
import { exitWhenIdle } from './exit-when-idle.js';
import { AdminPort } from './http/admin-port.js';
import { Drain } from './http/health.js';
import { createLogger } from './logger.js';
import type { Db } from './store/db.js';
import { resolveMasterKey } from './tokens/master-key.js';

/** What SIGTERM has to close: the app (and its admin listener) once it exists, else the database if it is open. */
const running: { app?: FastifyInstance; adminPort?: AdminPort | undefined; drain?: Drain; db?: Db; logger?: Logger } = {};
let stopping = false;

/**
 * A signal during start-up is honoured between two of its steps (opening the store, preparing
 * it, building the app), not in the middle of one: closing the store under a step left the
 * migrations' transaction failing, and the process exiting 1 with "PGlite is closed" as often as 0.
 */
class StoppedDuringStartUp extends Error {}

function unlessStopping(): void {
  if (stopping) throw new StoppedDuringStartUp();
}

/**
 * SIGTERM or SIGINT: new requests are answered 503 until they stop coming (src/http/health.ts
 * Drain), then the listeners close (the admin port's first: its requests use the store too), the
 * requests in flight finish, the pool closes, and the process exits 0.
 */
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  const { app, drain, adminPort } = running;
  if (!app || !drain) {
    running.logger?.info({ signal }, 'stopping once the start-up step under way ends');
    return;
  }
  const signalledAt = Date.now();
  drain.begin();
  app.log.info({ signal, inFlight: drain.inFlightAtBegin }, 'stopping: new requests are answered 503, those in flight finish');
  drain
    .settled()
    .then(() => {
      app.log.info({ refused: drain.refused, drainMs: Date.now() - signalledAt }, 'stopping: the listener closes');
      return Promise.resolve(adminPort?.close()).then(() => app.close());
    })
    .then(
      () => {
        app.log.info({ stopMs: Date.now() - signalledAt }, 'stopped');
        exitWhenIdle(0);
      },
      () => exitWhenIdle(1),
    );
}

/** `LOCALES_DIR`'s catalogues, made languages the pages speak before the first page; a bad one stops the start. */
function readCatalogues(dir: string): string[] {
  try {
    return loadCatalogues(dir);
  } catch (error) {
    if (error instanceof CatalogueError) throw new ConfigError(`invalid configuration: LOCALES_DIR: ${error.message}`);
    throw error;
  }
}

/** The process: configuration, logger, store, listening. */
async function main(): Promise<void> {

  const config = loadConfig();
  const languages = config.localesDir === undefined ? [] : readCatalogues(config.localesDir);
  const https = readTls(config);
  const clientCa = config.clientCa ? readClientCa(config.clientCa) : undefined;
  const logger = createLogger(config.logLevel);
  running.logger = logger;
  if (languages.length > 0) logger.info({ languages }, 'languages read from LOCALES_DIR');
  const masterKey = resolveMasterKey(config);
  const db = await openDb(config, logger);
  running.db = db;
  unlessStopping();
  const { store, encryption, adminToken, firstAdministrator } = await prepare(db, {
    masterKey,
    adminToken: config.adminToken,
    firstAdministrator: config.firstAdministrator,
    logger,
  });
  // Read once: the password is not left for child processes or a diagnostic report to see.
  delete process.env.ADMIN_PASSWORD;
  if (firstAdministrator) logFirstAdministrator(logger, firstAdministrator);
  if (adminToken.generated) {
    // Printed once, as a plain line on stderr: the JSON log lines go to stdout, and are often
    // shipped elsewhere; only the token's hash is stored.
    process.stderr.write(`realmgate admin token (shown once, keep it safe): ${adminToken.generated}\n`);
  }
  unlessStopping();
  const adminPort = config.adminPort === undefined ? undefined : new AdminPort(https);
  const app = await buildApp({
    config,
    ...(adminPort ? { adminPort } : {}),
    store,
    encryption,
    adminTokenHash: adminToken.hash,
    logger,
    ...(https ? { https } : {}),
    ...(clientCa ? { clientCa } : {}),
  });
  running.drain = new Drain(app);
  running.app = app;
  running.adminPort = adminPort;
  unlessStopping();

  await app.listen({ port: config.port, host: config.host });
  if (adminPort) {
    await adminPort.listen(config.adminPort!, config.host).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`ADMIN_PORT: cannot listen on ${config.host}:${config.adminPort} (${error.code ?? error.message})`);
    });
  }
  const consoleUrl = adminConsoleUrl(config);
  logger.info({ baseUrl: config.baseUrl, store: db.kind, ...(adminPort ? { adminPort: config.adminPort } : {}), console: consoleUrl }, 'realmgate is serving');
  // Where to go first, as a plain line beside the generated token's (on stderr, apart from the JSON logs).
  process.stderr.write(`realmgate admin console: ${consoleUrl}\n`);
}

/**
 * The console's address: under BASE_URL, or on ADMIN_PORT when the admin API has a port of its
 * own (which is not behind the public origin; an unspecified HOST is reached as localhost).
 */
function adminConsoleUrl(config: Config): string {
  if (config.adminPort === undefined) return `${config.baseUrl}${CONSOLE_PATH}/`;
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${host}:${config.adminPort}${CONSOLE_PATH}/`;
}

/** HTTPS with requested (not required) client certificates, for mutual-TLS client authentication. */
function readTls(config: Config): HttpsServerOptions | undefined {
  if (!config.tls) return undefined;
  const read = readConfigFile;
  return {
    cert: read('TLS_CERT', config.tls.cert),
    key: read('TLS_KEY', config.tls.key),
    ...(config.tls.ca ? { ca: read('TLS_CA', config.tls.ca) } : {}),
    requestCert: true,
    rejectUnauthorized: false,
  };
}

/** `TLS_CA`: a PEM bundle holding at least one CA certificate, for `tls_client_auth`. */
function readClientCa(path: string): Buffer {
  const pem = readConfigFile('TLS_CA', path);
  let cas;
  try {
    cas = readCaBundle(pem);
  } catch {
    throw new ConfigError(`invalid configuration: TLS_CA: ${path} is not a PEM certificate bundle`);
  }
  if (cas.length === 0) throw new ConfigError(`invalid configuration: TLS_CA: ${path} holds no CA certificate`);
  return pem;
}

function readConfigFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

/** One line naming what is wrong: a bad variable, an unreachable database. */
function describeStartFailure(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof StoreUnavailableError) {
    return `cannot start: DATABASE_URL: the database is unavailable (${(error.cause as Error | undefined)?.message ?? 'no answer'})`;
  }
  return `cannot start: ${(error as Error).message ?? String(error)}`;
}

/**
 * Runs the process: start-up failures end it with one line and exit code 1. Returns what a
 * SIGTERM or SIGINT must do: finish in-flight requests, close, and exit 0.
 */
export function run(): (signal: string) => void {
  main().catch(async (error: unknown) => {
    const stopped = error instanceof StoppedDuringStartUp;
    if (!stopped) process.stderr.write(`realmgate: ${describeStartFailure(error).replace(/\s+/g, ' ')}\n`);
    await closeStarted().then(
      () => exitWhenIdle(stopped ? 0 : 1),
      () => exitWhenIdle(1),
    );
  });
  return stop;
}

/** What start-up opened: the listeners and the app, which owns the store, once built; else the store. */
async function closeStarted(): Promise<void> {
  const { app, adminPort, db } = running;
  if (!app) return db?.close();
  await adminPort?.close();
  await app.close();
}
