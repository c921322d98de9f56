import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/store/migrate.js';
import { createPgliteDb } from '../../src/store/pglite.js';
import { freePort } from '../support/app.js';
import { type ProcessStore, ServerProcess, buildOnce, createProcessStore, serverEnv, stopAll, waitForStatus } from '../support/process.js';
import { testStoreKind } from '../support/store.js';
import { CLI, cliOk, runCli, tableRows } from './support.js';

const ADMIN_TOKEN = 'cli-process-admin-token-0123456789';
const MIGRATIONS = readMigrations().map((migration) => migration.name);

const startCommand = (env: Record<string, string>) => new ServerProcess(process.execPath, [CLI, 'start'], serverEnv(env));

describe('realmgate start: the server, as npm start runs it', () => {
  let store: ProcessStore;

  beforeAll(async () => {
    [store] = await Promise.all([createProcessStore(), buildOnce()]);
  });

  afterAll(async () => {
    await stopAll();
    await store?.dispose();
  });

  it('serves, is administered by the other commands, and stops on SIGTERM with exit 0', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const server = startCommand({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, ADMIN_TOKEN, LOG_LEVEL: 'warn', ...store.env });
    await waitForStatus(server, `${baseUrl}/readyz`, 200, server.spawnedAt + 30_000);
    const list = await cliOk(['realm', 'list'], { env: { REALMGATE_URL: baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN } });
    expect(tableRows(list.stdout)).toContainEqual(expect.objectContaining({ NAME: 'root', ISSUER: `${baseUrl}/oauth2` }));
    server.signal('SIGTERM');
    expect(await server.waitForExit(15_000)).toEqual({ code: 0, signal: null });
  }, 60_000);

  it.skipIf(testStoreKind() === 'postgres')('a SIGTERM while it starts exits 0, as npm start does', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'realmgate-cli-'));
    try {
      const server = startCommand({ PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir });
      // A fresh embedded store takes seconds to create: the signal arrives in the middle of it,
      // once its first files are in DATA_DIR. The process creates them after it has installed its
      // signal handlers; a fixed wait could end before Node.js had loaded them, on a busy machine.
      await expect.poll(() => readdirSync(dataDir).length, { timeout: 30_000, interval: 10 }).toBeGreaterThan(0);
      expect(server.exit).toBeUndefined();
      server.signal('SIGTERM');
      expect(await server.waitForExit(15_000), server.output).toEqual({ code: 0, signal: null });
      expect(server.stderr).not.toMatch(/cannot start|still open/);

      // No step was cut in half: the store it left starts and serves.
      const port = await freePort();
      const again = startCommand({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
      await waitForStatus(again, `http://127.0.0.1:${port}/readyz`, 200, again.spawnedAt + 30_000);
      again.signal('SIGTERM');
      expect(await again.waitForExit(15_000), again.output).toEqual({ code: 0, signal: null });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 75_000);
});

describe('realmgate migrate', () => {
  beforeAll(() => buildOnce());

  it.skipIf(testStoreKind() === 'postgres')('applies every migration to a fresh embedded store in DATA_DIR, then finds it up to date', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'realmgate-cli-'));
    try {
      const first = await cliOk(['migrate'], { env: { DATA_DIR: dataDir } });
      expect(first.stdout).toBe(
        `Applied ${MIGRATIONS.length} of ${MIGRATIONS.length} migrations to the embedded store in ${dataDir}:\n${MIGRATIONS.map((name) => `  ${name}\n`).join('')}`,
      );
      const again = await cliOk(['migrate', '--data-dir', dataDir, '--json']);
      expect(JSON.parse(again.stdout)).toEqual({ store: 'pglite', applied: [], migrations: MIGRATIONS.length });

      const db = await createPgliteDb(dataDir);
      try {
        const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
        expect(rows.rows.map((row) => row.name)).toEqual(MIGRATIONS);
        // Migrated only: the server's start creates the root realm, migrate does not.
        expect((await db.query('SELECT 1 FROM realms')).rows).toEqual([]);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it.skipIf(testStoreKind() === 'postgres')('an unreachable database exits 1, without the password of its URL', async () => {
    const url = `postgres://realmgate:hunter2-password@127.0.0.1:${await freePort()}/realmgate`;
    const result = await runCli(['migrate'], { env: { DATABASE_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^realmgate: cannot migrate: PostgreSQL at 127\.0\.0\.1:\d+\/realmgate is unavailable \(.*\)\n$/);
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  describe.skipIf(testStoreKind() !== 'postgres')('on PostgreSQL (postgres project)', () => {
    let store: ProcessStore;

    beforeAll(async () => {
      store = await createProcessStore();
    });

    afterAll(() => store?.dispose());

    it('applies every migration to a fresh database (--database-url), then finds it up to date (DATABASE_URL)', async () => {
      const url = store.env.DATABASE_URL!;
      const first = await cliOk(['migrate', '--database-url', url, '--json']);
      expect(JSON.parse(first.stdout)).toEqual({ store: 'postgres', applied: MIGRATIONS, migrations: MIGRATIONS.length });
      const again = await cliOk(['migrate'], { env: { DATABASE_URL: url } });
      expect(again.stdout).toMatch(new RegExp(`^PostgreSQL at .+ is up to date \\(${MIGRATIONS.length} migrations\\)\\.\\n$`));

      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
        expect(rows.rows.map((row) => row.name)).toEqual(MIGRATIONS);
      } finally {
        await client.end();
      }
    }, 60_000);
  });
});
