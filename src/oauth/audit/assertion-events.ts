import type { ApplicationRecord } from '../store.js';
import type { NewAuditEvent } from './audit-store.js';

// Issue 34 item 3: a trusted issuer's assertion redeemed at the token endpoint (the JWT bearer grant). No one signed
// in here: the issuer vouched for the user, so the event names the issuer beside the client and the user.

export function assertionRedeemedEvent(
  userId: number,
  application: ApplicationRecord,
  ip: string,
  details: { issuer: string; id_jag: boolean; token_id: number },
): NewAuditEvent {
  return {
    type: 'assertion.redeemed',
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
