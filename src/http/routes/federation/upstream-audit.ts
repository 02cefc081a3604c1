import type { FastifyRequest } from 'fastify';
import type { UpstreamIdentity } from '../../../oauth/assertions/federated-subject-store.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import type { NewAuditEvent } from '../../../oauth/audit/audit-store.js';
import { userEvent } from '../../../oauth/audit/audit-subjects.js';
import { signInEvent } from '../../../oauth/audit/sign-in-events.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import type { UserRecord } from '../../../oauth/store.js';
import { auditWriteFailed } from '../../audit-actor.js';

// The audit trail of a sign-in through an upstream (docs/operations.md "Audit trail": every security event is a row):
// the sign-in (as /login writes it), the user made just in time, the identity linked (by verified email, password or
// passkey), a wrong password at /login/upstream/link; each with the provider's id, as its failures have (failure page).

const alone = (deps: OAuthDeps, request: FastifyRequest, event: NewAuditEvent) =>
  recordAuditEventAlone(
    deps,
    event,
    auditWriteFailed(() => request.log),
  );

export const auditUpstreamSignIn = (deps: OAuthDeps, request: FastifyRequest, user: UserRecord, providerId: string) => {
  const event = signInEvent({ outcome: 'succeeded', user }, user.username, request.ip);
  return alone(deps, request, { ...event, details: { ...event.details, method: 'upstream', provider: providerId } });
};

export const auditUpstreamUserCreated = (deps: OAuthDeps, request: FastifyRequest, user: UserRecord, providerId: string) =>
  alone(deps, request, {
    ...userEvent('user.created', user, { via: 'upstream', provider: providerId })!,
    actor: `user:${user.id}`,
    ip: request.ip,
  });

export const auditIdentityLinked = (
  deps: OAuthDeps,
  request: FastifyRequest,
  user: UserRecord,
  identity: UpstreamIdentity,
  by: 'verified_email' | 'password' | 'passkey',
) =>
  alone(deps, request, {
    ...userEvent('user.identity.linked', user, { issuer: identity.issuer, subject: identity.subject, provider: identity.providerId, by })!,
    actor: `user:${user.id}`,
    ip: request.ip,
  });

/** A wrong password (or a locked-out one) at /login/upstream/link, as /login's. */
export const auditLinkPasswordFailed = (
  deps: OAuthDeps,
  request: FastifyRequest,
  username: string,
  outcome: 'failed' | 'locked_out',
  providerId: string,
) => {
  const event = signInEvent({ outcome }, username, request.ip);
  return alone(deps, request, { ...event, details: { ...event.details, via: 'upstream_link', provider: providerId } });
};
