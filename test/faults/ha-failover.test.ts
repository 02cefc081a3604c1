import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config/loader.js';
import { createDatabase, databaseOptions } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { createStores } from '../../src/storage/stores.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { haClusterUnavailable, startHaCluster, type HaCluster } from '../helpers/ha-cluster.js';
import { figures, loadThrough, type LoadFigures, type LoadRecord } from '../helpers/ha-load.js';
import { ROOT } from '../helpers/processes.js';
import { basicAuth } from '../helpers/test-server.js';

// Issue 20 on the real topology (scripts/cluster.sh): three service instances, each in its own network namespace
// (`node --import tsx src/main.ts serve`, as test/helpers/processes.ts runs the service), write through PgBouncer
// (transaction mode) and HAProxy's write port and read introspection from HAProxy's synchronous-standby port.
// Under mixed load on all three the Patroni leader is SIGKILLed, then cut off the network, then switched over.
// Every failed request is a 503 with Retry-After, nothing acknowledged is lost, writes come back by themselves.
const skip = haClusterUnavailable();
const INSTANCES = [1, 2, 3];
const PORT = 8080;

describe.skipIf(skip !== null)(`failover of the Patroni leader under three service instances${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: HaCluster;
  let client: TestClient;
  let urls: string[];
  let chains: string[];
  /** Every refresh token accepted so far, over all runs: none may be accepted twice. */
  const accepted = new Set<string>();
  /** Acknowledged tokens of earlier runs, checked again after each later fault. */
  const active = new Set<string>();
  const revoked: string[] = [];

  beforeAll(async () => {
    cluster = await startHaCluster();
    const status = await cluster.status();
    // The client, a user and the refresh chains are made directly on the leader (HAProxy's write port).
    const config = loadConfig({ input: { log: { level: 'silent' }, databaseUrl: status.writeUrl } });
    const database = await createDatabase(databaseOptions(config));
    try {
      await migrate(database);
      const deps = domainDeps(database, config, createStores(database, { applicationCacheSeconds: 0 }));
      client = await createClient(deps);
      const user = await createUser(deps);
      chains = [];
      for (const _ of INSTANCES) {
        const issued = await issueToken(deps, {
          application: client.application,
          resourceOwnerId: user.id,
          grantType: 'authorization_code',
          withRefreshToken: true,
        });
        chains.push(issued.refreshToken!);
      }
    } finally {
      await database.close();
    }
    const env = {
      DATABASE_URL: status.fromServices.pgbouncerUrl,
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_DIRECT_URL: status.fromServices.writeUrl,
      DATABASE_READ_URL: status.fromServices.readUrl,
      SESSION_SECRET: 'ha-failover-'.repeat(4),
      HOST: '0.0.0.0',
      PORT: String(PORT),
      LOG_LEVEL: 'warn',
    };
    await Promise.all(
      INSTANCES.map((n) => cluster.startService(n, [process.execPath, '--import', 'tsx', join(ROOT, 'src/main.ts'), 'serve'], env)),
    );
    urls = status.services.map((service) => `http://${service.address}:${PORT}`);
    await Promise.all(urls.map((url) => waitReady(url, 90_000)));
  }, 400_000);
  afterAll(async () => {
    await cluster?.down();
  }, 180_000);

  const authorization = () => basicAuth(client.uid, client.secret!);
  const post = (url: string, path: string, body: Record<string, string>) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: authorization() },
      body: new URLSearchParams(body),
      signal: AbortSignal.timeout(20_000),
    });
  const introspect = async (url: string, token: string) =>
    (await (await post(url, '/oauth/introspect', { token })).json()) as { active: boolean };

  /** Until /readyz answers 200 (bounded). */
  async function waitReady(url: string, ms: number) {
    const deadline = Date.now() + ms;
    for (;;) {
      const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) {
        const log = join(cluster.dir, `logs/svc${urls.indexOf(url) + 1}.log`);
        throw new Error(
          `${url}/readyz answers ${status} after ${ms} ms; ${log}:\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '(none)'}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Until all three members run again with a leader and a synchronous standby (90 s at most). */
  async function waitForHealthyCluster() {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = await cluster.status();
      const roles = status.nodes.map((node) => node.role);
      if (!roles.includes('unreachable') && roles.includes('leader') && roles.includes('sync_standby')) return status;
      if (Date.now() > deadline) throw new Error(`cluster not healthy after 90 s: ${roles.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  /** A token issued and revoked (200) on svc1 just before the fault: checked inactive on every instance after. */
  async function revokedJustBefore() {
    const token = ((await (await post(urls[0]!, '/oauth/token', { grant_type: 'client_credentials' })).json()) as { access_token: string })
      .access_token;
    expect((await post(urls[0]!, '/oauth/revoke', { token })).status).toBe(200);
    return token;
  }

  async function underLoad(
    name: string,
    fault: () => Promise<void>,
    seconds: number,
  ): Promise<{ record: LoadRecord; figures: LoadFigures }> {
    const kept =
      [...active][0] ??
      ((await (await post(urls[0]!, '/oauth/token', { grant_type: 'client_credentials' })).json()) as { access_token: string })
        .access_token;
    active.add(kept);
    const record = await loadThrough({ urls, authorization: authorization(), kept, chains }, fault, { seconds });
    const result = figures(record, urls.length);
    console.log(
      `${name}: ${result.requests} requests, failed: ${JSON.stringify(result.failures)}; first write ${result.firstWriteMs} ms after the fault, ` +
        `full throughput (${result.baselinePerSecond}/s before) after ${result.fullThroughputMs} ms; slowest ${result.slowestMs} ms; ` +
        `${record.rotated.length} rotations, refused refreshes: ${record.refusedRefreshes.join(', ') || 'none'}; ` +
        `${record.active.size} issued tokens acknowledged, ${record.revoked.length} revocations acknowledged; /readyz 503 seen on ${result.readyz503.map((seen, k) => `svc${k + 1}=${seen}`).join(' ')}`,
    );
    // RFC 6749 section 10.4 / SPEC: a refresh token is used once; the same one accepted twice is a lost rotation.
    for (const token of record.rotated) {
      expect(accepted.has(token)).toBe(false);
      accepted.add(token);
    }
    // Every failure is a 503 with Retry-After: never a 500, never an unanswered request.
    expect(Object.keys(result.failures).filter((failure) => !/^503 retry-after=\d+$/.test(failure))).toEqual([]);
    expect(result.readyzOther).toBe(0);
    for (const token of record.active) active.add(token);
    revoked.push(...record.revoked);
    return { record, figures: result };
  }

  /** Every instance ready again, every acknowledged token active on one of them, every revocation inactive on all. */
  async function expectNothingLost(justRevoked: string, chainTokens: string[]) {
    await Promise.all(urls.map((url) => waitReady(url, 30_000)));
    const tokens = [...active, ...chainTokens];
    const lost: string[] = [];
    // Checked on the instance (i + j) % 3: all three serve from the same database.
    for (let i = 0; i < tokens.length; i += 20) {
      await Promise.all(
        tokens.slice(i, i + 20).map(async (token, j) => {
          if (!(await introspect(urls[(i + j) % urls.length]!, token)).active) lost.push(token);
        }),
      );
    }
    expect(lost).toEqual([]);
    const stillActive: string[] = [];
    for (const url of urls) {
      for (const token of [justRevoked, ...revoked]) if ((await introspect(url, token)).active) stillActive.push(`${url} ${token}`);
    }
    expect(stillActive).toEqual([]);
  }

  it('SIGKILL of the leader: 503 with Retry-After while there is none, nothing acknowledged lost, writes back without a restart', async () => {
    const leader = (await waitForHealthyCluster()).leader!;
    const justRevoked = await revokedJustBefore();
    try {
      const { figures: run, record } = await underLoad('SIGKILL of the leader', () => cluster.kill(leader.index), 25);
      expect(run.firstWriteMs).toBeLessThan(25_000);
      expect((await cluster.status()).leader?.index).not.toBe(leader.index);
      await expectNothingLost(justRevoked, record.chainTokens);
    } finally {
      await cluster.startNode(leader.index);
    }
  }, 240_000);

  it('the leader cut off the network: the same, and the old leader rejoins once healed', async () => {
    const leader = (await waitForHealthyCluster()).leader!;
    const justRevoked = await revokedJustBefore();
    try {
      const { figures: run, record } = await underLoad('network partition of the leader', () => cluster.partition(leader.index), 30);
      expect(run.firstWriteMs).toBeLessThan(25_000);
      expect((await cluster.status()).leader?.index).not.toBe(leader.index);
      await expectNothingLost(justRevoked, record.chainTokens);
    } finally {
      await cluster.heal(leader.index);
    }
    const healed = await waitForHealthyCluster();
    expect(healed.nodes[leader.index - 1]!.role).not.toBe('leader');
  }, 240_000);

  it('a switchover (patronictl switchover): the failed requests counted, none of them 500', async () => {
    const status = await waitForHealthyCluster();
    const candidate = status.nodes.find((node) => node.role === 'sync_standby')!;
    const justRevoked = await revokedJustBefore();
    const { record } = await underLoad(
      'switchover',
      async () => {
        // Patroni refuses a switchover while a member is still catching up: try again for a while.
        for (let attempt = 1; ; attempt += 1) {
          try {
            await cluster.patronictl(['switchover', '--force', '--candidate', candidate.name]);
            return;
          } catch (error) {
            if (attempt === 5) throw error;
            await new Promise((resolve) => setTimeout(resolve, 3_000));
          }
        }
      },
      10,
    );
    expect((await cluster.status()).leader?.name).toBe(candidate.name);
    await expectNothingLost(justRevoked, record.chainTokens);
  }, 240_000);
});
