// The audit trail's event types (issue 32 item 7): one dotted name per security event, `<object>.<what happened>`.
// The list is open: the second factors of a later issue add `user.second_factor.*` here, nothing else changes.

export const AUDIT_EVENT_TYPES = [
  'user.sign_in.succeeded',
  'user.sign_in.failed',
  'user.signed_out',
  'user.session_ended',
  'user.passkey.registered',
  'user.passkey.removed',
  'user.passkey.refused',
  'user.passkeys.reset',
  'user.identity.linked',
  'user.identity.removed',
  'user.second_factor.enrolled',
  'user.second_factor.removed',
  'user.second_factor.reset',
  'user.second_factor.failed',
  'user.recovery_code.used',
  'user.recovery_codes.regenerated',
  'user.locked_out',
  'client.locked_out',
  'consent.given',
  'consent.revoked',
  'token.revoked',
  'refresh_token.reuse_detected',
  'assertion.redeemed',
  'token.exchanged',
  'client.created',
  'client.updated',
  'client.deleted',
  'client.secret_rotated',
  'client.approved',
  'client.disabled',
  'client.enabled',
  'user.created',
  'user.updated',
  'user.password_changed',
  'user.disabled',
  'user.enabled',
  'user.tokens_revoked',
  'user.deleted',
  'resource.created',
  'resource.updated',
  'resource.deleted',
  'registration_token.created',
  'registration_token.revoked',
  'signing_key.rotated',
  'signing_key.retired',
  'signing_keys.rewrapped',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export const isAuditEventType = (value: string): value is AuditEventType => (AUDIT_EVENT_TYPES as readonly string[]).includes(value);

/** The kinds of object an event is about. */
export type AuditSubjectType = 'user' | 'client' | 'resource' | 'registration_token' | 'signing_key' | 'token';
