import type { ApplicationRecord } from '../store.js';
import type { AuditEventType } from './audit-event-types.js';
import type { NewAuditEvent } from './audit-store.js';

// Issue 34: tokens a client got for a user who did not sign in here. Items 3 and 4: a trusted issuer's assertion
// redeemed (the JWT bearer grant), naming the issuer; a token exchange (RFC 8693), naming the subject, the actor
// (the act claim's outermost sub, or none for impersonation), the audience and what was issued. Never a token value.

export function assertionRedeemedEvent(
  userId: number,
  application: ApplicationRecord,
  ip: string,
  details: { issuer: string; id_jag: boolean; token_id: number },
): NewAuditEvent {
  return clientForUserEvent('assertion.redeemed', userId, application, ip, details);
}

export function tokenExchangedEvent(
  userId: number,
  application: ApplicationRecord,
  ip: string,
  details: { subject_token_type: string; issued_token_type: string; actor: string | null; audience: string[]; token_id: number | null },
): NewAuditEvent {
  return clientForUserEvent('token.exchanged', userId, application, ip, details);
}

function clientForUserEvent(
  type: AuditEventType,
  userId: number,
  application: ApplicationRecord,
  ip: string,
  details: NewAuditEvent['details'],
): NewAuditEvent {
  return {
    type,
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
