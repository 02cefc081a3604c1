import type { OAuthDeps } from '../deps.js';
import { namesRealMoment } from '../calendar-date.js';
import { findUser, findUserByUsername } from '../users/users.js';
import { AUDIT_EVENT_TYPES, isAuditEventType } from './audit-event-types.js';
import { listAuditEvents, MAX_AUDIT_PAGE } from './audit-trail.js';
import type { AuditEventQuery } from './audit-store.js';

// The filters of the admin's Audit page and of `audit list`, as typed by a person: each bad one is named in a
// sentence, never a 500. All optional; the default page is the newest DEFAULT_AUDIT_PAGE events.

export interface AuditFilterInput {
  /** A users.id, or a user name. */
  user?: string | undefined;
  /** A client_id. */
  client?: string | undefined;
  type?: string | undefined;
  /** ISO 8601 instants: from inclusive, to exclusive. */
  from?: string | undefined;
  to?: string | undefined;
  limit?: string | undefined;
  /** The next page: events older than this id. */
  before?: string | undefined;
}

export const DEFAULT_AUDIT_PAGE = 50;

export type AuditFilter = { query: AuditEventQuery; errors: [] } | { query: null; errors: string[] };

const blank = (value: string | undefined) => value === undefined || value.trim() === '';
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

function instant(value: string | undefined, name: string, errors: string[]): Date | undefined {
  if (blank(value)) return undefined;
  const text = value!.trim();
  const date = ISO_INSTANT.test(text) && namesRealMoment(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()))
    errors.push(`${name} must be an ISO 8601 date or instant (2026-11-28 or 2026-11-28T10:00:00Z), not '${text}'`);
  return date;
}

function positiveInteger(value: string | undefined, name: string, max: number, errors: string[]): number | undefined {
  if (blank(value)) return undefined;
  const text = value!.trim();
  if (/^[1-9][0-9]{0,14}$/.test(text) && Number(text) <= max) return Number(text);
  errors.push(`${name} must be a whole number from 1 to ${max}, not '${text}'`);
  return undefined;
}

/**
 * The query these filters ask for, or every problem with them (a user name that names nobody is one), each named
 * as `labels` says (the CLI's --since for `from`), else by its parameter name.
 */
export async function auditFilterOf(
  deps: OAuthDeps,
  input: AuditFilterInput,
  labels: Partial<Record<keyof AuditFilterInput, string>> = {},
): Promise<AuditFilter> {
  const errors: string[] = [];
  const label = (name: keyof AuditFilterInput) => labels[name] ?? name;
  const type = blank(input.type) ? undefined : input.type!.trim();
  if (type !== undefined && !isAuditEventType(type)) errors.push(`unknown event type '${type}' (one of: ${AUDIT_EVENT_TYPES.join(', ')})`);
  const from = instant(input.from, label('from'), errors);
  const to = instant(input.to, label('to'), errors);
  const limit = positiveInteger(input.limit, label('limit'), MAX_AUDIT_PAGE, errors) ?? DEFAULT_AUDIT_PAGE;
  const beforeId = positiveInteger(input.before, label('before'), Number.MAX_SAFE_INTEGER, errors);
  const user = blank(input.user) ? undefined : await userOf(deps, input.user!.trim(), errors);
  const clientId = blank(input.client) ? undefined : input.client!.trim();
  // No client_id holds one (RFC 6749 appendix A), and PostgreSQL text cannot: said, rather than a failed query.
  if (clientId?.includes('\u0000')) errors.push(`${label('client')} must not contain a NUL character`);
  if (errors.length > 0) return { query: null, errors };
  return { query: { userId: user?.id, userName: user?.username, clientId, type, from, to, limit, beforeId }, errors: [] };
}

/**
 * A user's id, or name; an id also of a deleted user, whose events stay in the trail (without a name: the failed
 * sign-ins under it are not told from another's). An id no user ever had is an error, as a name no user has is
 * (docs/operations.md "Audit trail"), not an empty list.
 */
async function userOf(deps: OAuthDeps, user: string, errors: string[]): Promise<{ id: number; username?: string } | undefined> {
  const numeric = /^[1-9][0-9]{0,14}$/.test(user);
  if (numeric) {
    const id = Number(user);
    const found = await findUser(deps, id);
    if (found) return { id, username: found.username };
    if ((await listAuditEvents(deps, { userId: id, limit: 1 })).length > 0) return { id };
  }
  const named = await findUserByUsername(deps, user);
  if (!named) errors.push(numeric ? `no user with id or name '${user}'` : `no user named '${user}'`);
  return named ? { id: named.id, username: named.username } : undefined;
}
