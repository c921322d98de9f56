import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import type { Db, Queryable } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { initdbCopy, writeInitdbCopy } from '../../src/store/pglite-initdb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of a copy of PGlite's initdb cluster (src/store/pglite-initdb.ts, test/support/store.ts). */
    pgliteTemplate: string;
    /** The path of a tarball of that cluster with every migration applied (test/support/store.ts). */
    pgliteMigratedTemplate: string;
  }
}

/**
 * Global setup of the PGlite projects: runs PGlite's initdb once, as `npm run build` does, and
 * keeps the empty cluster it made for each test's fresh database to start from. initdb is most of
 * the time a new PGlite takes: one made afresh took 2.5 to 5 s on two cores, one started from the
 * copy about 1 s. The migrations are applied once too, to a second copy that the applications of
 * the tests start from: on PGlite they took about as long as loading the cluster, for every test
 * application. The tests of the migrations themselves start from the empty cluster.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-pglite-'));
  await writeInitdbCopy(dir);
  project.provide('pgliteTemplate', dir);
  project.provide('pgliteMigratedTemplate', await writeMigratedCopy(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}

async function writeMigratedCopy(dir: string): Promise<string> {
  const pglite = await PGlite.create('memory://', { loadDataDir: initdbCopy(dir)! });
  // migrate() runs everything in db.transaction(), and reads only `rows` of its results.
  await migrate({ transaction: (fn) => pglite.transaction((tx) => fn(tx as unknown as Queryable)) } as Db);
  const tarball = await pglite.dumpDataDir('none');
  await pglite.close();
  const path = join(dir, 'migrated.tar');
  writeFileSync(path, Buffer.from(await tarball.arrayBuffer()));
  return path;
}
