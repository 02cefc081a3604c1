import type { OAuthDeps } from '../deps.js';
import type { SigningAlgorithm } from '../keys/signing-keys.js';
import type { AuthorizationDetailsTypes } from '../resources/authorization-details-schemas.js';
import { AccessDenied, InvalidAuthorizationDetails, InvalidRequestUri, type OAuthError } from '../errors.js';
import {
  errorResponseMode,
  requestedAudience,
  requestedScopes,
  responseModeOf,
  askedScopes,
  type AuthorizationContext,
} from './authorization-context.js';
import {
  NO_DETAILS,
  resolveAuthorizationDetails,
  type AuthorizationDetail,
  type GrantedDetails,
} from '../resources/authorization-details.js';
import type { AuthorizationRule } from './authorization-context.js';
import { AUTHORIZATION_RULES, DENIAL_RULES } from './authorization-rules.js';
import { clientMetadataDocumentRefusal } from '../clients/metadata-documents/client-metadata-document-applications.js';
import { openIdParameters, type OpenIdParameters } from '../openid/openid-request.js';
import { isOutOfBand } from './redirect-uri.js';
import { requestAndRequestUriTogether, unpackRequestObject } from './request-object.js';
import { signingAlgorithmFor } from '../clients/fapi2-profile.js';
import { vouchedFor } from '../clients/client-approval.js';
import { formatScopes } from '../scopes.js';
import type { ApplicationRecord, LookupOrigin } from '../store.js';
import { EXPIRED_UNUSED_EXPLANATION, expiredUnused } from '../clients/registration/unused-clients.js';
import type { AuthorizationParameterName, AuthorizationParameters, ResponseMode, ResponseType } from './authorization-parameters.js';
import { consumePushedRequest, REQUEST_URI_USED, resolvePushedRequest } from './pushed-authorization-requests.js';

// The authorization request of RFC 6749 sections 4.1.1 and 4.2.1: validating its parameters in
// the reference's order (section 4.2, with SPEC 3.5 and 8), and where an error may be sent.

/** A request that passed every rule: what the consent screen shows and the approval issues. */
export interface AuthorizationRequest {
  application: ApplicationRecord;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  scopes: string[];
  /** The scopes the request asked for; `scopes` less offline_access where OpenID Connect Core 11 ignores it. */
  askedScopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** OpenID Connect's parameters (all empty while openid.enabled is off). */
  oidc: OpenIdParameters;
  /**
   * RFC 8707: the registered resources the token will be for (the code's audience), those the authorization_details
   * are for among them (RFC 9396 section 9.1); empty when none.
   */
  resources: string[];
  /** RFC 9396: the authorization_details the user is asked to approve (empty: none sent). */
  authorizationDetails: AuthorizationDetail[];
  /** The declarations of their types (the consent page's texts), from the resources serving them. */
  authorizationDetailsTypes: AuthorizationDetailsTypes;
  /** RFC 9449 section 10: the thumbprint of the key the code exchange must prove, or null. */
  dpopJkt: string | null;
  /** RFC 9126: the request_uri of the pushed request this is, consumed when it completes; null: sent directly. */
  requestUri: string | null;
  /** RFC 9101: the signed request object this request was sent as, directly (not pushed); null: none. */
  requestObject: string | null;
  /** JARM section 3: what its JWT-secured responses are signed with (signingAlgorithmFor: the client's, or the default). */
  responseSigningAlg: SigningAlgorithm;
  /**
   * OpenID Connect Core 3.1.2.1 ui_locales as the request has it (pushed or in a request object too): the language of
   * its pages, which the HTTP layer chooses; null when not sent.
   */
  uiLocales: string | null;
}

/** Where an error goes once client and redirect URI are verified (RFC 6749 section 4.1.2.1). */
export interface ErrorRedirect {
  redirectUri: string;
  responseMode: ResponseMode;
  /** The verified client: the audience of a JWT-secured (JARM) response. */
  clientId: string;
  /** JARM section 3: what its JWT-secured responses are signed with (signingAlgorithmFor); null: no client, RS256. */
  signingAlg: SigningAlgorithm | null;
  state: string | undefined;
  /**
   * RFC 9700 section 4.11.2: an admin made or approved the client (vouchedFor), so its redirect URI is trusted and
   * the error goes there at once. Else anyone could have registered it, and the error is sent only by the user's
   * hand: otherwise a link to this server with a bad scope would send any browser on to the registrant's site.
   */
  vouched: boolean;
}

export interface AuthorizationFailure {
  ok: false;
  /** The name of the rule that failed (or "denied" when the resource owner said no). */
  rule: string;
  error: OAuthError;
  /** null: the error is shown to the resource owner and never sent to an unverified URI. */
  redirect: ErrorRedirect | null;
}

export type AuthorizationValidation = { ok: true; request: AuthorizationRequest } | AuthorizationFailure;

