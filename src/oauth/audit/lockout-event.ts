import type { LockoutKind } from '../limits/attempt-limits.js';
import type { NewAuditEvent } from './audit-store.js';

/**
 * The event of a lockout by the failure limits (SPEC 5 rateLimit): a client id or user name locked from an address,
 * or an address alone (unknown clients, many user names). The limiter acts, so the actor is `system`.
 */
export function lockoutEvent(kind: LockoutKind, address: string, seconds: number, name: string | null): NewAuditEvent {
  const client = kind === 'client' || kind === 'unknown_clients';
  return {
    type: client ? 'client.locked_out' : 'user.locked_out',
    outcome: 'failure',
    actor: 'system',
    subjectType: name === null ? null : client ? 'client' : 'user',
    subjectId: name,
    clientId: client ? name : null,
    ip: address,
    details: { kind, seconds, ...(!client && name !== null && { username: name }) },
  };
}
