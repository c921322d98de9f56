import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that replace a module with `vi.mock`. The others share each worker's module
 * graph, from one file to the next (`isolate: false`): importing the application again for every
 * file was a quarter of the suite's time. A mock needs a graph of its own, or it would reach the
 * files after it, and miss the modules loaded before it.
 */
const testDir = fileURLToPath(new URL('test/', import.meta.url));
const mocking = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && /\bvi\.(do)?mock\(/.test(readFileSync(`${testDir}${file}`, 'utf8')))
  .map((file) => `test/${file}`);

/**
 * Files that never reach a store, so that the second store would run them the same way again:
 * pure units (configuration, error shapes, the outbound fetcher's address rules, the logger,
 * mail settings and the mailer against a local SMTP server, the shared-values helper, ECDSA
 * signature conversion, secrets), the check of the docs' links and the source-structure check. None starts an application,
 * opens a database or spawns a server; they run once, on PGlite. Every file that touches SQL,
 * directly or through an application, keeps its PostgreSQL run (ARCHITECTURE.md).
 */
const storeFree = [
  'test/admin/console-catalogues.test.ts',
  'test/config.test.ts',
  'test/docs/links.test.ts',
  'test/http/errors.test.ts',
  'test/http/outbound-fetch.test.ts',
  'test/logger.test.ts',
  'test/mail/config.test.ts',
  'test/mail/mailer.test.ts',
  'test/store/shared-values.test.ts',
  'test/structure/import-circles.test.ts',
  'test/tokens/ecdsa-signature.test.ts',
  'test/tokens/secrets.test.ts',
];

/**
 * The integration suite runs on the embedded PGlite store, and once more on PostgreSQL
 * when TEST_DATABASE_URL is set (each test file in its own schema there).
 */
const suite = (store: 'pglite' | 'postgres', ofMocking: boolean) => ({
  test: {
    name: ofMocking ? `${store}-mocking` : store,
    include: ofMocking ? mocking : ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(ofMocking ? [] : mocking), ...(store === 'postgres' ? storeFree : [])],
    isolate: ofMocking,
    env: { TEST_STORE: store },
    ...(store === 'pglite' ? { globalSetup: ['test/support/pglite-template.ts'] } : {}),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

const stores = process.env.TEST_DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

export default defineConfig({
  test: {
    // Test files wait on the database, on spawned processes and on timers more than they
    // compute: on a two-core machine three at a time finish the PostgreSQL half in 15 % less
    // time than two, for the same CPU (docs/development.md, "Keeping the suite fast").
    maxWorkers: 3,
    projects: stores.flatMap((store) => [suite(store, false), suite(store, true)]),
  },
});
