import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { TEST_DATABASE_URL } from '../helpers/test-database.js';

// Service instances with databaseReadUrl authenticate clients on a synchronous standby (issue 20). A CLI command
// run without DATABASE_READ_URL must still commit as they do, or the standby could answer with an application
// an admin has just deleted or a secret just rotated.
describe.skipIf(!TEST_DATABASE_URL)('CLI commands on PostgreSQL', () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('commit with synchronous_commit = remote_apply without a read URL', async () => {
    const setting = await cli.withDeps(async (_deps, database) => {
      const rows = await database.sql.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      return rows[0]?.synchronous_commit;
    });
    expect(setting).toBe('remote_apply');
  });
});
