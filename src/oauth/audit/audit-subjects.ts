import type { ApplicationRecord, ResourceRecord, UserRecord } from '../store.js';
import type { AuditEventType } from './audit-event-types.js';
import type { NewAuditEvent } from './audit-store.js';
import { changedRecordFields } from './changed-fields.js';

// The event of a change to one object, as auditedChange's `eventOf` returns it: null when there was no such object
// (nothing changed, nothing recorded). Each names the object and fills the filter columns (client_id, user_id).

type Event = Omit<NewAuditEvent, 'actor' | 'ip'>;
type Details = NewAuditEvent['details'];

export function clientEvent(type: AuditEventType, application: ApplicationRecord, details?: Details): Event;
export function clientEvent(type: AuditEventType, application: ApplicationRecord | null | undefined, details?: Details): Event | null;
export function clientEvent(type: AuditEventType, application: ApplicationRecord | null | undefined, details?: Details): Event | null {
  return application
    ? { type, outcome: 'success', subjectType: 'client', subjectId: application.uid, clientId: application.uid, details: details ?? null }
    : null;
}

/** An admin's verdict on an application (approve, disable, enable): recorded only when it changed it. */
export const verdictEvent = (type: AuditEventType, result: { application: ApplicationRecord; changed: boolean } | null): Event | null =>
  clientEvent(type, result?.changed ? result.application : null);

export const userEvent = (type: AuditEventType, user: UserRecord | null | undefined, details?: Details): Event | null =>
  user
    ? {
        type,
        outcome: 'success',
        subjectType: 'user',
        subjectId: String(user.id),
        userId: user.id,
        details: { username: user.username, ...details },
      }
    : null;

export const resourceEvent = (type: AuditEventType, resource: ResourceRecord | null | undefined): Event | null =>
  resource ? { type, outcome: 'success', subjectType: 'resource', subjectId: resource.uri, details: { name: resource.name } } : null;

/**
 * A resource's update: the names of the stored fields it changed (snake_case, as apply names them), or null when it
 * changed none (nothing to record) or the resource is gone.
 */
export function resourceUpdatedEvent(before: ResourceRecord, after: ResourceRecord | null): Event | null {
  if (after === null) return null;
  const { updatedAt: _updatedAt, ...stored } = after;
  const fields = changedRecordFields(stored, before);
  if (fields.length === 0) return null;
  return { ...resourceEvent('resource.updated', after)!, details: { name: after.name, fields } };
}

/** A change to an object named by its id alone (a registration token, a signing key); null when `changed` is false. */
export const objectEvent = (
  type: AuditEventType,
  subjectType: NewAuditEvent['subjectType'],
  subjectId: string | number,
  changed = true,
  details?: Details,
): Event | null => (changed ? { type, outcome: 'success', subjectType, subjectId: String(subjectId), details: details ?? null } : null);
