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
 * The integration suite runs on the embedded PGlite store, and once more on PostgreSQL
 * when TEST_DATABASE_URL is set (each test file in its own schema there).
 */
const suite = (store: 'pglite' | 'postgres', ofMocking: boolean) => ({
  test: {
    name: ofMocking ? `${store}-mocking` : store,
    include: ofMocking ? mocking : ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(ofMocking ? [] : mocking)],
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
    // Test files wait on the database and on timers more than they compute: two at a time
    // finish the suite in about two thirds of the time on a two-core machine.
    maxWorkers: 2,
    projects: stores.flatMap((store) => [suite(store, false), suite(store, true)]),
  },
});
