import { defineConfig } from 'vitest/config';

/**
 * The integration suite runs on the embedded PGlite store, and once more on PostgreSQL
 * when TEST_DATABASE_URL is set (each test file in its own schema there).
 */
const suite = (store: 'pglite' | 'postgres') => ({
  test: {
    name: store,
    include: ['test/**/*.test.ts'],
    env: { TEST_STORE: store },
    ...(store === 'pglite' ? { globalSetup: ['test/support/pglite-template.ts'] } : {}),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    // Test files wait on the database and on timers more than they compute: two at a time
    // finish the suite in about two thirds of the time on a two-core machine.
    maxWorkers: 2,
    projects: [suite('pglite'), ...(process.env.TEST_DATABASE_URL ? [suite('postgres')] : [])],
  },
});
