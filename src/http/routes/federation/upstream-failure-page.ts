import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityProviderConfig } from '../../../config/identity-providers-schema.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import type { UpstreamFailure, UpstreamFailureReason } from '../../../oauth/federation/upstream-failure.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { renderPage } from '../../hooks/end-user-pages.js';

// Issue 37 item 5: a sign-in through an upstream that failed gets a page naming the provider, what went wrong in the
// user's language and what to do; the log line and the audit event say why in the operator's terms. No user is
// created or linked before every check has passed (the callback resolves the user last), so a failure writes none.

const STATUS: Record<UpstreamFailureReason, 400 | 403 | 502> = {
  unreachable: 502,
  timeout: 502,
  error_response: 502,
  invalid_response: 502,
  claims_missing: 502,
  misconfigured: 502,
  no_pending_sign_in: 400,
  state_mismatch: 400,
  domain_not_allowed: 403,
  user_disabled: 403,
  no_user: 403,
};

export async function upstreamFailurePage(
  deps: OAuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  entry: IdentityProviderConfig,
  failure: UpstreamFailure,
): Promise<FastifyReply> {
  const { reason, detail } = failure;
  request.log.info({ event: 'login.upstream_failed', provider: entry.id, reason, detail }, 'sign-in through an upstream failed');
  await recordAuditEventAlone(
    deps,
    {
      type: 'user.sign_in.failed',
      outcome: 'failure',
      actor: 'anonymous',
      subjectType: 'user',
      subjectId: `upstream:${entry.id}`,
      ip: request.ip,
      details: { reason: 'upstream_failed', provider: entry.id, upstream_reason: reason },
    },
    auditWriteFailed(() => request.log),
  );
  const status = STATUS[reason];
  const { t } = request.pageLanguage;
  return renderPage(request, reply.code(status), 'upstream-error.eta', {
    title: t('upstream.errorTitle', { name: entry.name }),
    // A provider set up wrong says to the user what an unreachable one says (the log line says which it is).
    message: t(`upstream.reason.${reason === 'misconfigured' ? 'unreachable' : reason}`, { name: entry.name }),
    // A refusal (403) is not fixed by trying again; an outage or a lost session may be.
    retryHref: status === 403 ? null : `/login/upstream/${entry.id}`,
  });
}
