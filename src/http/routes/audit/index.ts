import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { auditFilterOf, type AuditFilterInput } from '../../../oauth/audit/audit-filter.js';
import { listAuditEvents } from '../../../oauth/audit/audit-trail.js';
import { htmlPage, pageOrJsonErrors } from '../../admin-schemas.js';
import { authenticateAdmin } from '../../hooks/authenticate-admin.js';
import { noStore } from '../../no-store.js';
import type { AdminRouteOptions } from '../../route-options.js';
import { adminPageRenderer, sectionErrorHandler } from '../applications/responses.js';
import { AUDIT_FIELD_LABELS, AUDIT_PATH, auditView } from './view-models.js';

// A filter is a short string; longer ones are refused by the schema (400) before anything reads them.
const filter = (description: string) => ({ type: 'string', maxLength: 255, description }) as const;
const auditQuery = {
  type: 'object',
  properties: {
    user: filter('A user id or user name.'),
    client: filter('A client_id.'),
    type: filter('An event type, e.g. user.sign_in.failed.'),
    from: filter('Events at or after this ISO 8601 instant.'),
    to: filter('Events before this ISO 8601 instant.'),
    limit: filter('Events per page, 1 to 500 (default 50).'),
    before: filter('The next page: events older than this event id.'),
  },
} as const;

const renderAuditPage = adminPageRenderer('audit');

/**
 * /oauth/audit: the admin's Audit page (issue 32 item 7), the audit trail newest first with filters by user, client,
 * type and time as GET parameters (a page of them is a link), under the admin authentication like the other
 * sections. Read only: no form posts, so no CSRF token is needed.
 */
export const auditRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  const { deps } = options;
  app.setErrorHandler(sectionErrorHandler(deps.config.realm, 'There is no such audit event.'));
  await app.register(authenticateAdmin, options);
  app.addHook('onSend', async (_request, reply, payload) => {
    noStore(reply, { pragma: false });
    return payload;
  });
  app.get(
    AUDIT_PATH,
    { schema: { querystring: auditQuery, response: { 200: htmlPage, 422: htmlPage, ...pageOrJsonErrors } } },
    async (request: FastifyRequest<{ Querystring: AuditFilterInput }>, reply) => {
      const input = request.query;
      const filtered = await auditFilterOf(deps, input, AUDIT_FIELD_LABELS);
      const events = filtered.query === null ? [] : await listAuditEvents(deps, filtered.query);
      const view = auditView(input, filtered, events, deps.config.audit.retentionDays);
      return renderAuditPage(request, filtered.query === null ? reply.code(422) : reply, 'index.eta', view);
    },
  );
};