/**
 * GET and POST /oauth/authorize: every rule, first failure wins (reference 4.2, STYLE 7). `origin` is the
 * requester, for the lookup of the client (a metadata document's first fetch is limited per address).
 */
export async function validateAuthorizationRequest(
  deps: OAuthDeps,
  parameters: AuthorizationParameters,
  origin?: LookupOrigin,
  /** This browser was shown this very request (request-object.ts: a request object's exp then has a grace). */
  seenValid = false,
): Promise<AuthorizationValidation> {
  const both = requestAndRequestUriTogether(parameters);
  if (both !== null) return { ok: false, rule: 'request_or_request_uri', error: both, redirect: null };
  const resolved = await resolvePushedRequest(deps, parameters, origin);
  if (!('values' in resolved)) return requestUriFailure(resolved);
  // RFC 9101: a signed request object is the request; what is wrong with it is shown, never redirected. (A pushed
  // request was unpacked at PAR: what is stored has none.)
  const unpacked = await unpackRequestObject(deps, resolved, origin, seenValid);
  if (!unpacked.ok) return { ok: false, rule: 'request_object_valid', error: unpacked.error, redirect: null };
  const request = unpacked.parameters;
  const context = await contextFor(deps, request, origin);
  const failure = firstFailure(AUTHORIZATION_RULES, context);
  if (failure) return failure;
  const { values } = request;
  const method = values.code_challenge ? (values.code_challenge_method ?? null) : null;
  return {
    ok: true,
    request: {
      application: context.application!,
      redirectUri: values.redirect_uri!,
      responseType: values.response_type as ResponseType,
      responseMode: responseModeOf(context)!,
      scopes: requestedScopes(context),
      askedScopes: askedScopes(context),
      state: blankToUndefined(values.state),
      codeChallenge: values.code_challenge ? values.code_challenge : null,
      codeChallengeMethod: method,
      oidc: openIdParameters(context),
      resources: requestedAudience(context).uris,
      authorizationDetails: 'details' in context.authorizationDetails ? context.authorizationDetails.details : [],
      authorizationDetailsTypes: declaredTypes(context),
      dpopJkt: blankToUndefined(values.dpop_jkt) ?? null,
      requestUri: resolved.pushed?.requestUri ?? null,
      requestObject: request.signed && resolved.pushed === undefined ? (resolved.values.request ?? null) : null,
      responseSigningAlg: responseSigningAlg(context.application!, deps.config),
      uiLocales: blankToUndefined(values.ui_locales) ?? null,
    },
  };
}

/**
 * DELETE /oauth/authorize (deny): client and redirect URI are verified before anything is sent there
 * (SPEC 8, unlike the reference's section 4.6), and the response type only chooses query or fragment. A denial
 * completes a pushed request: its request_uri is consumed here (RFC 9126 section 4, single use).
 */
export async function validateDenial(
  deps: OAuthDeps,
  parameters: AuthorizationParameters,
  origin?: LookupOrigin,
): Promise<AuthorizationFailure> {
  const resolved = await resolvePushedRequest(deps, parameters, origin);
  if (!('values' in resolved)) return requestUriFailure(resolved);
  const context = await contextFor(deps, resolved, origin);
  const failure = firstFailure(DENIAL_RULES, context);
  if (failure) return failure;
  if (!(await consumePushedRequest(deps, context.application!.id, resolved.pushed?.requestUri))) return pushedRequestUsed();
  return { ok: false, rule: 'denied', error: new AccessDenied(), redirect: errorRedirect(context) };
}

/**
 * An approval completes a pushed request (RFC 9126 section 4): its request_uri is consumed first. The failure when
 * another completion was first; null when consumed, or when the request was sent directly.
 */
export async function completePushedRequest(deps: OAuthDeps, request: AuthorizationRequest): Promise<AuthorizationFailure | null> {
  return (await consumePushedRequest(deps, request.application.id, request.requestUri)) ? null : pushedRequestUsed();
}

const pushedRequestUsed = () => requestUriFailure(new InvalidRequestUri(REQUEST_URI_USED));

// RFC 9126 section 4: a request_uri that names no request of this client has no redirect_uri to trust either.
function requestUriFailure(error: OAuthError): AuthorizationFailure {
  return { ok: false, rule: 'request_uri_valid', error, redirect: null };
}

/** A validated request that cannot go on (OpenID Connect's prompt=none, a bad id_token_hint): the error goes to the client. */
export function interactionFailure(request: AuthorizationRequest, error: OAuthError): AuthorizationFailure {
  const redirect = isOutOfBand(request.redirectUri)
    ? null
    : {
        redirectUri: request.redirectUri,
        responseMode: request.responseMode,
        clientId: request.application.uid,
        signingAlg: request.responseSigningAlg,
        state: request.state,
        vouched: vouchedFor(request.application),
      };
  return { ok: false, rule: 'interaction', error, redirect };
}

/**
 * The parameters that re-create a validated request: the consent form's hidden fields (reference 15.2). Of
 * OpenID Connect's, only the nonce and the claims request matter once the user is at the consent page (prompt,
 * max_age and the hints were about getting there).
 */
