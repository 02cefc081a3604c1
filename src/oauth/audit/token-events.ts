import type { AccessTokenRecord, ApplicationRecord } from '../store.js';
import type { NewAuditEvent } from './audit-store.js';

// The events of tokens and consent: what a client or a user did to the tokens of an authorization. They name the
// token by its row id, never by its value.

const client = (application: ApplicationRecord | null) =>
  application ? { actor: `client:${application.uid}`, clientId: application.uid } : null;

/** RFC 9700 section 4.14.2: a rotated refresh token presented again; its family was revoked. */
export function reuseDetectedEvent(
  token: AccessTokenRecord,
  presenter: ApplicationRecord | null,
  ip: string,
  familyRevoked: number,
): NewAuditEvent {
  return {
    type: 'refresh_token.reuse_detected',
    outcome: 'failure',
    actor: 'anonymous',
    ...client(presenter),
    subjectType: 'token',
    subjectId: String(token.id),
    userId: token.resourceOwnerId,
    ip,
    details: { family_revoked: familyRevoked },
  };
}

/** RFC 7009: a client revoked one of its tokens (and, for a refresh token, its family). */
export function revocationEvent(
  token: AccessTokenRecord,
  revoker: ApplicationRecord,
  ip: string | null,
  details: { kind: string; family_revoked: number },
): NewAuditEvent {
  return {
    type: 'token.revoked',
    outcome: 'success',
    actor: `client:${revoker.uid}`,
    clientId: revoker.uid,
    subjectType: 'token',
    subjectId: String(token.id),
    userId: token.resourceOwnerId,
    ip,
    details,
  };
}

/** A user approved an authorization request on the consent screen (or it was approved for them: `skipped`). */
export function consentEvent(
  type: 'consent.given' | 'consent.revoked',
  userId: number,
  application: Pick<ApplicationRecord, 'uid'> | null,
  ip: string,
  details: object,
): NewAuditEvent {
  return {
    type,
    outcome: 'success',
    actor: `user:${userId}`,
    subjectType: 'client',
    subjectId: application?.uid ?? null,
    clientId: application?.uid ?? null,
    userId,
    ip,
    details,
  };
}
