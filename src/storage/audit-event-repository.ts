import type { AuditEventRecord, AuditEventStore } from '../oauth/audit/audit-store.js';
import { Prisma, type OauthAuditEvent } from './generated/browser.js';
import { selectList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_audit_events (issue 32 item 7): one INSERT per security event, on the caller's connection (inside an admin
// change's transaction, it commits with the change); read newest first with the admin page's filters.

const COLUMNS = selectList(Prisma.OauthAuditEventScalarFieldEnum);

const ADD = {
  name: 'audit_event_add',
  text: `INSERT INTO oauth_audit_events (occurred_at, type, outcome, actor, subject_type, subject_id, client_id, user_id, ip, details)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
};

// Each filter is skipped when its parameter is NULL, so one prepared statement serves every combination.
const LIST = {
  name: 'audit_events_list',
  text: `SELECT ${COLUMNS} FROM oauth_audit_events
    WHERE ($1::bigint IS NULL OR user_id = $1 OR (user_id IS NULL AND subject_type = 'user' AND subject_id = $8)) AND ($2::varchar IS NULL OR client_id = $2) AND ($3::varchar IS NULL OR type = $3)
      AND ($4::timestamp IS NULL OR occurred_at >= $4) AND ($5::timestamp IS NULL OR occurred_at < $5)
      AND ($6::bigint IS NULL OR id < $6)
    ORDER BY id DESC LIMIT $7`,
};

/** The table's one mapper. */
const toAuditEvent = ({ id, userId, details, subjectType, ...columns }: Row<OauthAuditEvent>): AuditEventRecord => ({
  ...columns,
  id: Number(id),
  userId: userId === null ? null : Number(userId),
  subjectType: subjectType as AuditEventRecord['subjectType'],
  outcome: columns.outcome as AuditEventRecord['outcome'],
  details: details === null ? null : (JSON.parse(details) as AuditEventRecord['details']),
});

// A failed attempt is recorded as it was made, and what it named may hold a NUL (a user name typed at the login
// form), which PostgreSQL text cannot store: shown as U+FFFD, so the event is kept rather than lost.
const storable = (value: string | null | undefined) => value?.replaceAll('\u0000', '\uFFFD') ?? null;

export function auditEventRepository(sql: SqlClient): AuditEventStore {
  return {
    async add(event, at) {
      await sql.query(ADD, [
        timestamp(at),
        event.type,
        event.outcome,
        storable(event.actor),
        event.subjectType ?? null,
        storable(event.subjectId),
        storable(event.clientId),
        event.userId ?? null,
        event.ip ?? null,
        event.details ? JSON.stringify(event.details) : null,
      ]);
    },
    async list(query) {
      const rows = await sql.query<Row<OauthAuditEvent>>(LIST, [
        query.userId ?? null,
        query.clientId ?? null,
        query.type ?? null,
        query.from ? timestamp(query.from) : null,
        query.to ? timestamp(query.to) : null,
        query.beforeId ?? null,
        query.limit,
        query.userName ?? null,
      ]);
      return rows.map(toAuditEvent);
    },
  };
}
