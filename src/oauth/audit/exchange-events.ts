import type { ApplicationRecord } from '../store.js';
import type { NewAuditEvent } from './audit-store.js';

// Issue 34 item 4: every token exchange (RFC 8693) is an event naming the subject (the user), the actor (the act
// claim's outermost sub, or none for impersonation), the audience and what was issued. Never a token value.

export function tokenExchangedEvent(
  userId: number,
  application: ApplicationRecord,
  ip: string,
  details: { subject_token_type: string; issued_token_type: string; actor: string | null; audience: string[]; token_id: number | null },
): NewAuditEvent {
  return {
    type: 'token.exchanged',
    outcome: 'success',
    actor: `client:${application.uid}`,
    clientId: application.uid,
    subjectType: 'user',
    subjectId: String(userId),
    userId,
    ip,
    details,
  };
}
