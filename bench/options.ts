import { parseArgs } from 'node:util';

export interface BenchOptions {
  connections: number;
  /** Database connections of each server (service and baseline alike). */
  poolSize: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  soakSeconds: number;
  smallTokens: number;
  largeTokens: number;
  /** Expired and revoked rows for the `tokens cleanup` run; 0 = no cleanup run. */
  cleanupRows: number;
  only: string[] | null;
  scale: boolean;
  soak: boolean;
  useTsx: boolean;
  serviceConfig: string | null;
  markdownOut: string | null;
}

export const USAGE = `Usage: npm run bench -- [options]

Benchmarks the service against a bare Fastify + pg baseline on one private PostgreSQL (see bench/RESULTS.md).

  --quick               smoke run: 1 s warm-up, 3 s per run, 20 s soak, 100k "large" and stale token sets
  --duration S          seconds measured per endpoint and server (default 8)
  --warmup S            seconds of warm-up of each server before each endpoint (default 2)
  --rounds N            split the measured time into N alternating rounds, service then baseline (default 2)
  --connections N       concurrent keep-alive connections (default 16)
  --pool N              database connections of each server (default 4: 2 x the cores PostgreSQL runs on here)
  --soak-minutes M      length of the RSS run on the service (default 5)
  --small-tokens N      stored tokens of the first latency-at-scale run (default 10000)
  --large-tokens N      stored tokens of the second one (default 1000000)
  --stale-tokens N      expired and revoked rows that 'tokens cleanup' deletes under load (default 1000000)
  --no-cleanup          skip the cleanup run
  --only a,b            only these endpoints (names as printed in the table)
  --no-scale            skip the 10k / 1M introspection runs
  --no-soak             skip the RSS run
  --tsx                 run the service from src/ with tsx instead of the compiled dist/
  --service-config F    a JSON file merged into the service's config (both servers share the database)
  --markdown-out F      also write the report (method and tables) to F
Environment: BENCH_DATABASE_URL reuses a PostgreSQL server (a fresh database is created and dropped on it);
without it a private cluster is started with scripts/pg-cluster.sh and stopped at the end.`;

export function parseBenchOptions(argv: string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean' },
      quick: { type: 'boolean' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      pool: { type: 'string' },
      'soak-minutes': { type: 'string' },
      'small-tokens': { type: 'string' },
      'large-tokens': { type: 'string' },
      'stale-tokens': { type: 'string' },
      'no-cleanup': { type: 'boolean' },
      only: { type: 'string' },
      'no-scale': { type: 'boolean' },
      'no-soak': { type: 'boolean' },
      tsx: { type: 'boolean' },
      'service-config': { type: 'string' },
      'markdown-out': { type: 'string' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const quick = values.quick === true;
  const number = (name: string, value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number, got ${value}`);
    return parsed;
  };
  const small = Math.round(number('small-tokens', values['small-tokens'], 10_000));
  const large = Math.round(number('large-tokens', values['large-tokens'], quick ? 100_000 : 1_000_000));
  if (large < small) throw new Error('--large-tokens must be at least --small-tokens');
  return {
    connections: Math.round(number('connections', values.connections, 16)),
    poolSize: Math.round(number('pool', values.pool, 4)),
    warmupSeconds: number('warmup', values.warmup, quick ? 1 : 2),
    durationSeconds: number('duration', values.duration, quick ? 3 : 8),
    rounds: Math.round(number('rounds', values.rounds, quick ? 1 : 2)),
    soakSeconds: Math.round(number('soak-minutes', values['soak-minutes'], quick ? 1 / 3 : 5) * 60),
    smallTokens: small,
    largeTokens: large,
    cleanupRows: values['no-cleanup'] ? 0 : Math.round(number('stale-tokens', values['stale-tokens'], quick ? 100_000 : 1_000_000)),
    only: values.only
      ? values.only
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : null,
    scale: !values['no-scale'],
    soak: !values['no-soak'],
    useTsx: values.tsx === true,
    serviceConfig: values['service-config'] ?? null,
    markdownOut: values['markdown-out'] ?? null,
  };
}
