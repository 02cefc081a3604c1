import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { adminQuery, dropDatabase, withDatabaseName } from '../scripts/lib/postgres-admin.js';
import { ROOT } from './processes.js';

const run = promisify(execFile);

export interface BenchDatabase {
  /** URL of the fresh database both servers use. */
  url: string;
  /** PostgreSQL version and the settings that change write costs (the private cluster runs with fsync off). */
  describe(): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * A fresh database for one run: on BENCH_DATABASE_URL's server when set (dropped at the end), else on a
 * private cluster started with scripts/pg-cluster.sh in a temporary folder (stopped and removed at the end).
 */
export async function openBenchDatabase(log: (line: string) => void): Promise<BenchDatabase> {
  const external = process.env.BENCH_DATABASE_URL;
  let clusterDir: string | null = null;
  let serverUrl: string;
  if (external) {
    serverUrl = external;
    log(`PostgreSQL: reusing BENCH_DATABASE_URL's server`);
  } else {
    clusterDir = mkdtempSync(join(tmpdir(), 'oauth-bench-pg-'));
    log(`PostgreSQL: starting a private cluster in ${clusterDir}`);
    const { stdout } = await run('bash', [join(ROOT, 'scripts/pg-cluster.sh'), 'start', clusterDir], { cwd: ROOT });
    serverUrl = stdout.trim().split('\n').at(-1)!;
  }
  const name = `oauth_bench_${randomBytes(5).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = withDatabaseName(serverUrl, name);
  return {
    url,
    async describe() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings
           WHERE name IN ('server_version', 'shared_buffers', 'fsync', 'synchronous_commit', 'max_connections') ORDER BY name`,
        );
        const setting = Object.fromEntries(rows.map((row) => [row.name, row.setting]));
        return `PostgreSQL ${setting.server_version} (shared_buffers ${(Number(setting.shared_buffers) * 8) / 1024} MB, fsync ${setting.fsync}, synchronous_commit ${setting.synchronous_commit})`;
      } finally {
        await client.end();
      }
    },
    async dispose() {
      if (clusterDir) {
        await run('bash', [join(ROOT, 'scripts/pg-cluster.sh'), 'stop', clusterDir], { cwd: ROOT }).catch((error: Error) =>
          log(`stopping PostgreSQL failed: ${error.message}`),
        );
        rmSync(clusterDir, { recursive: true, force: true });
      } else {
        await dropDatabase(serverUrl, name);
      }
    },
  };
}
