import type { Stores } from '../store.js';
import type { ProvisioningChange } from '../provisioning/outcome.js';
import type { AuditEventType } from './audit-event-types.js';
import type { NewAuditEvent } from './audit-store.js';
import { findUserNamed } from '../users/usernames.js';

type Event = Omit<NewAuditEvent, 'actor' | 'ip'>;

// `apply -f` changes applications, users, resources and registration tokens as the admin UI and the other commands
// do, so each change is an admin change of the audit trail (issue 32 item 7), marked as coming from a provisioning
// file. A registration token is named as the file names it (the first 12 hex digits of its SHA-256).
const TYPES: Record<ProvisioningChange['kind'], Partial<Record<ProvisioningChange['action'], AuditEventType>>> = {
  application: { created: 'client.created', updated: 'client.updated', deleted: 'client.deleted' },
  user: { created: 'user.created', updated: 'user.updated', deleted: 'user.deleted' },
  resource: { created: 'resource.created', updated: 'resource.updated', deleted: 'resource.deleted' },
  registration_token: { created: 'registration_token.created', revoked: 'registration_token.revoked' },
};

/** The events of the changes a provisioning file made (none for what it left unchanged), users with their ids. */
export async function provisioningEvents(stores: Stores, changes: readonly ProvisioningChange[]): Promise<Event[]> {
  const events: Event[] = [];
  for (const { kind, name, action, fields } of changes) {
    const type = TYPES[kind][action];
    if (type === undefined) continue;
    const details = { via: 'apply', ...(fields.length > 0 && { fields }) };
    const event: Event = { type, outcome: 'success', subjectId: name, details };
    if (kind === 'application') events.push({ ...event, subjectType: 'client', clientId: name });
    if (kind === 'resource') events.push({ ...event, subjectType: 'resource' });
    if (kind === 'registration_token') events.push({ ...event, subjectType: 'registration_token' });
    if (kind === 'user') {
      // A deleted user is gone from the table: named by its username only.
      const user = action === 'deleted' ? null : await findUserNamed(stores.users, name);
      const ofUser = { ...event, subjectType: 'user' as const, subjectId: user ? String(user.id) : name, userId: user?.id ?? null };
      // A new password hash is a password change, recorded as the admin's reset is (user.password_changed).
      const claims = fields.filter((field) => field !== 'password_hash');
      if (action !== 'updated' || claims.length > 0)
        events.push({ ...ofUser, details: { via: 'apply', ...(claims.length > 0 && { fields: claims }), username: name } });
      if (action === 'updated' && claims.length < fields.length)
        events.push({ ...ofUser, type: 'user.password_changed', details: { via: 'apply', username: name } });
    }
  }
  return events;
}
