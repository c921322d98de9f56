import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { buildOnce, randomMasterKey, runToExit, serverEnv, spawnServer, startServer, stopAll } from '../support/process.js';
import { testStoreKind } from '../support/store.js';

/** A refusal to start: a non-zero exit and exactly one line on stderr, naming the variable, with no stack trace. */
function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, variable: string): void {
  expect(result.code, `exit code; stderr: ${result.stderr}`).not.toBe(0);
  expect(result.code).not.toBeNull(); // it exited by itself, not by a signal
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, 'stderr').toHaveLength(1);
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(lines[0]).toContain(variable);
  expect(result.stdout).not.toMatch(/\n\s+at /); // no stack trace anywhere
}

// Not about the store: run once, in the pglite project.
describe.skipIf(testStoreKind() === 'postgres')('configuration errors stop the process with one line naming the variable', () => {
  beforeAll(() => buildOnce());
  afterAll(() => stopAll()); // not afterEach: the cases run concurrently

  const cases: [variable: string, vars: Record<string, string>][] = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '0x50' }],
    ['BASE_URL', { BASE_URL: 'not-a-url' }],
    ['BASE_URL', { BASE_URL: 'https://x.example/path' }],
    ['MASTER_KEY', { MASTER_KEY: 'short' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'maybe' }],
    // Trusting every peer would let anyone forge X-Forwarded-For and the client certificate header.
    ['TRUST_PROXY', { TRUST_PROXY: 'true' }],
    ['TRUST_PROXY', { TRUST_PROXY: '1' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }],
    // Two halves of the address space trust every peer as /0 would.
    ['TRUST_PROXY', { TRUST_PROXY: '0.0.0.0/1,128.0.0.0/1' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    // A PostgreSQL store needs the key: there is no data dir to keep a generated one in.
    ['MASTER_KEY', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/realmgate' }],
    ['TLS_KEY', { TLS_CERT: '/nonexistent/cert.pem' }],
    ['TLS_CERT', { TLS_CERT: '/nonexistent/cert.pem', TLS_KEY: '/nonexistent/key.pem' }],
    // TLS_CA alone serves tls_client_auth behind a trusted load balancer; it must hold a CA.
    ['TLS_CA', { TLS_CA: '/nonexistent/ca.pem' }],
    ['TLS_CA', { TLS_CA: 'package.json' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/realmgate', MASTER_KEY: randomMasterKey() }],
  ];

  it.concurrent.each(cases)('%s: %o', async (variable, vars) => {
    // A valid baseline around the bad value, so that nothing else can be the reason to stop.
    const port = await freePort();
    const env = serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: 'memory://', ...vars });
    expectRefusal(await runToExit(env), variable);
  });
});

describe.skipIf(testStoreKind() === 'postgres')('MASTER_KEY on an existing data dir', () => {
  let dataDir: string;

  beforeAll(async () => {
    await buildOnce();
    dataDir = mkdtempSync(join(tmpdir(), 'realmgate-data-'));
  });
  afterAll(async () => {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses to start with another MASTER_KEY than the one that encrypted the signing keys', async () => {
    const first = await startServer({ DATA_DIR: dataDir, MASTER_KEY: randomMasterKey() });
    expect(await first.process.stop()).toEqual({ code: 0, signal: null });

    const port = await freePort();
    const env = serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, MASTER_KEY: randomMasterKey() });
    expectRefusal(await runToExit(env), 'MASTER_KEY');
  }, 45_000);
});

describe.skipIf(testStoreKind() === 'postgres')('SIGTERM while starting', () => {
  beforeAll(() => buildOnce());
  afterAll(() => stopAll());

  it('exits 0 rather than dying by the signal', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'realmgate-data-'));
    try {
      const port = await freePort();
      const server = spawnServer(serverEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir }));
      // A fresh embedded store takes seconds to create: the signal arrives in the middle of it.
      await delay(700);
      expect(server.exit).toBeUndefined();
      server.signal('SIGTERM');
      expect(await server.waitForExit(15_000)).toEqual({ code: 0, signal: null });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
