import type { NewAuditEvent } from './audit-store.js';

// The event of a sign-in identity removed (issue 37): by its user on the account page, by the admin on the Users page,
// or by `users remove-identity`; the actor is the caller's. The upstream subject is an identifier, not a secret: with
// the issuer it names the link that went, so the trail tells which account can no longer sign in as this user.

export const identityRemovedEvent = (
  userId: number,
  identity: { issuer: string; subject: string; providerId: string | null },
): Omit<NewAuditEvent, 'actor' | 'ip'> => ({
  type: 'user.identity.removed',
  outcome: 'success',
  subjectType: 'user',
  subjectId: String(userId),
  userId,
  details: { issuer: identity.issuer, subject: identity.subject, provider: identity.providerId },
});