export function authorizationRequestFields(request: AuthorizationRequest): Partial<Record<AuthorizationParameterName, string>> {
  // A pushed request travels by its request_uri, which the approval or denial consumes.
  if (request.requestUri !== null) return { client_id: request.application.uid, request_uri: request.requestUri };
  // A signed request travels as itself (verified again), so require_signed_request_object holds at the approval too.
  if (request.requestObject !== null) return { client_id: request.application.uid, request: request.requestObject };
  return {
    client_id: request.application.uid,
    redirect_uri: request.redirectUri,
    state: request.state ?? '',
    response_type: request.responseType,
    response_mode: request.responseMode,
    scope: formatScopes(request.askedScopes),
    code_challenge: request.codeChallenge ?? '',
    code_challenge_method: request.codeChallengeMethod ?? '',
    ...(request.oidc.nonce !== null && { nonce: request.oidc.nonce }),
    ...(request.oidc.claimsParameter !== null && { claims: request.oidc.claimsParameter }),
    ...(request.dpopJkt !== null && { dpop_jkt: request.dpopJkt }),
    ...(request.authorizationDetails.length > 0 && { authorization_details: JSON.stringify(request.authorizationDetails) }),
  };
}

// RFC 6749 appendix A: client-id = *VSCHAR (%x20-7E). Anything else names no client and is not looked up: a NUL
// cannot even be sent to PostgreSQL (SPEC 3: no input gives a 500), so it is an unknown client, shown.
const VSCHARS = /^[\x20-\x7E]+$/;

async function contextFor(deps: OAuthDeps, parameters: AuthorizationParameters, origin?: LookupOrigin): Promise<AuthorizationContext> {
  const clientId = parameters.values.client_id;
  const known = clientId !== undefined && clientId.trim() !== '' && VSCHARS.test(clientId);
  const found = known ? await deps.stores.applications.findByUid(clientId, origin) : null;
  // Issue 29 item 5: a self-registered client that expired unused is no client any more; the page says so.
  const expired = found !== null && expiredUnused(found, deps.config.registration.unusedClientLifetimeSeconds, deps.now());
  const application = expired ? null : found;
  const resources = application && parameters.resources.length > 0 ? await deps.stores.resources.findByUris(parameters.resources) : [];
  const authorizationDetails = application ? await detailsOrProblem(deps, parameters.values.authorization_details) : NO_DETAILS;
  const clientRefusal = expired
    ? EXPIRED_UNUSED_EXPLANATION
    : known && application === null
      ? clientMetadataDocumentRefusal(deps.stores, clientId)
      : null;
  return { parameters, application, clientRefusal, resources, authorizationDetails, config: deps.config };
}

// The declarations of the types asked for; of two resources serving one type, the first one's consent text.
function declaredTypes(context: AuthorizationContext): AuthorizationDetailsTypes {
  if (!('details' in context.authorizationDetails)) return {};
  const types: AuthorizationDetailsTypes = {};
  for (const resource of [...context.authorizationDetails.resources].reverse()) Object.assign(types, resource.authorizationDetailsTypes);
  return types;
}

// The rules are synchronous: the details are checked here (their schemas are compiled on first use), the verdict kept.
async function detailsOrProblem(deps: OAuthDeps, text: string | undefined): Promise<GrantedDetails | InvalidAuthorizationDetails> {
  try {
    return await resolveAuthorizationDetails(deps, text);
  } catch (error) {
    if (error instanceof InvalidAuthorizationDetails) return error;
    throw error;
  }
}

function firstFailure(rules: readonly AuthorizationRule[], context: AuthorizationContext): AuthorizationFailure | null {
  const rule = rules.find((candidate) => !candidate.check(context));
  if (!rule) return null;
  return { ok: false, rule: rule.name, error: rule.error(context), redirect: rule.redirectable ? errorRedirect(context) : null };
}

// RFC 6749 section 4.1.2.1: errors go to the verified redirect URI, except that an out-of-band URI has no
// client endpoint to receive them (reference 4.5): those are shown to the resource owner.
function errorRedirect(context: AuthorizationContext): ErrorRedirect | null {
  const redirectUri = context.parameters.values.redirect_uri;
  if (redirectUri === undefined || isOutOfBand(redirectUri)) return null;
  return {
    redirectUri,
    responseMode: errorResponseMode(context),
    clientId: context.application?.uid ?? context.parameters.values.client_id ?? '',
    signingAlg: context.application ? responseSigningAlg(context.application, context.config) : null,
    state: blankToUndefined(context.parameters.values.state),
    vouched: context.application !== null && vouchedFor(context.application),
  };
}

const responseSigningAlg = (application: ApplicationRecord, config: AuthorizationContext['config']): SigningAlgorithm =>
  signingAlgorithmFor(application, application.authorizationSignedResponseAlg, config.keys);

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
