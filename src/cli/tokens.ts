import { CLEANUP_KINDS, cleanupStaleRecords, MIN_REVOKED_MARGIN_SECONDS, type CleanupKind } from '../storage/cleanup.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, UsageError, type CliIo } from './io.js';
import { runSubcommand } from './subcommands.js';

export const DEFAULT_BATCH_SIZE = 10_000;
const MAX_BATCH_SIZE = 100_000;

const HELP = `Usage: oauth-service tokens cleanup [--batch-size N] [--dry-run] [--json] [--config PATH]

Deletes stale rows in batches of N (default ${DEFAULT_BATCH_SIZE}), each batch its own short statement, so it
is safe to run while the service serves requests (for example daily from cron):
  expired tokens           expired access tokens without a refresh token
  expired refresh tokens   expired access tokens whose refresh token expired too (refreshTokens.expiresIn)
  revoked tokens           revoked more than max(refreshTokens.graceSeconds, ${MIN_REVOKED_MARGIN_SECONDS}) s ago, once no token
                           of their refresh family is live (rotated tokens are kept for reuse detection)
  revoked grants           codes used or revoked more than authorizationCodeExpiresIn ago
  expired grants           codes expired more than authorizationCodeExpiresIn ago
The margins keep a replayed code or refresh token recognisable for a while (RFC 6749 4.1.2, RFC 9700 4.14).
--dry-run counts what would be deleted and deletes nothing.
`;

const LABELS: Record<CleanupKind, string> = {
  expired_tokens: 'expired tokens',
  expired_refresh_tokens: 'expired refresh tokens',
  revoked_tokens: 'revoked tokens',
  revoked_grants: 'revoked grants',
  expired_grants: 'expired grants',
};

export function runTokensCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('tokens', HELP, { cleanup }, args, io);
}

async function cleanup(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { 'batch-size': { type: 'string' }, 'dry-run': { type: 'boolean' } });
  if (values.help) return io.stdout(HELP), 0;
  const batchSize = parseBatchSize(values['batch-size']);
  const dryRun = Boolean(values['dry-run']);
  const config = configFrom(io, values.config);
  return withDatabase(config, async (deps, database) => {
    const result = await cleanupStaleRecords(database, {
      now: deps.now(),
      batchSize,
      graceSeconds: config.refreshTokens.graceSeconds,
      refreshTokenExpiresIn: config.refreshTokens.expiresIn,
      authorizationCodeExpiresIn: config.authorizationCodeExpiresIn,
      dryRun,
    });
    if (values.json) {
      printJson(io, { ...result, dry_run: dryRun });
      return 0;
    }
    const width = Math.max(...Object.values(LABELS).map((label) => label.length)) + 2;
    const lines = CLEANUP_KINDS.map((kind) => `  ${`${LABELS[kind]}:`.padEnd(width)}${result.deleted[kind]}`);
    io.stdout(`${[dryRun ? 'would delete (dry run):' : 'deleted:', ...lines, `  ${'total:'.padEnd(width)}${result.total}`].join('\n')}\n`);
    return 0;
  });
}

function parseBatchSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_BATCH_SIZE;
  const size = /^[0-9]{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(size >= 1 && size <= MAX_BATCH_SIZE)) throw new UsageError(`--batch-size must be an integer from 1 to ${MAX_BATCH_SIZE}, not '${value}'`);
  return size;
}
