import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  approveAuthorization,
  consentMayBeSkipped,
  type AuthorizationResult,
} from '../../../oauth/authorization/authorization-approval.js';
import { readAuthorizationParameters } from '../../../oauth/authorization/authorization-parameters.js';
import {
  completePushedRequest,
  validateAuthorizationRequest,
  interactionFailure,
  validateDenial,
  type AuthorizationFailure,
  type AuthorizationRequest,
} from '../../../oauth/authorization/authorization-request.js';
import { errorDelivery, successDelivery, type ResponseIssuer } from '../../../oauth/authorization/authorization-response.js';
import { authorizationIssuer } from '../../../oauth/issuer.js';
import { nextInteraction } from '../../../oauth/authorization/authorization-interaction.js';
import { InvalidClient, InvalidRequest } from '../../../oauth/errors.js';
import { limitedAddress } from '../../../oauth/limits/limited-address.js';
import { secondFactorWantedFor } from '../../../oauth/second-factor/second-factors.js';
import { ApplicationGone, type LookupOrigin } from '../../../oauth/store.js';
import {
  currentResourceOwner,
  isSafeReturnPath,
  MAX_RETURN_PATH,
  redirectToLogin,
  sessionUser,
  type SignedInUser,
} from '../../hooks/authenticate-resource-owner.js';
import { renderPage } from '../../hooks/end-user-pages.js';
import { CONSENT_PAGE_FIELD, rememberConsentShown, takeConsentShown, useUpConsentShown } from './consent-ticket.js';
import { consentModel, consentRequestFields } from './consent-view.js';
import { hintOfSignIn, keepHintForSignIn } from './hinted-sign-in.js';
import { sendDelivery, sendHeldError } from './deliver.js';
import { Controller } from '../../controllers/controller.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import { consentEvent } from '../../../oauth/audit/token-events.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { redirectStatusAfter, type RedirectStatus } from '../../redirect-status.js';
import { useRequestUiLocales } from '../../plugins/page-languages.js';

/** An authorization request's parameters: the query of a GET, the form of a POST (Core 3.1.2.1). */
const requestParameters = (request: FastifyRequest): unknown => (request.method === 'POST' ? request.body : request.query);

/** Who asks, for the client lookup: a metadata document's first fetch is limited per address (issue 29 item 4). */
const origin = (request: FastifyRequest): LookupOrigin => ({ address: limitedAddress(request.ip) });

/** The request as a GET URL on this server, which a sign-in can come back to (a POST cannot be replayed). */
function authorizationUrl(request: FastifyRequest): string {
  if (request.method !== 'POST') return request.url;
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries((request.body ?? {}) as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') form.append(name, item);
  }
  return `/oauth/authorize?${form}`;
}

/** The consent page of a request whose form came back without it, in the language the form was in. */
function consentPageUrl(request: FastifyRequest, fields: Array<[string, string]>): string {
  const query = new URLSearchParams(fields);
  const uiLocales = (request.body as Record<string, unknown> | undefined)?.ui_locales;
  if (typeof uiLocales === 'string') query.append('ui_locales', uiLocales);
  return `/oauth/authorize?${query}`;
}

/**
 * Issue 37: idp_hint (Keycloak's kc_idp_hint too) names the identity provider to sign in with, skipping /login's
 * buttons. Not an OAuth or OpenID Connect parameter: read from the request as sent (a pushed request's is not).
 */
function idpHintOf(request: FastifyRequest): string | undefined {
  const parameters = (requestParameters(request) ?? {}) as Record<string, unknown>;
  const hint = parameters.idp_hint ?? parameters.kc_idp_hint;
  return typeof hint === 'string' && hint !== '' ? hint : undefined;
}

/**
 * OpenID Connect Core 3.1.2.1: how recently the user must have authenticated for this request, in seconds (prompt=login:
 * now, 0; max_age); null when it does not say. A sign-in through an upstream passes it on (federation routes).
 */
function maxAuthenticationAge({ oidc }: AuthorizationRequest): number | null {
  return oidc.prompts.includes('login') ? 0 : oidc.maxAge;
}

// The prompts a sign-in answers ('' is what splitting an absent prompt gives).
const SIGN_IN_PROMPTS = new Set(['', 'login', 'select_account']);

/** The authorization URL to come back to after a sign-in, without what asked for that sign-in. */
function afterSignIn(url: string): string {
  const parsed = new URL(url, 'http://localhost');
  const prompts = (parsed.searchParams.get('prompt') ?? '').split(' ').filter((prompt) => !SIGN_IN_PROMPTS.has(prompt));
  if (prompts.length > 0) parsed.searchParams.set('prompt', prompts.join(' '));
  else parsed.searchParams.delete('prompt');
  parsed.searchParams.delete('max_age');
  parsed.searchParams.delete('id_token_hint');
  return parsed.pathname + parsed.search;
}

