import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * A copy of the empty cluster that PGlite's initdb makes, kept beside the built modules: `npm
 * run build` writes it. A new embedded database starts from it rather than from initdb, which was
 * most of a first start (initdb about 4 s of 8 on two cores; loading the copy about 1 s).
 * PostgreSQL opens only a cluster of its own catalog version, so the copy is named after the PGlite
 * version that made it: under another version, initdb runs as before.
 */
const PREFIX = 'pglite-initdb-';
const HERE = dirname(fileURLToPath(import.meta.url));

function copyPath(dir: string): string {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite'); // <package>/dist/index.cjs
  const { version } = JSON.parse(readFileSync(join(dirname(pglite), '..', 'package.json'), 'utf8')) as { version: string };
  return join(dir, `${PREFIX}${version}.tar.gz`);
}

/** The copy for the installed PGlite, if the build made one. */
export function initdbCopy(dir = HERE): Blob | undefined {
  const path = copyPath(dir);
  return existsSync(path) ? new Blob([readFileSync(path)]) : undefined;
}

/** Runs initdb once and keeps the cluster it made, replacing the copies of other PGlite versions. */
export async function writeInitdbCopy(dir = HERE): Promise<void> {
  const path = copyPath(dir);
  if (existsSync(path)) return;
  const db = await PGlite.create('memory://');
  const tarball = await db.dumpDataDir('gzip');
  await db.close();
  for (const file of readdirSync(dir)) if (file.startsWith(PREFIX)) rmSync(join(dir, file), { force: true });
  // Written aside and renamed, so that a server starting meanwhile never reads half of it.
  writeFileSync(`${path}.partial`, Buffer.from(await tarball.arrayBuffer()));
  renameSync(`${path}.partial`, path);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await writeInitdbCopy();
