import type { ProvisionedKind, ProvisioningAction, ProvisioningChange } from '../oauth/provisioning/outcome.js';
import { printJson, type CliIo } from './io.js';

// What `apply` prints: one line per change (unchanged objects only in the count), or with --json every object.

const LABEL: Record<ProvisionedKind, string> = {
  application: 'application',
  user: 'user',
  resource: 'resource',
  registration_token: 'registration token',
};
const WOULD: Record<ProvisioningAction, string> = {
  created: 'would create',
  updated: 'would update',
  unchanged: 'would leave',
  deleted: 'would delete',
  revoked: 'would revoke',
};
const ACTIONS: ProvisioningAction[] = ['created', 'updated', 'deleted', 'revoked', 'unchanged'];

function changeLine(change: ProvisioningChange, dryRun: boolean): string {
  const fields = change.fields.length > 0 ? `: ${change.fields.join(', ')}` : '';
  const secret =
    change.newSecret === undefined
      ? ''
      : change.newSecret === null
        ? ' (a client secret would be generated)'
        : `\n  client secret (shown only now): ${change.newSecret}`;
  return `${dryRun ? WOULD[change.action] : change.action} ${LABEL[change.kind]} ${change.name}${fields}${secret}\n`;
}

export function printChanges(
  io: CliIo,
  changes: ProvisioningChange[],
  { file, dryRun, json }: { file: string; dryRun: boolean; json: boolean },
): void {
  const counts = Object.fromEntries(ACTIONS.map((action) => [action, changes.filter((change) => change.action === action).length]));
  if (json) {
    const entries = changes.map(({ newSecret, ...change }) => ({ ...change, ...(newSecret !== undefined && { secret: newSecret }) }));
    printJson(io, { file, dry_run: dryRun, changes: entries, summary: counts });
    return;
  }
  io.stdout(
    changes
      .filter((change) => change.action !== 'unchanged')
      .map((change) => changeLine(change, dryRun))
      .join(''),
  );
  const summary = ACTIONS.map((action) => `${counts[action]} ${action}`).join(', ');
  io.stdout(dryRun ? `dry run of ${file}, nothing was changed: ${summary}\n` : `applied ${file}: ${summary}\n`);
}