/** Whether the session's latest sign-in came back to this very URL; read once, so a later visit may sign in again. */
function signInCameBack(request: FastifyRequest): boolean {
  const signedInFor = request.session.get('signedInFor');
  if (signedInFor === undefined) return false;
  request.session.set('signedInFor', undefined);
  return signedInFor === request.url;
}

/**
 * Controller key `authorizations` (SPEC 3.5, reference 4): `new` (GET /oauth/authorize: the consent page, or
 * a skipped consent, or an error), `create` (POST: approve), `destroy` (DELETE, or POST with _method=delete:
 * deny) and `show` (GET /oauth/authorize/native: the out-of-band code page). The routes run
 * authenticateResourceOwner (and CSRF protection on POST and DELETE) before every action.
 */
export class AuthorizationsController extends Controller {
  protected readonly issuer = authorizationIssuer(this.deps.config.baseUrl);
  protected responseIssuer(): ResponseIssuer {
    return { issuer: this.issuer, now: this.deps.now(), signer: this.deps.signer };
  }

  // The request is validated before anyone signs in: OpenID Connect's prompt=none must answer without a page.
  async new(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // Back from a sign-in this very URL asked for: it was valid then, and its request object's exp has a grace.
    const cameBack = signInCameBack(request);
    const validation = await validateAuthorizationRequest(
      this.deps,
      readAuthorizationParameters(requestParameters(request)),
      origin(request),
      cameBack,
    );
    const status = redirectStatusAfter(request);
    if (!validation.ok) return this.refuse(request, reply, validation, status);
    const authorization = validation.request;
    useRequestUiLocales(request, authorization.uiLocales);
    const owner = await sessionUser(this.deps, request);
    const session = owner && { ...owner, signedInForRequest: cameBack, hintBeforeSignIn: cameBack ? hintOfSignIn(request) : null };
    const interaction = await nextInteraction(this.deps, authorization, session, () =>
      owner ? this.skipAuthorization(authorization, owner) : Promise.resolve(false),
    );
    if (interaction.next === 'error') return this.refuse(request, reply, interactionFailure(authorization, interaction.error), status);
    if (interaction.next === 'login' || !owner) return this.signIn(request, reply, authorization, owner !== null);
    request.resourceOwner = owner;
    if (interaction.next === 'approve') return this.approve(request, reply, authorization, status, false);
    const page = rememberConsentShown(request, consentRequestFields(authorization));
    return renderPage(request, reply, 'consent.eta', {
      ...consentModel(this.deps, authorization, owner, reply.generateCsrf(), request.pageLanguage),
      consentPage: [CONSENT_PAGE_FIELD, page],
    });
  }

  async create(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // STYLE 14: the hidden fields are a new request, validated again in full; as one this browser was shown (its
    // request object's exp has a grace), which only the consent ticket below lets through: else a GET checks it anew.
    const validation = await validateAuthorizationRequest(this.deps, readAuthorizationParameters(request.body), origin(request), true);
    if (!validation.ok) return this.refuse(request, reply, validation, 303);
    const fields = consentRequestFields(validation.request);
    // Approving what this browser was not shown (a form made up, a page answered already): the request again, as a
    // GET, which signs in as it asks and shows its page (consent-ticket.ts).
    const page = (request.body as Record<string, unknown> | undefined)?.[CONSENT_PAGE_FIELD];
    if (!(await takeConsentShown(this.deps, request, fields, page))) return reply.redirect(consentPageUrl(request, fields), 303);
    return this.approve(request, reply, validation.request, 303, true);
  }

  // Reference 4.6: deny validates nothing in Doorkeeper; here client and redirect URI first (SPEC 8).
  async destroy(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const denial = await validateDenial(this.deps, readAuthorizationParameters(request.body), origin(request));
    if (denial.rule === 'denied')
      await useUpConsentShown(this.deps, request, (request.body as Record<string, unknown> | undefined)?.[CONSENT_PAGE_FIELD]);
    return this.refuse(request, reply, denial, 303);
  }

  // Reference 4.7: shows the code from the URL and looks nothing up.
  async show(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const code = (request.query as Record<string, unknown> | undefined)?.code;
    if (typeof code !== 'string' || code === '') throw InvalidRequest.missingParameter('code');
    return renderPage(request, reply, 'native-code.eta', { title: request.pageLanguage.t('nativeCode.title'), code });
  }

