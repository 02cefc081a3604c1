import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizedApplications, revokeAuthorizations, type RevokedAuthorizations } from '../../../oauth/authorization/authorizations.js';
import type { ApplicationRecord } from '../../../oauth/store.js';
import { currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { NotFound } from '../../../oauth/errors.js';
import { applyErrorResponse, errorResponse } from '../../error-response.js';
import { renderError, renderPage } from '../../hooks/end-user-pages.js';
import { noStore } from '../../no-store.js';
import { Controller } from '../../controllers/controller.js';
import { findApplication } from '../../../oauth/clients/applications.js';
import { auditedChange } from '../../../oauth/audit/audit-trail.js';
import { consentEvent } from '../../../oauth/audit/token-events.js';
import { userActor } from '../../audit-actor.js';
import { pageTime } from '../../page-time.js';
import { vouchedFor } from '../../../oauth/clients/client-approval.js';
import type { PageLanguage } from '../../i18n/page-language.js';
import { returnDestination } from '../../client-links.js';

export const AUTHORIZED_APPLICATIONS_PATH = '/oauth/authorized_applications';

/**
 * Controller key `authorized_applications` (SPEC 3.6, reference 14): `index` (the signed-in owner's authorized
 * applications, as a page or JSON) and `destroy` (revoke one application's authorization). The routes run
 * authenticateResourceOwner (and CSRF protection on destroy) first.
 */
export class AuthorizedApplicationsController extends Controller {
  async index(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const owner = currentResourceOwner(request);
    const authorized = await authorizedApplications(this.deps, owner.id);
    if (wantsJson(request))
      return noStore(reply, { pragma: false }).send(authorized.map(({ application }) => publicAttributes(application)));
    return renderPage(request, reply, 'authorized-applications.eta', {
      title: request.pageLanguage.t('authorizedApplications.title'),
      applications: authorized.map(({ application, authorizedAt }) => {
        const at = pageTime(authorizedAt, request.pageLanguage.locale);
        return {
          id: application.id,
          name: application.name,
          authorizedAt: at.text,
          authorizedAtIso: at.iso,
          unreviewedReturnsTo: unreviewedReturnsTo(application, request.pageLanguage),
        };
      }),
      username: owner.username,
      csrfToken: reply.generateCsrf(),
    });
  }

  async destroy(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply): Promise<FastifyReply> {
    const owner = currentResourceOwner(request);
    const applicationId = /^[1-9][0-9]{0,14}$/.test(request.params.id) ? Number(request.params.id) : null;
    if (applicationId === null) return notFound(request, reply);
    // Reference 14: every token and grant of this owner for the application; an unknown id changes nothing.
    const revoke = (deps: typeof this.deps) => revokeAuthorizations(deps, owner.id, applicationId);
    const application = await findApplication(this.deps, applicationId);
    // Nothing revoked (a second click, an id that holds nothing of the user's) records and says nothing was.
    const nothing = (revoked: RevokedAuthorizations) => revoked.tokens === 0 && revoked.grants === 0;
    const event = (revoked: RevokedAuthorizations) =>
      application && !nothing(revoked) ? consentEvent('consent.revoked', owner.id, application, request.ip, revoked) : null;
    const revoked = await auditedChange(this.deps, userActor(request, owner.id), revoke, event);
    if (!nothing(revoked))
      request.log.info(
        { event: 'token.revoked', applicationId, resourceOwnerId: owner.id, ...revoked },
        'application authorization revoked',
      );
    if (wantsJson(request)) return reply.code(204).send();
    request.session.set('notice', request.pageLanguage.t(`authorizedApplications.${nothing(revoked) ? 'nothingRevoked' : 'revoked'}`));
    // 303 after a real DELETE, so the browser does not repeat the DELETE on the index.
    return reply.redirect(AUTHORIZED_APPLICATIONS_PATH, request.method === 'DELETE' ? 303 : 302);
  }
}

/**
 * Where a client no admin vouches for sends the user back (its redirect URIs' hosts), null for the others: two rows of
 * the same name, one of them an impersonator that registered itself, must not look alike when the user comes to revoke.
 */
function unreviewedReturnsTo(application: ApplicationRecord, language: PageLanguage): string | null {
  if (vouchedFor(application)) return null;
  const destinations = [...new Set(application.redirectUris.map((uri) => returnDestination(uri, language)))];
  return destinations.length === 0 ? null : destinations.join(', ');
}

// Reference 14: id, name, created_at, and the uid only of public clients (a confidential client's uid is
// not the user's business).
function publicAttributes(application: ApplicationRecord) {
  return {
    id: application.id,
    name: application.name,
    ...(!application.confidential && { uid: application.uid }),
    created_at: application.createdAt.toISOString(),
  };
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = new NotFound(request.pageLanguage.t('error.noSuchApplication'));
  if (!wantsJson(request)) return renderError(reply, error);
  const response = errorResponse(error, null);
  return applyErrorResponse(reply, response).send(response.body);
}
