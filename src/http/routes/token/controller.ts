import type { FastifyReply, FastifyRequest } from 'fastify';
import { extractClientCredentials } from '../../../oauth/clients/client-credentials.js';
import { tokenRequestDpopProof } from '../../../oauth/tokens/dpop/dpop-proof.js';
import { OAuthError } from '../../../oauth/errors.js';
import { handleTokenRequest } from '../../../oauth/grants/index.js';
import { extensionFailed } from '../../extension-failure-report.js';
import { introspect, type IntrospectionResponse } from '../../../oauth/tokens/introspection.js';
import { acceptsIntrospectionJwt, INTROSPECTION_JWT_MEDIA_TYPE, signedIntrospection } from '../../../oauth/tokens/introspection-jwt.js';
import { limitedAddress } from '../../../oauth/limits/limited-address.js';
import { introspectionPolicyOf, type IntrospectionRequester, type IntrospectionRule } from '../../../oauth/tokens/introspection-policy.js';
import { revokeToken } from '../../../oauth/tokens/revocation.js';
import { noStore } from '../../no-store.js';
import { requestClientCredentials } from '../../request-client-credentials.js';
import { Controller } from '../../controllers/controller.js';

// One controller for three endpoint groups: token/ (here), revoke/ and introspect/ reach it as
// `controllers.tokens` through their route options, so those folders import nothing from this one.

/**
 * Controller key `tokens`: POST /oauth/token (`create`), POST /oauth/revoke (`revoke`) and POST
 * /oauth/introspect (`introspect`). Every action reads `request.oauthParameters`, the form parameters checked
 * by the route's preValidation. OAuth errors thrown here are rendered by the app-wide error handler.
 */
export class TokensController extends Controller {
  /**
   * The declarative introspection policy (config `introspection.allow`), as built with the domain's dependencies;
   * a subclass may declare its own. The allowTokenIntrospection hook replaces it.
   */
  protected readonly introspectionRules: IntrospectionRule[] = introspectionPolicyOf(this.deps);

  /** Whether an active answer may carry custom fields (config `introspection.response` or the hook). */
  private readonly customFields =
    this.deps.hooks.customIntrospectionResponse !== undefined || Object.keys(this.deps.config.introspection.response).length > 0;

  /** POST /oauth/token (RFC 6749 sections 4 and 6; SPEC 3.1). */
  async create(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const parameters = request.oauthParameters;
    const address = limitedAddress(request.ip);
    const credentials = extractClientCredentials({
      authorization: request.headers.authorization,
      body: parameters,
      address,
      requestId: request.id,
    });
    // RFC 9449 section 4.3: the proof is checked first; the grant records it against replay once it knows the client.
    const dpopProof = await tokenRequestDpopProof(this.deps, request.headers.dpop);
    // A failing beforeTokenResponse hook is reported on this request's log line (its reqId).
    const deps = this.deps.hooks.beforeTokenResponse ? { ...this.deps, extensionFailed: extensionFailed(request.log) } : this.deps;
    const body = await handleTokenRequest(deps, { parameters, credentials, address, dpopProof });
    this.services.metrics.tokensIssued(parameters.grant_type!);
    request.log.info({ event: 'token.issued', grantType: parameters.grant_type, clientId: credentials?.clientId }, 'token issued');
    return noStore(reply).send(body);
  }

  /** POST /oauth/revoke (RFC 7009; SPEC 3.2). */
  async revoke(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const parameters = request.oauthParameters;
    const credentials = requestClientCredentials(request, '/oauth/revoke');
    const { revoked } = await revokeToken(this.deps, parameters, credentials, request.ip);
    if (revoked) {
      this.services.metrics.revocation();
      request.log.info({ event: 'token.revoked', clientId: credentials?.clientId, ...revoked }, 'token revoked');
    }
    return noStore(reply).send({});
  }

  /** POST /oauth/introspect (RFC 7662; the seed; SPEC 3.3), as a signed JWT when asked for (RFC 9701). */
  async introspect(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    try {
      const { response, requester } = await introspect(this.deps, this.introspectionRules, {
        parameters: request.oauthParameters,
        authorization: request.headers.authorization,
        address: limitedAddress(request.ip),
        requestId: request.id,
      });
      this.services.metrics.introspection(response.active ? 'active' : 'inactive');
      return await this.sendIntrospection(request, noStore(reply), response, requester);
    } catch (error) {
      if (error instanceof OAuthError) {
        this.services.metrics.introspection('refused');
        request.log.info({ event: 'introspection.refused', error: error.code }, 'introspection refused');
      }
      throw error;
    }
  }

  /**
   * The 200 answer of introspect, in the form the requester asked for. RFC 9701 section 4: a resource server that
   * names application/token-introspection+jwt in Accept gets the JWT, when the signing keys exist (openid.enabled);
   * otherwise, and for a requester with no client to address, the RFC 7662 JSON, which its Content-Type tells
   * apart. Refusals never get here: they stay the JSON errors of the app-wide handler.
   */
  protected async sendIntrospection(
    request: FastifyRequest,
    reply: FastifyReply,
    response: IntrospectionResponse,
    requester: IntrospectionRequester,
  ): Promise<FastifyReply> {
    if (this.deps.config.openid.enabled && acceptsIntrospectionJwt(request.headers.accept)) {
      const jwt = await signedIntrospection(this.deps, requester, response);
      if (jwt !== null) return reply.type(INTROSPECTION_JWT_MEDIA_TYPE).send(jwt);
    }
    // The schema's serializer types the standard fields; a custom field of the same name is sent as given (the seed:
    // any JSON), which the schema would coerce ("[object Object]") or fail on (an `exp` that is not a number).
    if (this.customFields) reply.serializer(JSON.stringify);
    return reply.send(response);
  }
}
