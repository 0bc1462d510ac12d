import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The long suites: `npm test` leaves them out, so that it ends within minutes on a 2-core machine;
 * `npm run test:all` (FLC_TEST_ALL=1), which CI runs, runs them with everything else. They are the
 * differential suites over generated hostnames and the real lists, and the server's PostgreSQL
 * store, queue-durability and attack suites.
 */
export const LONG_SUITES = [
  'test/differential/hostnames.test.ts',
  'test/differential/corpus.test.ts',
  'test/server/admin-storage.test.ts',
  'test/server/admin-query-boundary.test.ts',
  'test/server/queue/durability.test.ts',
  'test/server/store-admin.test.ts',
  'test/server/store-service-records.test.ts',
  'test/server/store-jobs.test.ts',
  'test/server/shared-postgres.test.ts',
  'test/server/attack/**',
];

const all = process.env.FLC_TEST_ALL === '1';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: all ? configDefaults.exclude : [...configDefaults.exclude, ...LONG_SUITES],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One fresh PostgreSQL database per run for the tests of the PostgreSQL store.
    globalSetup: ['./test/support/postgres-setup.ts'],
  },
});
