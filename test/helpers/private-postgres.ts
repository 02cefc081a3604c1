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
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-pg-'));
  chmodSync(dir, 0o755);
  const start = async () => {
    const { stdout } = await run('bash', [SCRIPT, 'start', dir]);
    return stdout.trim().split('\n').pop()!;
  };
  const url = await start();
  return {
    url,
    stop: async () => void (await run('bash', [SCRIPT, 'stop', dir])),
    start: async () => void (await start()),
    remove: async () => {
      await run('bash', [SCRIPT, 'stop', dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
