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

/** The query, or the problems: each a sentence, and the fields they are about (a form marks those). */
export type AuditFilter =
  { query: AuditEventQuery; errors: []; fields: [] } | { query: null; errors: string[]; fields: Array<keyof AuditFilterInput> };

type Fail = (field: keyof AuditFilterInput, message: string) => void;

const blank = (value: string | undefined) => value === undefined || value.trim() === '';
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

function instant(value: string | undefined, field: keyof AuditFilterInput, name: string, fail: Fail): Date | undefined {
  if (blank(value)) return undefined;
  const text = value!.trim();
  const date = ISO_INSTANT.test(text) && namesRealMoment(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()))
    fail(field, `${name} must be an ISO 8601 date or instant (2026-11-28 or 2026-11-28T10:00:00Z), not '${text}'`);
  return date;
}

function positiveInteger(
  value: string | undefined,
  field: keyof AuditFilterInput,
  name: string,
  max: number,
  fail: Fail,
): number | undefined {
  if (blank(value)) return undefined;
  const text = value!.trim();
  if (/^[1-9][0-9]{0,14}$/.test(text) && Number(text) <= max) return Number(text);
  fail(field, `${name} must be a whole number from 1 to ${max}, not '${text}'`);
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
  const fields: Array<keyof AuditFilterInput> = [];
  const fail: Fail = (field, message) => (errors.push(message), fields.push(field));
  const label = (name: keyof AuditFilterInput) => labels[name] ?? name;
  const type = blank(input.type) ? undefined : input.type!.trim();
  if (type !== undefined && !isAuditEventType(type)) fail('type', `unknown event type '${type}' (one of: ${AUDIT_EVENT_TYPES.join(', ')})`);
  const from = instant(input.from, 'from', label('from'), fail);
  const to = instant(input.to, 'to', label('to'), fail);
  const limit = positiveInteger(input.limit, 'limit', label('limit'), MAX_AUDIT_PAGE, fail) ?? DEFAULT_AUDIT_PAGE;
  const beforeId = positiveInteger(input.before, 'before', label('before'), Number.MAX_SAFE_INTEGER, fail);
  const user = blank(input.user) ? undefined : await userOf(deps, input.user!.trim(), (message) => fail('user', message));
  const clientId = blank(input.client) ? undefined : input.client!.trim();
  // No client_id holds one (RFC 6749 appendix A), and PostgreSQL text cannot: said, rather than a failed query.
  if (clientId?.includes('\u0000')) fail('client', `${label('client')} must not contain a NUL character`);
  if (errors.length > 0) return { query: null, errors, fields };
  return { query: { userId: user?.id, userName: user?.username, clientId, type, from, to, limit, beforeId }, errors: [], fields: [] };
}

/**
 * A user's id, or name; an id also of a deleted user, whose events stay in the trail (without a name: the failed
 * sign-ins under it are not told from another's). An id no user ever had is an error, as a name no user has is
 * (docs/operations.md "Audit trail"), not an empty list.
 */
async function userOf(
  deps: OAuthDeps,
  user: string,
  fail: (message: string) => void,
): Promise<{ id: number; username?: string } | undefined> {
  const numeric = /^[1-9][0-9]{0,14}$/.test(user);
  if (numeric) {
    const id = Number(user);
    const found = await findUser(deps, id);
    if (found) return { id, username: found.username };
    if ((await listAuditEvents(deps, { userId: id, limit: 1 })).length > 0) return { id };
  }
  const named = await findUserByUsername(deps, user);
  if (!named) fail(numeric ? `no user with id or name '${user}'` : `no user named '${user}'`);
  return named ? { id: named.id, username: named.username } : undefined;
}
