import { defineConfig } from 'vitest/config';

// Three projects: pure domain rules, HTTP against real databases, and pages in headless Chromium.
// The same integration suite runs on embedded PGlite (default) and on PostgreSQL when DATABASE_URL is set.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Tests that stop and start their own PostgreSQL or the service process; run once, by .ci/run.
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 90_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
