import type { OAuthDeps } from '../deps.js';
import type { Stores } from '../store.js';
import type { AuditEventQuery, AuditEventRecord, NewAuditEvent } from './audit-store.js';

// The audit trail (issue 32 item 7): every security event becomes one row of oauth_audit_events. An admin change
// and its event are one transaction (auditedChange): both are committed or neither, so the trail never shows a
// change that did not happen nor misses one that did. An event with no change to join (a failed sign-in, a
// lockout) is written alone (recordAuditEventAlone), and a failure to write it is reported, never turned into an
// error for the person signing in. The hot paths (introspection, client_credentials) record nothing.

/** Who acted, and from where: stamped on every event of one request or command. */
export interface AuditActor {
  actor: string;
  ip: string | null;
}

export const CLI_ACTOR: AuditActor = { actor: 'cli', ip: null };

type Deps = Pick<OAuthDeps, 'stores' | 'now'>;

/** Writes an event with these stores: inside a transaction, the event commits or rolls back with it. */
export function recordAuditEvent(stores: Stores, now: Date, event: NewAuditEvent): Promise<void> {
  return stores.auditEvents.add(event, now);
}

/**
 * Runs an admin change and writes its event in one transaction. `eventOf` turns the change's result into the event,
 * or null when nothing changed (an unknown id, a validation error thrown by `work` rolls everything back anyway).
 */
export function auditedChange<D extends Deps, T>(
  deps: D,
  by: AuditActor,
  work: (deps: D) => Promise<T>,
  eventOf: (result: T) => Omit<NewAuditEvent, 'actor' | 'ip'> | null,
): Promise<T> {
  return deps.stores.adminTransaction(async (stores) => {
    const result = await work({ ...deps, stores });
    const event = eventOf(result);
    if (event !== null) await recordAuditEvent(stores, deps.now(), { ...event, ...by });
    return result;
  });
}

/**
 * Writes the event of a change made outside any transaction of ours (a signing key, made under its own lock): after
 * the change, so a failed write is an error of the command, not a change without its event being silently dropped.
 */
export function recordChangeEvent(deps: Deps, by: AuditActor, event: Omit<NewAuditEvent, 'actor' | 'ip'> | null): Promise<void> {
  return event === null ? Promise.resolve() : recordAuditEvent(deps.stores, deps.now(), { ...event, ...by });
}

/**
 * Writes an event that has no change to join. A failed write goes to `report` (the log) and is not thrown: a
 * sign-in's answer must not depend on the audit table (docs/operations.md "Audit trail").
 */
export async function recordAuditEventAlone(deps: Deps, event: NewAuditEvent, report: (error: unknown) => void): Promise<void> {
  try {
    await recordAuditEvent(deps.stores, deps.now(), event);
  } catch (error) {
    report(error);
  }
}

/**
 * An event with no change to join, written by the domain itself (a sign-in at the token endpoint): a failed write
 * goes to the service's report (OAuthDeps.auditWriteFailed); without one (the CLI) it is thrown.
 */
export function recordDomainEvent(deps: Deps & Pick<OAuthDeps, 'auditWriteFailed'>, event: NewAuditEvent): Promise<void> {
  return deps.auditWriteFailed
    ? recordAuditEventAlone(deps, event, deps.auditWriteFailed)
    : recordAuditEvent(deps.stores, deps.now(), event);
}

/** The most events one page or one `audit list` shows. */
export const MAX_AUDIT_PAGE = 500;

/** Events matching the filters, newest first, at most MAX_AUDIT_PAGE. */
export function listAuditEvents(deps: Pick<OAuthDeps, 'stores'>, query: AuditEventQuery): Promise<AuditEventRecord[]> {
  return deps.stores.auditEvents.list({ ...query, limit: Math.min(Math.max(1, query.limit), MAX_AUDIT_PAGE) });
}
