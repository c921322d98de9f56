import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A tarball of a PGlite data directory just made by initdb (test/support/store.ts). */
    pgliteTemplate: string;
  }
}

/**
 * Global setup of the PGlite project: runs PGlite's initdb once, and keeps the empty cluster
 * it made in a file that each test's fresh database starts from. initdb is most of the time a
 * new PGlite takes: one made afresh took 2.5 to 5 s on two cores, one started from the copy
 * about 1 s.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const db = await PGlite.create('memory://');
  const tarball = await db.dumpDataDir('none');
  await db.close();
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-pglite-'));
  const file = join(dir, 'initdb.tar');
  writeFileSync(file, Buffer.from(await tarball.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
