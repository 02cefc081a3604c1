import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Four projects: pure domain rules, HTTP against real databases, faults (own PostgreSQL, own processes), and pages in headless Chromium.
// The same integration suite runs on embedded PGlite (default) and on PostgreSQL when DATABASE_URL is set.
// initdb and migrations run once per run (database-templates.ts), not once per test database.
const databaseTemplates = 'test/helpers/database-templates.ts';
// Every project runs its files one after another in each worker (isolate: false) instead of a new process per file:
// a file no longer pays for starting Node.js, importing fastify, Prisma and PGlite and compiling PGlite's WebAssembly
// (about 2 s of CPU a file; npm test's CPU time halved, the browser tests' 114 -> 72 s, docs/testing.md). Each file
// still builds its own servers on its own databases; what stays loaded is modules, and no test relies on their state
// being fresh (no vi.mock, vi.stubEnv or stubbed globals; module-level state in src/ is caches keyed by their owner).
// The suite passes with its files shuffled (--sequence.shuffle.files), so no file depends on another's order.
const sharedWorkers = { isolate: false };
// vitest's default is one worker fewer than the cores: one on the 2-core CI machine, where npm test then kept 1.25 cores
// busy (709 s of CPU in 565 s), its files waiting on PGlite, sockets and spawned processes. Two kept both cores busy
// until a test database cost less CPU (test/helpers/pglite-instances.ts): then two kept 1.45 cores busy (793 s of CPU
// in 548 s) and three 1.77 (773 s in 437 s). One more than the cores; the suite passes with three (files share nothing
// but modules, see above).
const workers = Math.max(3, availableParallelism() + 1);

export default defineConfig({
  // As tsconfig.json "paths" does for tsc and tsx: the workspace package @oauth-service/guard runs from its source
  // (each project extends this root config).
  resolve: { alias: { '@oauth-service/guard': fileURLToPath(new URL('packages/guard/src/index.ts', import.meta.url)) } },
  test: {
    maxWorkers: workers,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], ...sharedWorkers } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          globalSetup: [databaseTemplates],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          ...sharedWorkers,
        },
      },
      {
        extends: true,
        test: {
          // Tests that stop and start their own PostgreSQL or the service process; run once, by .ci/run.
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 90_000,
          fileParallelism: false,
          ...sharedWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: [databaseTemplates],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
          ...sharedWorkers,
        },
      },
    ],
  },
});
