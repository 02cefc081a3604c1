import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes.js';

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts/pg-cluster.sh');

/** A PostgreSQL cluster of the test's own (scripts/pg-cluster.sh), which the test may stop and start. */
export interface PrivatePostgres {
  url: string;
  /** The same server as the superuser `postgres` (replication control, settings). */
  superuserUrl: string;
  dir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  return startCluster((dir) => ['start', dir]);
}

/** A synchronous streaming replica of `primary` (scripts/pg-cluster.sh standby); stop and start keep it one. */
export async function startStandby(primary: PrivatePostgres): Promise<PrivatePostgres> {
  return startCluster((dir) => ['standby', dir, primary.dir]);
}

async function startCluster(firstStart: (dir: string) => string[]): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-pg-'));
  chmodSync(dir, 0o755);
  const launch = async (args: string[]) => {
    const { stdout } = await run('bash', [SCRIPT, ...args]);
    return stdout.trim().split('\n').pop()!;
  };
  const url = await launch(firstStart(dir));
  const start = () => launch(['start', dir]);
  return {
    url,
    superuserUrl: url.replace('//oauth@', '//postgres@'),
    dir,
    stop: async () => void (await run('bash', [SCRIPT, 'stop', dir])),
    start: async () => void (await start()),
    remove: async () => {
      await run('bash', [SCRIPT, 'stop', dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
