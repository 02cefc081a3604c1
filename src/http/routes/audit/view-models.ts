import { AUDIT_EVENT_TYPES } from '../../../oauth/audit/audit-event-types.js';
import type { AuditFilter, AuditFilterInput } from '../../../oauth/audit/audit-filter.js';
import type { AuditEventRecord } from '../../../oauth/audit/audit-store.js';
import { adminTime } from '../../page-time.js';

// The view model of views/audit/index.eta (STYLE 14): the handler decides, the template prints.

export const AUDIT_PATH = '/oauth/audit';

const FILTERS = ['user', 'client', 'type', 'from', 'to', 'limit'] as const;

/** The filters' errors name the fields as the form's labels do. */
export const AUDIT_FIELD_LABELS = { client: 'Client', from: 'From', to: 'To', limit: 'Per page' } as const;

// details are small objects of counts and names: printed as key=value pairs, escaped by the template. Text is quoted
// (JSON's quoting): a name a stranger typed (`nobody reason=locked_out`) must not read as fields the server wrote.
const detailsText = (details: object | null) =>
  details === null
    ? ''
    : Object.entries(details)
        .map(([key, value]) => `${key}=${typeof value === 'string' || typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
        .join(' ');

/**
 * The page: the filters as typed, the events (or the filters' errors, and which fields they are about), the link to
 * the next page, and how long events are kept.
 */
export function auditView(input: AuditFilterInput, filtered: AuditFilter, events: AuditEventRecord[], retentionDays: number) {
  const limit = filtered.query?.limit ?? 0;
  const values = Object.fromEntries(FILTERS.map((name) => [name, input[name] ?? '']));
  const last = events.at(-1);
  const next =
    last && events.length === limit
      ? `${AUDIT_PATH}?${new URLSearchParams({ ...values, before: String(last.id) } as Record<string, string>).toString()}`
      : null;
  return {
    title: 'Audit',
    navAudit: true,
    values,
    types: AUDIT_EVENT_TYPES,
    errors: filtered.errors,
    invalid: Object.fromEntries(filtered.fields.map((field) => [field, true])),
    retentionDays,
    next,
    events: events.map((event) => ({
      id: event.id,
      occurredAt: adminTime(event.occurredAt),
      occurredAtIso: event.occurredAt.toISOString(),
      type: event.type,
      outcome: event.outcome,
      actor: event.actor,
      subject: event.subjectType === null ? '' : `${event.subjectType} ${event.subjectId ?? ''}`,
      clientId: event.clientId ?? '',
      ip: event.ip ?? '',
      details: detailsText(event.details),
    })),
  };
}
