/**
 * PGlite's start parameters for a short-lived database: a CLI command, the tests' (test/helpers/pglite-instances.ts)
 * and bench/pglite-floor.mjs. A CLI command runs a few statements and exits: PostgreSQL's default 128 MB of shared
 * buffers, which PGlite sets up at every start, cost a command on the data folder a sixth of its start (issue 30,
 * bench/RESULTS.md).
 */
export const SMALL_SHARED_BUFFERS = ['-c', 'shared_buffers=8MB'];
