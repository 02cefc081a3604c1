import { approveApplication, ApprovalNotNeeded, setApplicationDisabled } from '../oauth/clients/applications.js';
import { holdsGrantType } from '../oauth/clients/client-holdings.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { ApplicationRecord } from '../oauth/store.js';
import type { VerdictResult } from '../oauth/clients/application-approval.js';
import { findApplication, notFound } from './apps-lookup.js';
import { printable, printStateChanged } from './apps-output.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, UsageError, type CliIo } from './io.js';
import { onePositional, type Subcommand } from './subcommands.js';
import { auditedChange, CLI_ACTOR } from '../oauth/audit/audit-trail.js';
import { verdictEvent } from '../oauth/audit/audit-subjects.js';
import type { AuditEventType } from '../oauth/audit/audit-event-types.js';

// Issue 19: `apps approve|disable|enable`, the admin pages' Approve, Disable and Enable, through the same domain
// functions. Each is idempotent (doing it again keeps the first time) and says so.

type StateChange = (
  deps: OAuthDeps,
  before: ApplicationRecord,
) => Promise<{ result: VerdictResult | null; sentence: (application: ApplicationRecord) => string }>;

const named = (application: ApplicationRecord) => `application ${application.id} (uid ${printable(application.uid)})`;

// Issue 29: an approval is also what lets a self-registered client use the client_credentials grant it registered.
const clientCredentialsOn = (deps: OAuthDeps, application: ApplicationRecord) =>
  application.grantTypes?.includes('client_credentials') && holdsGrantType(application, 'client_credentials', deps.config)
    ? ', and it may now use the client_credentials grant it registered'
    : '';

const approve: StateChange = async (deps, before) => {
  try {
    return {
      result: await approveApplication(deps, before.id),
      sentence: (application) =>
        before.approvedAt !== null
          ? `${named(application)} was already approved at ${before.approvedAt.toISOString()}`
          : `approved ${named(application)}: the consent screen no longer tells users that nobody reviewed it${clientCredentialsOn(deps, application)}`,
    };
  } catch (error) {
    if (!(error instanceof ApprovalNotNeeded)) throw error;
    throw new UsageError(`${named(before)} was created by an admin and needs no approval (only self-registered clients are approved)`);
  }
};

const disable: StateChange = async (deps, before) => ({
  result: await setApplicationDisabled(deps, before.id, true),
  sentence: (application) =>
    before.disabledAt !== null
      ? `${named(application)} was already disabled at ${before.disabledAt.toISOString()}`
      : `disabled ${named(application)}: it can no longer be authorized or get tokens, and this server refuses its ` +
        "tokens while it is disabled; nothing was revoked ('apps enable' restores it; JWT access tokens an API " +
        'verifies by itself stay valid until they expire)',
});

const enable: StateChange = async (deps, before) => ({
  result: await setApplicationDisabled(deps, before.id, false),
  sentence: (application) =>
    before.disabledAt === null
      ? `${named(application)} was not disabled`
      : `enabled ${named(application)}: it can be authorized and get tokens again`,
});

/** The subcommands, answering --help with the group's usage. */
export function stateSubcommands(help: string): Record<'approve' | 'disable' | 'enable', Subcommand> {
  return {
    approve: stateCommand(approve, 'client.approved', help),
    disable: stateCommand(disable, 'client.disabled', help),
    enable: stateCommand(enable, 'client.enabled', help),
  };
}

function stateCommand(change: StateChange, event: AuditEventType, help: string): Subcommand {
  return async (args: string[], io: CliIo): Promise<number> => {
    const { values, positionals } = parseOptions(args, {}, true);
    if (values.help) return (io.stdout(help), 0);
    const reference = onePositional(positionals, '<uid|id>');
    return withDatabase(configFrom(io, values.config), async (deps) => {
      const before = await findApplication(deps, reference);
      const changed = (tx: OAuthDeps) => change(tx, before);
      const { result, sentence } = await auditedChange(deps, CLI_ACTOR, changed, (r) => verdictEvent(event, r.result));
      // Deleted between the lookup and the change.
      if (!result) throw notFound(reference);
      printStateChanged(io, Boolean(values.json), result.application, sentence(result.application));
      return 0;
    });
  };
}
