import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { writeInitdbCopy } from '../../src/store/pglite-initdb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of a copy of PGlite's initdb cluster (src/store/pglite-initdb.ts, test/support/store.ts). */
    pgliteTemplate: string;
  }
}

/**
 * Global setup of the PGlite projects: runs PGlite's initdb once, as `npm run build` does, and
 * keeps the empty cluster it made for each test's fresh database to start from. initdb is most of
 * the time a new PGlite takes: one made afresh took 2.5 to 5 s on two cores, one started from the
 * copy about 1 s.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-pglite-'));
  await writeInitdbCopy(dir);
  project.provide('pgliteTemplate', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
