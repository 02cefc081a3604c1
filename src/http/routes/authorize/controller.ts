import type { FastifyReply, FastifyRequest } from 'fastify';
import { approveAuthorization, consentMayBeSkipped } from '../../../oauth/authorization-approval.js';
import { readAuthorizationParameters } from '../../../oauth/authorization-parameters.js';
import {
  validateAuthorizationRequest,
  validateDenial,
  type AuthorizationFailure,
  type AuthorizationRequest,
} from '../../../oauth/authorization-request.js';
import { authorizationIssuer, errorDelivery, successDelivery } from '../../../oauth/authorization-response.js';
import { InvalidRequest } from '../../../oauth/errors.js';
import { currentResourceOwner, type SignedInUser } from '../../hooks/authenticate-resource-owner.js';
import { renderPage } from '../../hooks/end-user-pages.js';
import { consentModel } from './consent-view.js';
import { sendDelivery } from './deliver.js';
import { Controller } from '../../controllers/controller.js';

type RedirectStatus = 302 | 303;

/**
 * Controller key `authorizations` (SPEC 3.5, reference 4): `new` (GET /oauth/authorize: the consent page, or
 * a skipped consent, or an error), `create` (POST: approve), `destroy` (DELETE, or POST with _method=delete:
 * deny) and `show` (GET /oauth/authorize/native: the out-of-band code page). The routes run
 * authenticateResourceOwner (and CSRF protection on POST and DELETE) before every action.
 */
export class AuthorizationsController extends Controller {
  protected readonly issuer = authorizationIssuer(this.deps.config.baseUrl);

  async new(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const validation = await validateAuthorizationRequest(this.deps, readAuthorizationParameters(request.query));
    if (!validation.ok) return this.refuse(request, reply, validation, 302);
    const owner = currentResourceOwner(request);
    if (await this.skipAuthorization(validation.request, owner)) return this.approve(request, reply, validation.request, 302);
    return renderPage(request, reply, 'consent.eta', { ...consentModel(this.deps, validation.request, owner, reply.generateCsrf()) });
  }

  async create(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // STYLE 14: the hidden fields are a new request, validated again in full.
    const validation = await validateAuthorizationRequest(this.deps, readAuthorizationParameters(request.body));
    if (!validation.ok) return this.refuse(request, reply, validation, 303);
    return this.approve(request, reply, validation.request, 303);
  }

  // Reference 4.6: deny validates nothing in Doorkeeper; here client and redirect URI first (SPEC 8).
  async destroy(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return this.refuse(request, reply, await validateDenial(this.deps, readAuthorizationParameters(request.body)), 303);
  }

  // Reference 4.7: shows the code from the URL and looks nothing up.
  async show(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const code = (request.query as Record<string, unknown> | undefined)?.code;
    if (typeof code !== 'string' || code === '') throw InvalidRequest.missingParameter('code');
    return renderPage(request, reply, 'native-code.eta', { title: 'Authorization code', code });
  }

  /**
   * The seed's `skip_authorization?`: whether this owner's consent to this client's request is already given
   * (config `skipAuthorization`). Override it to decide otherwise, e.g. for first-party clients.
   */
  protected skipAuthorization(authorization: AuthorizationRequest, owner: SignedInUser): Promise<boolean> {
    return consentMayBeSkipped(this.deps, authorization, owner.id);
  }

  protected refuse(request: FastifyRequest, reply: FastifyReply, failure: AuthorizationFailure, status: RedirectStatus): FastifyReply {
    const redirected = failure.redirect !== null;
    request.log.info(
      { event: 'authorization.refused', rule: failure.rule, error: failure.error.code, redirected },
      failure.error.description,
    );
    return sendDelivery(reply, errorDelivery(failure, this.issuer), status);
  }

  protected async approve(
    request: FastifyRequest,
    reply: FastifyReply,
    authorization: AuthorizationRequest,
    status: RedirectStatus,
  ): Promise<FastifyReply> {
    const result = await approveAuthorization(this.deps, authorization, currentResourceOwner(request).id);
    const code = result.responseType === 'code';
    if (!code) this.services.metrics.tokensIssued('implicit');
    request.log.info(
      {
        event: code ? 'authorization.code_issued' : 'token.issued',
        grantType: code ? undefined : 'implicit',
        clientId: authorization.application.uid,
      },
      'authorized',
    );
    return sendDelivery(reply, successDelivery(authorization, result, this.issuer, this.deps.now()), status);
  }
}
