import { cleanUpStaleRecords, countKeptRecords, type KeptRecords } from '../oauth/cleanup/cleanup.js';
import { CLEANUP_KINDS, MIN_REVOKED_MARGIN_SECONDS, type CleanupKind } from '../oauth/cleanup/cleanup-policy.js';
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
  unused clients           self-registered clients (RFC 7591, Client ID Metadata Documents) never issued a token
                           within registration.unusedClientLifetimeSeconds of registering, unless an admin approved
                           them; their codes go with them
  logout deliveries        back-channel logout tokens delivered or given up more than openid.backchannelLogout
                           .keepDays ago (pending ones stay)
  device codes             RFC 8628 device authorizations expired more than authorizationCodeExpiresIn ago
  pushed requests          RFC 9126 pushed authorization requests past their expiry, used or not
The margins keep a replayed code or refresh token recognisable for a while (RFC 6749 4.1.2, RFC 9700 4.14).
--dry-run counts what would be deleted and deletes nothing, then counts what is kept on purpose, and why.
`;

const LABELS: Record<CleanupKind, string> = {
  expired_tokens: 'expired tokens',
  expired_refresh_tokens: 'expired refresh tokens',
  revoked_tokens: 'revoked tokens',
  revoked_grants: 'revoked grants',
  expired_grants: 'expired grants',
  unused_clients: 'unused clients',
  logout_deliveries: 'logout deliveries',
  audit_events: 'audit events',
  expired_device_codes: 'device codes',
  expired_login_sessions: 'login sessions',
  expired_pushed_requests: 'pushed requests',
};

export function runTokensCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('tokens', HELP, { cleanup }, args, io);
}

async function cleanup(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { 'batch-size': { type: 'string' }, 'dry-run': { type: 'boolean' } });
  if (values.help) return (io.stdout(HELP), 0);
  const batchSize = parseBatchSize(values['batch-size']);
  const dryRun = Boolean(values['dry-run']);
  const config = configFrom(io, values.config);
  return withDatabase(config, async (deps) => {
    const now = deps.now();
    const result = await cleanUpStaleRecords(deps, now, { batchSize, dryRun });
    const kept = dryRun ? await countKeptRecords(deps, now) : null;
    if (values.json) {
      printJson(io, { ...result, dry_run: dryRun, ...(kept && { kept }) });
      return 0;
    }
    const width = Math.max(...Object.values(LABELS).map((label) => label.length)) + 2;
    const lines = CLEANUP_KINDS.map((kind) => `  ${`${LABELS[kind]}:`.padEnd(width)}${result.deleted[kind]}`);
    io.stdout(`${[dryRun ? 'would delete (dry run):' : 'deleted:', ...lines, `  ${'total:'.padEnd(width)}${result.total}`].join('\n')}\n`);
    if (kept) io.stdout(keptText(kept, config.authorizationCodeExpiresIn));
    return 0;
  });
}

/** What a dry run keeps, each count with the reason it must stay. */
function keptText(kept: KeptRecords, codeSeconds: number): string {
  const margin = kept.revoked_margin_seconds;
  const marginRule = `max(refreshTokens.graceSeconds, ${MIN_REVOKED_MARGIN_SECONDS} s)`;
  return `kept on purpose:
  ${kept.revoked_within_margin} tokens revoked less than ${margin} s ago (${marginRule}): requests in flight may
      still read them, and a refresh retried within the grace window must find its rotated token
  ${kept.revoked_for_reuse_detection} rotated tokens of refresh families still in use: presenting one again must revoke
      the family (reuse detection, RFC 9700 section 4.14.2)
  ${kept.codes_for_replay_detection} codes used or expired less than ${codeSeconds} s ago (authorizationCodeExpiresIn): a replayed
      code must still revoke the tokens issued from it (RFC 6749 section 4.1.2)
  never deleted: tokens that never expire, and expired access tokens whose refresh token can still be used
`;
}

function parseBatchSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_BATCH_SIZE;
  const size = /^[0-9]{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(size >= 1 && size <= MAX_BATCH_SIZE))
    throw new UsageError(`--batch-size must be an integer from 1 to ${MAX_BATCH_SIZE}, not '${value}'`);
  return size;
}
