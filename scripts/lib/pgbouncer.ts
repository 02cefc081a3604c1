import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** postgresql://oauth@127.0.0.1:PORT/oauth through the pooler. */
  url: string;
  /** The pgbouncer process (for its CPU time). */
  pid: number;
  stop(): Promise<void>;
}

/** Why PgBouncer cannot be started here, or null. */
export function pgbouncerUnavailable(): string | null {
  return existsSync(PGBOUNCER) ? null : `${PGBOUNCER} is not installed (apt-get install pgbouncer)`;
}

/** `PgBouncer 1.18.0`: the first line of pgbouncer --version. */
export const pgbouncerVersion = () => execFileSync(PGBOUNCER, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();

/**
 * PgBouncer in transaction pooling mode in front of `targetUrl` (a scripts/pg-cluster.sh cluster: trust
 * authentication, role oauth), with `serverConnections` server connections per database and user.
 */
export async function startPgBouncer(targetUrl: string, serverConnections: number): Promise<PgBouncer> {
  const target = new URL(targetUrl);
  const dir = mkdtempSync(join(tmpdir(), 'oauth-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const users = new Set(['oauth', 'postgres', decodeURIComponent(target.username)]);
  writeFileSync(join(dir, 'userlist.txt'), [...users].map((user) => `"${user}" ""\n`).join(''));
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 200',
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root it runs as the postgres OS user, like the test clusters.
  const root = process.getuid?.() === 0;
  const command = root ? 'setpriv' : PGBOUNCER;
  const args = root ? ['--reuid=postgres', '--regid=postgres', '--init-groups', PGBOUNCER] : [];
  const child: ChildProcess = spawn(command, [...args, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `postgresql://${target.username}@127.0.0.1:${port}${target.pathname}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
