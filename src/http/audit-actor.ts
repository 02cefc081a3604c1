import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../oauth/audit/audit-trail.js';

// Who an audit event names as its actor, with the address the request came from (request.ip: trustProxy decides).

/** The admin UI and its JSON API: one admin account (SPEC 5 `admin`). */
export const adminActor = (request: FastifyRequest): AuditActor => ({ actor: 'admin', ip: request.ip });

/** A signed-in end user (their users.id). */
export const userActor = (request: FastifyRequest, userId: number): AuditActor => ({ actor: `user:${userId}`, ip: request.ip });

/** An OAuth client acting at an endpoint (its client_id). */
export const clientActor = (request: FastifyRequest, clientId: string): AuditActor => ({ actor: `client:${clientId}`, ip: request.ip });

/** What a failed audit write that must not fail its request does: an error line (docs/operations.md "Audit trail"). */
export const auditWriteFailed =
  (log: () => { error(details: object, message: string): void }) =>
  (error: unknown): void =>
    log().error({ err: error, event: 'audit.write_failed' }, 'audit event not recorded');
