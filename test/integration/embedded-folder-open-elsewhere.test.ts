import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, runCliInProcess, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// A data folder that PGlite has open (its postmaster.pid) with no oauth-service.lock: a server of a version older than
// the lock holds it. A command of this version opening a second copy destroyed its tables (the upgrade audit): it is
// refused, with what to do; without the pid file the folder opens as before.

describe.runIf(backend === 'pglite')('an embedded data folder open in a version that takes no lock', () => {
  let cli: CliHarness;

  beforeAll(async () => {
    cli = await createCliHarness();
    await cli.stdout(['apps', 'create', '--name', 'Kept', '--redirect-uri', 'https://app.example.com/cb']);
  });
  afterAll(() => cli?.close());

  it('a command refuses it (exit 1, naming the file to delete if no server runs); once the file is gone it works', async () => {
    const pidFile = join(cli.env.DATA_DIR!, 'postmaster.pid');
    writeFileSync(pidFile, '-42\n/pglite/data\n1795969908\n5432\n');
    const refused = await cli.run(['apps', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`holds PostgreSQL's postmaster.pid but no oauth-service.lock`);
    expect(refused.stderr).toContain(`delete ${pidFile} and try again.`);
    rmSync(pidFile);
    expect(await cli.stdout(['apps', 'list'])).toContain('Kept');
  });
});

describe.runIf(backend === 'pglite' && process.platform === 'linux')('an embedded data folder that cannot be created', () => {
  // Node.js's recursive mkdir spun forever at 90% CPU on such a path (mkdir answers ENOENT under /proc, which exists).
  it('a command says so at once, naming the folder and dataDir (exit 1), and does not hang', async () => {
    const refused = await runCliInProcess(['apps', 'list'], { DATA_DIR: '/proc/oauth-service-test/data' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "the data folder (dataDir) /proc/oauth-service-test/data cannot be created: ENOENT: no such file or directory, mkdir '/proc/oauth-service-test'",
    );
  });
});

describe.runIf(backend === 'pglite')('an embedded data folder that is damaged', () => {
  it("a command names the folder and DATA_DIR and says what to do (exit 1), not only PGlite's own words", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oauth-damaged-'));
    try {
      writeFileSync(join(dataDir, 'PG_VERSION'), 'junk\n');
      const refused = await runCliInProcess(['apps', 'list'], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`the embedded database in ${dataDir} cannot be opened (`);
      expect(refused.stderr).toContain('restore it from a backup, or set DATA_DIR (dataDir) to another folder');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
