import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/store/migrate.js';
import { createPgliteDb } from '../../src/store/pglite.js';
import { initdbCopy, writeInitdbCopy } from '../../src/store/pglite-initdb.js';
import { PROJECT_ROOT, buildOnce } from '../support/process.js';
import { testStoreKind } from '../support/store.js';

describe.skipIf(testStoreKind() === 'postgres')('the build\'s copy of initdb\'s cluster (src/store/pglite-initdb.ts)', () => {
  let buildDir: string;
  let dataDirs: string;

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), 'realmgate-build-'));
    dataDirs = mkdtempSync(join(tmpdir(), 'realmgate-data-'));
    writeFileSync(join(buildDir, 'pglite-initdb-0.0.1.tar.gz'), 'the copy of an older PGlite');
    await writeInitdbCopy(buildDir);
  }, 60_000);

  afterAll(() => {
    rmSync(buildDir, { recursive: true, force: true });
    rmSync(dataDirs, { recursive: true, force: true });
  });

  it('is written once per PGlite version, in place of the copies of other versions', async () => {
    const files = readdirSync(buildDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^pglite-initdb-\d+\.\d+\.\d+\.tar\.gz$/);
    expect(files[0]).not.toBe('pglite-initdb-0.0.1.tar.gz');
    const written = statSync(join(buildDir, files[0]!)).mtimeMs;
    await writeInitdbCopy(buildDir);
    expect(statSync(join(buildDir, files[0]!)).mtimeMs).toBe(written);
  });

  it('is written by `npm run build` beside the built modules, where the built server looks for it', async () => {
    await buildOnce();
    expect(initdbCopy(join(PROJECT_ROOT, 'dist', 'store'))).toBeInstanceOf(Blob);
  }, 120_000);

  it('is not found where no build wrote one', () => {
    expect(initdbCopy(dataDirs)).toBeUndefined();
  });

  it('starts a new data directory, which keeps what is written in it, and is left out when the directory exists', async () => {
    const dataDir = join(dataDirs, 'fresh');
    const first = await createPgliteDb(dataDir, initdbCopy(buildDir));
    expect(await migrate(first)).toHaveLength(readMigrations().length);
    await first.close();
    expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);

    // PGlite refuses to load a copy over an existing cluster: the copy is for new ones only.
    const again = await createPgliteDb(dataDir, initdbCopy(buildDir));
    expect(await migrate(again)).toEqual([]);
    await again.close();
  }, 60_000);
});
