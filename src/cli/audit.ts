import { auditFilterOf } from '../oauth/audit/audit-filter.js';
import { listAuditEvents, MAX_AUDIT_PAGE } from '../oauth/audit/audit-trail.js';
import type { AuditEventRecord } from '../oauth/audit/audit-store.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, printTable, UsageError, type CliIo } from './io.js';
import { runSubcommand } from './subcommands.js';

const HELP = `Usage: oauth-service audit list [options]     (--json, --config PATH, --help)

The audit trail (issue 32 item 7): sign-ins, sign-outs, lockouts, consent, token revocations, refresh token reuse,
and every admin change to applications, users, resources, registration tokens and signing keys; newest first.
Kept audit.retentionDays (default 90); 'tokens cleanup' deletes older events.

  list [--user U] [--client C] [--type T] [--since ISO] [--until ISO] [--limit N]
      --user     a user id or user name
      --client   a client_id
      --type     an event type, e.g. user.sign_in.failed, client.updated, token.revoked
      --since    events at or after this instant (ISO 8601: 2026-11-28 or 2026-11-28T10:00:00Z)
      --until    events before this instant
      --limit    how many, 1 to ${MAX_AUDIT_PAGE} (default 50)
      --json prints a list of {"id", "occurred_at", "type", "outcome", "actor", "subject_type", "subject_id",
             "client_id", "user_id", "ip", "details"}
`;

export function runAuditCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('audit', HELP, { list }, args, io);
}

const eventJson = (event: AuditEventRecord) => ({
  id: event.id,
  occurred_at: event.occurredAt.toISOString(),
  type: event.type,
  outcome: event.outcome,
  actor: event.actor,
  subject_type: event.subjectType,
  subject_id: event.subjectId,
  client_id: event.clientId,
  user_id: event.userId,
  ip: event.ip,
  details: event.details,
});

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {
    user: { type: 'string' },
    client: { type: 'string' },
    type: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
  });
  if (values.help) return (io.stdout(HELP), 0);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const input = {
      user: values.user,
      client: values.client,
      type: values.type,
      from: values.since,
      to: values.until,
      limit: values.limit,
    };
    const filter = await auditFilterOf(deps, input, { from: '--since', to: '--until', limit: '--limit' });
    if (filter.query === null) throw new UsageError(filter.errors.join('; '));
    const events = await listAuditEvents(deps, filter.query);
    if (values.json) return (printJson(io, events.map(eventJson)), 0);
    const rows = events.map((event) => [
      event.occurredAt.toISOString(),
      event.type,
      event.outcome,
      event.actor,
      event.subjectType === null ? '' : `${event.subjectType}:${event.subjectId ?? ''}`,
      event.ip ?? '',
    ]);
    printTable(io, ['occurred_at', 'type', 'outcome', 'actor', 'subject', 'ip'], rows);
    return 0;
  });
}