  /**
   * The seed's `skip_authorization?`: whether this owner's consent to this client's request is already given
   * (config `skipAuthorization`). Override it to decide otherwise, e.g. for first-party clients.
   */
  protected skipAuthorization(authorization: AuthorizationRequest, owner: SignedInUser): Promise<boolean> {
    return consentMayBeSkipped(this.deps, authorization, owner.id);
  }

  /**
   * To /login and back. Coming back must not ask again: the way back drops prompt=login, max_age and
   * id_token_hint, which the sign-in has just satisfied; who the hint named is kept in the session (hinted-sign-in.ts).
   * A sub named by the claims parameter stays: the sign-in is recorded as made for this URL, and nextInteraction ends
   * the request if it, or the hint, still gives someone else.
   */
  protected async signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    authorization: AuthorizationRequest,
    signedIn: boolean,
  ): Promise<FastifyReply> {
    const returnTo = afterSignIn(authorizationUrl(request));
    const { length } = returnTo;
    // The way back is kept in the session cookie, which has room for MAX_RETURN_PATH characters of it: the client of a
    // longer request (a large request object or state) is told now, rather than its user left elsewhere after signing in.
    if (!isSafeReturnPath(returnTo)) {
      const tooLong = new InvalidRequest(
        `The authorization request is too long to come back to after signing in (${length} characters, at most ${MAX_RETURN_PATH}): push it (RFC 9126) and send its request_uri.`,
      );
      return this.refuse(request, reply, interactionFailure(authorization, tooLong), redirectStatusAfter(request));
    }
    request.session.set('reauthenticate', signedIn ? true : undefined);
    request.session.set('maxAuthenticationAge', maxAuthenticationAge(authorization) ?? undefined);
    const wanted = secondFactorWantedFor(this.deps.config, authorization);
    request.session.set('secondFactorWanted', wanted === 'mfa' ? returnTo : undefined);
    request.session.set('passkeyStepWanted', wanted === 'phr' ? returnTo : undefined);
    request.session.set('loginHint', authorization.oidc.loginHint ?? undefined);
    request.session.set('idpHint', idpHintOf(request));
    request.session.set(
      'returnToUiLocales',
      authorization.uiLocales === null ? undefined : { returnTo, uiLocales: authorization.uiLocales },
    );
    await keepHintForSignIn(this.deps, request, authorization, returnTo);
    return redirectToLogin(request, reply, returnTo);
  }

  protected async refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    failure: AuthorizationFailure,
    status: RedirectStatus,
  ): Promise<FastifyReply> {
    // RFC 9700 section 4.11.2: a client nobody vouches for gets its error by the user's hand, unless the user has
    // just answered its consent page (a denial), which named where the answer goes.
    const to = failure.redirect;
    const held = to !== null && !to.vouched && failure.rule !== 'denied';
    const redirected = to !== null && !held;
    request.log.info(
      { event: 'authorization.refused', rule: failure.rule, error: failure.error.code, redirected },
      failure.error.description,
    );
    const delivery = await errorDelivery(failure, this.responseIssuer());
    if (held) return sendHeldError(reply, failure.error, delivery, to.redirectUri, this.deps.config.baseUrl);
    return sendDelivery(reply, delivery, status);
  }

  protected async approve(
    request: FastifyRequest,
    reply: FastifyReply,
    authorization: AuthorizationRequest,
    status: RedirectStatus,
    /** On the consent screen, rather than skipped (skipAuthorization, an earlier consent). */
    prompted: boolean,
  ): Promise<FastifyReply> {
    const used = await completePushedRequest(this.deps, authorization);
    if (used) return this.refuse(request, reply, used, status);
    let result: AuthorizationResult;
    try {
      result = await approveAuthorization(this.deps, authorization, currentResourceOwner(request));
    } catch (error) {
      // Deleted since this instance read it (its application cache, on another instance): as an unknown client.
      if (!(error instanceof ApplicationGone)) throw error;
      return this.refuse(request, reply, { ok: false, rule: 'client_registered', error: new InvalidClient(), redirect: null }, status);
    }
    // Consent given (prompted: on the consent screen; else skipped by skipAuthorization), written alone: the code is issued.
    const consent = { scopes: authorization.scopes, prompted };
    const owner = currentResourceOwner(request);
    const event = consentEvent('consent.given', owner.id, authorization.application, request.ip, consent);
    await recordAuditEventAlone(
      this.deps,
      event,
      auditWriteFailed(() => request.log),
    );
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
    return sendDelivery(reply, await successDelivery(authorization, result, this.responseIssuer()), status);
  }
}
