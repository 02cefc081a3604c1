// The storage interface of the audit trail (oauth_audit_events); src/storage/audit-event-repository.ts implements it.

import type { AuditEventType, AuditSubjectType } from './audit-event-types.js';

/** One security event as written: who did what to which object, from where, and how it ended. Never a secret. */
export interface NewAuditEvent {
  type: AuditEventType;
  outcome: 'success' | 'failure';
  /** `admin`, `cli`, `user:<id>`, `client:<client_id>`, or `system`. */
  actor: string;
  subjectType?: AuditSubjectType | null;
  subjectId?: string | null;
  /** The client concerned (its client_id), for filtering. */
  clientId?: string | null;
  /** The user concerned (users.id), for filtering. */
  userId?: number | null;
  /** The request's address; absent for the CLI. */
  ip?: string | null;
  /** Small facts that are not secrets: counts, changed field names, a username. */
  details?: object | null;
}

export interface AuditEventRecord extends Required<Omit<NewAuditEvent, 'type'>> {
  id: number;
  occurredAt: Date;
  /** A string, not AuditEventType: rows written by a later version may carry types this one does not know. */
  type: string;
}

/** The filters of the admin page and `audit list`: all optional, combined with AND; newest first. */
export interface AuditEventQuery {
  userId?: number | undefined;
  /**
   * With userId: also the failed sign-ins and lockouts that named this user name. Those hold the name as typed and no
   * user id (it may name nobody), so the user's own filter would miss the attacks on the account.
   */
  userName?: string | undefined;
  clientId?: string | undefined;
  type?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Rows with an id below this one only (the next page: keyset pagination on id, which grows with time). */
  beforeId?: number | undefined;
  limit: number;
}

export interface AuditEventStore {
  add(event: NewAuditEvent, at: Date): Promise<void>;
  list(query: AuditEventQuery): Promise<AuditEventRecord[]>;
}
