import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes.js';

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts/cluster.sh');
/** scripts/cluster.sh's OHA_PREFIX: the namespaces' and the bridge's names (the environment passes it on). */
const PREFIX = process.env.OHA_PREFIX ?? 'oha';

export type NodeRole = 'leader' | 'sync_standby' | 'replica' | 'unreachable';

export interface HaNode {
  /** 1, 2 or 3: the argument of partition/heal/kill/startNode. */
  index: number;
  name: string;
  netns: string;
  address: string;
  role: NodeRole;
}

export interface HaStatus {
  writeUrl: string;
  readUrl: string;
  pgbouncerUrl: string;
  adminUrl: string;
  /** The same endpoints as seen from a service namespace (startService): HAProxy and PgBouncer on the bridge. */
  fromServices: { writeUrl: string; readUrl: string; pgbouncerUrl: string };
  nodes: HaNode[];
  /** The service namespaces PREFIX-svc1..3 and whether an instance runs there. */
  services: Array<{ index: number; netns: string; address: string; running: boolean }>;
  /** The node Patroni's REST API calls the primary, if any. */
  leader: HaNode | null;
  /** Every KEY=VALUE line as printed. */
  raw: Record<string, string>;
}

/** The HA topology of scripts/cluster.sh (etcd, 3 Patroni nodes in namespaces, HAProxy, PgBouncer), for fault tests. */
export interface HaCluster {
  dir: string;
  status(): Promise<HaStatus>;
  /** Cuts node N (or service namespace svcN) off the network (its processes keep running); heal reconnects it. */
  partition(node: number | `svc${number}`): Promise<void>;
  heal(node: number | `svc${number}`): Promise<void>;
  /** Runs `command` (a service instance, with PATH, HOME and `env` as its environment) in namespace PREFIX-svcN. */
  startService(index: number, command: string[], env?: Record<string, string>): Promise<void>;
  stopService(index: number): Promise<void>;
  /** SIGKILL of node N's Patroni and PostgreSQL; startNode brings Patroni back (it rejoins as a replica). */
  kill(node: number): Promise<void>;
  startNode(node: number): Promise<void>;
  /** Runs patronictl with the cluster's configuration, e.g. ['switchover', '--force', '--candidate', 'pg2']. */
  patronictl(args: string[]): Promise<string>;
  down(): Promise<void>;
}

/** Why the cluster cannot run here, or null: it needs root (namespaces) and the Debian packages. */
export function haClusterUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'scripts/cluster.sh needs root for network namespaces';
  for (const binary of ['/usr/bin/patroni', '/usr/bin/etcd', '/usr/sbin/haproxy', '/usr/sbin/pgbouncer']) {
    if (!existsSync(binary)) return `${binary} is not installed (apt-get install patroni etcd-server haproxy pgbouncer)`;
  }
  // Root in a container may still lack CAP_NET_ADMIN: try one namespace.
  const probe = `${PREFIX}-probe-${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
  } catch (error) {
    return `network namespaces cannot be made here: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
  return null;
}

/**
 * Brings the topology up, a second time in a new folder if the first bring-up fails: Patroni's bootstrap (initdb, base
 * backups) is the engines' work, not the product's, and on a loaded machine it has once found no leader in time. The
 * first failure's output (the engines' last log lines) is printed, so it is not lost.
 */
export async function startHaCluster(timeoutMs = 300_000): Promise<HaCluster> {
  try {
    return await startHaClusterOnce(timeoutMs);
  } catch (error) {
    console.error(
      `scripts/cluster.sh up failed, trying once more in a new folder:\n${String((error as { stderr?: string }).stderr ?? error)}`,
    );
    return startHaClusterOnce(timeoutMs);
  }
}

async function startHaClusterOnce(timeoutMs: number): Promise<HaCluster> {
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}-`));
  const withDir = (args: string[], timeout = 60_000) => run('bash', [SCRIPT, ...args, dir], { timeout });
  // An instance gets PATH, HOME and its own variables only: a test runner's (vitest sets BASE_URL=/) would reach
  // the service's config as environment overrides. The script needs the cluster's names (OHA_*) to find DIR's hosts.
  const env = (extra: Record<string, string>) => {
    // OAUTH_CONFIG none: nor a config.json in the working directory (issue 32); a test gives its own with --config.
    const base: Record<string, string> = { OAUTH_CONFIG: 'none' };
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && /^(PATH|HOME|OHA_.*)$/.test(key)) base[key] = value;
    return { ...base, ...extra };
  };
  try {
    await withDir(['up'], timeoutMs);
  } catch (error) {
    await withDir(['down'], 120_000).catch(() => undefined);
    throw error;
  }
  return {
    dir,
    status: async () => parseStatus((await withDir(['status'], 30_000)).stdout),
    partition: async (node) => void (await withDir(['partition', String(node)])),
    heal: async (node) => void (await withDir(['heal', String(node)])),
    kill: async (node) => void (await withDir(['kill', String(node)])),
    startNode: async (node) => void (await withDir(['start-node', String(node)])),
    startService: async (index, command, extra = {}) =>
      void (await run('bash', [SCRIPT, 'start-service', String(index), dir, '--', ...command], { timeout: 30_000, env: env(extra) })),
    stopService: async (index) => void (await withDir(['stop-service', String(index)])),
    patronictl: async (args) => (await run('patronictl', ['-c', join(dir, 'pg1/patroni.yml'), ...args], { timeout: 60_000 })).stdout,
    down: async () => void (await withDir(['down'], 120_000)),
  };
}

export function parseStatus(stdout: string): HaStatus {
  const raw: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) raw[match[1]!] = match[2]!;
  }
  const nodes = [1, 2, 3].map((index): HaNode => {
    const [name = '', ...pairs] = (raw[`NODE${index}`] ?? '').split(' ');
    const fields = Object.fromEntries(pairs.map((pair) => pair.split('=') as [string, string]));
    return { index, name, netns: fields.netns ?? '', address: fields.address ?? '', role: (fields.role ?? 'unreachable') as NodeRole };
  });
  const services = [1, 2, 3].map((index) => {
    const fields = Object.fromEntries(
      (raw[`SERVICE${index}`] ?? '')
        .split(' ')
        .slice(1)
        .map((pair) => pair.split('=') as [string, string]),
    );
    return { index, netns: fields.netns ?? '', address: fields.address ?? '', running: fields.running === 'yes' };
  });
  return {
    writeUrl: raw.WRITE_URL ?? '',
    readUrl: raw.READ_URL ?? '',
    pgbouncerUrl: raw.PGBOUNCER_URL ?? '',
    adminUrl: raw.ADMIN_URL ?? '',
    fromServices: { writeUrl: raw.SVC_WRITE_URL ?? '', readUrl: raw.SVC_READ_URL ?? '', pgbouncerUrl: raw.SVC_PGBOUNCER_URL ?? '' },
    nodes,
    services,
    leader: nodes.find((node) => node.role === 'leader') ?? null,
    raw,
  };
}
