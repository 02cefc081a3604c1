import { spawn } from 'node:child_process';
import pg from 'pg';
import { combine, runLoad, type LoadRun, type Measurement } from './load.js';
import { ROOT, type ServerProcess } from './processes.js';
import { markdownTable, ms, rate } from './report.js';
import type { Scenario } from './scenarios.js';
import { countTokens, generatedTokenSql, insertGeneratedTokens } from './seed.js';

// Issue 7: `tokens cleanup` on 1M expired and revoked rows, in bounded batches, while introspection keeps
// serving. The cleanup runs as ops run it (the CLI, as from cron), beside a load of introspections of random
// live tokens; a monitor connection samples pg_stat_activity to see how long each cleanup transaction stays
// open and whether any session ever waits on a lock.

export interface CleanupAtScaleResult {
  staleRows: number;
  rowsBefore: number;
  rowsAfter: number;
  /** What the CLI printed with --json. */
  deleted: number;
  batchSize: number;
  seconds: number;
  /** Longest age of a cleanup transaction seen by the monitor (each batch is one autocommitted statement). */
  longestBatchMs: number;
  samples: number;
  /** Samples in which some session of the database waited on a lock. */
  lockWaitSamples: number;
  /** Introspection while the cleanup ran. */
  during: Measurement;
}

const SAMPLE_EVERY_MS = 20;

/**
 * Inserts `count` stale access tokens of the application, half expired (issued two days ago with a 2-hour
 * lifetime, no refresh token) and half revoked a day ago (see insertGeneratedTokens).
 */
export function insertStaleTokens(
  url: string,
  { applicationId, count, hashTokens }: { applicationId: number; count: number; hashTokens: boolean },
  progress: (done: number) => void,
): Promise<number> {
  const insert = `INSERT INTO oauth_access_tokens (application_id, token, expires_in, scopes, created_at, revoked_at, previous_refresh_token)
    SELECT $1, ${generatedTokenSql('s', hashTokens)}, 7200, 'read',
      (now() AT TIME ZONE 'utc') - interval '2 days' + n * interval '1 millisecond',
      CASE WHEN n % 2 = 0 THEN (now() AT TIME ZONE 'utc') - interval '1 day' + n * interval '1 millisecond' END, ''
    FROM generate_series($2::bigint, $3::bigint) AS n`;
  return insertGeneratedTokens(url, { applicationId, from: 1, to: count, insert }, progress);
}

/** Runs `tokens cleanup --json` beside an introspection load that lasts exactly as long as the cleanup. */
export async function cleanupUnderLoad(
  service: ServerProcess,
  introspection: Scenario,
  {
    url,
    cliArgs,
    configPath,
    connections,
    batchSize,
    staleRows,
  }: { url: string; cliArgs: string[]; configPath: string; connections: number; batchSize: number; staleRows: number },
): Promise<CleanupAtScaleResult> {
  const monitor = new pg.Client({ connectionString: url, application_name: 'bench-monitor' });
  await monitor.connect();
  try {
    const rowsBefore = await countTokens(monitor);
    let sampling = true;
    let longestBatchMs = 0;
    let samples = 0;
    let lockWaitSamples = 0;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await monitor.query<{ batch_ms: number | null; lock_waits: number }>(
          `SELECT max(extract(epoch FROM clock_timestamp() - xact_start) * 1000) FILTER (WHERE query LIKE '%DELETE FROM oauth_%') AS batch_ms,
                  count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS lock_waits
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
        );
        samples += 1;
        longestBatchMs = Math.max(longestBatchMs, Number(rows[0]?.batch_ms ?? 0));
        if ((rows[0]?.lock_waits ?? 0) > 0) lockWaitSamples += 1;
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
      }
    })();
    const started = Date.now();
    let load: LoadRun;
    let printed: string;
    let seconds: number;
    try {
      const cleanup = runCli([...cliArgs, 'tokens', 'cleanup', '--json', '--batch-size', String(batchSize), '--config', configPath]);
      const finished = cleanup.then(
        () => Date.now(),
        () => Date.now(),
      );
      load = await runLoad(service.baseUrl, introspection, { connections, seconds: 3600 }, { until: finished });
      seconds = ((await finished) - started) / 1000;
      printed = await cleanup;
    } finally {
      sampling = false;
      await sampler;
    }
    const { total } = JSON.parse(printed) as { total: number };
    return {
      staleRows,
      rowsBefore,
      rowsAfter: await countTokens(monitor),
      deleted: total,
      batchSize,
      seconds,
      longestBatchMs,
      samples,
      lockWaitSamples,
      during: combine([load]),
    };
  } finally {
    await monitor.end();
  }
}

function runCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`tokens cleanup exited with ${code}: ${stderr || stdout}`)),
    );
  });
}

export function cleanupTable(result: CleanupAtScaleResult, before: Measurement | undefined): string {
  const m = result.during;
  const errors =
    Object.entries(m.problems)
      .map(([kind, n]) => `${n} × ${kind}`)
      .join(', ') || 'none';
  return markdownTable(
    ['tokens cleanup under introspection load', 'value'],
    [
      ['stale rows inserted (half expired, half revoked)', result.staleRows.toLocaleString('en-US')],
      [
        'rows in oauth_access_tokens before → after',
        `${result.rowsBefore.toLocaleString('en-US')} → ${result.rowsAfter.toLocaleString('en-US')}`,
      ],
      [
        'deleted (CLI --json total), batch size',
        `${result.deleted.toLocaleString('en-US')}, ${result.batchSize.toLocaleString('en-US')} rows`,
      ],
      ['cleanup wall time, rows/s', `${result.seconds.toFixed(1)} s, ${rate(result.deleted / result.seconds)}`],
      [`longest cleanup transaction seen (${result.samples} samples of pg_stat_activity)`, `${result.longestBatchMs.toFixed(0)} ms`],
      ['samples with a session waiting on a lock', String(result.lockWaitSamples)],
      ['introspection during cleanup: req/s, p50 / p99 ms, errors', `${rate(m.requestsPerSecond)}, ${ms(m.p50)} / ${ms(m.p99)}, ${errors}`],
      ...(before
        ? [
            [
              'introspection just before, same load (the larger scale run above): req/s, p50 / p99 ms',
              `${rate(before.requestsPerSecond)}, ${ms(before.p50)} / ${ms(before.p99)}`,
            ],
          ]
        : []),
    ],
  );
}
