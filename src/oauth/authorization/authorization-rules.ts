import {
  allowedScopes,
  enabledResponseTypes,
  holdsResponseType,
  isCodeRequest,
  knownResponseType,
  present,
  requestedAudience,
  requestedScopes,
  responseModeOf,
  value,
  type AuthorizationRule,
} from './authorization-context.js';
import {
  InvalidClient,
  InvalidRedirectUri,
  InvalidRequest,
  InvalidScope,
  InvalidAuthorizationDetails,
  InvalidTarget,
  RequestNotSupported,
  UnauthorizedClient,
  UnsupportedResponseMode,
  UnsupportedResponseType,
} from '../errors.js';
import { parameterHoldingNul } from './authorization-parameters.js';
import { PKCE_RULES } from './pkce-rules.js';
import { FAPI2, isFapi2 } from '../clients/fapi2-profile.js';
import { isOutOfBand, matchesRegisteredUri } from './redirect-uri.js';
import { OPENID_RULES } from '../openid/openid-request.js';
import { audienceProblem } from '../resources/resource-indicators.js';
import { allScopesAllowed, isWellFormedScopeParam } from '../scopes.js';

// The authorization endpoint's checks as an ordered table of named rules (STYLE 7): reference 4.2's order with
// SPEC 3.5 and 8. The first failing rule decides the error. Reference checks 3 and 4 (allow_grant_flow_for_client,
// authorize_resource_owner_for_client) are host callbacks this service does not have.

const clientIdPresent: AuthorizationRule = {
  name: 'client_id_present',
  redirectable: false,
  check: (context) => present(context, 'client_id'),
  error: (context) =>
    context.parameters.malformed.includes('client_id')
      ? InvalidRequest.sentMoreThanOnce('client_id')
      : InvalidRequest.missingParameter('client_id'),
};

// A client_id URL whose metadata document was refused: the page says what was wrong with it, so whoever publishes
// the document can fix it (the log line has the detail only the operator should see).
const clientRegistered: AuthorizationRule = {
  name: 'client_registered',
  redirectable: false,
  check: (context) => context.application !== null,
  error: (context) => new InvalidClient(context.clientRefusal === null ? {} : { description: context.clientRefusal }),
};

// Issue 19: an admin disabled this client. Refused like an unknown client (the error page, never a redirect: its
// redirect URIs are no longer vouched for), but saying why, so the user does not think the link was mistyped.
export const DISABLED_CLIENT_DESCRIPTION = 'This application has been disabled by the administrator of this server.';

const clientEnabled: AuthorizationRule = {
  name: 'client_enabled',
  redirectable: false,
  check: (context) => context.application?.disabledAt == null,
  error: () => new InvalidClient({ description: DISABLED_CLIENT_DESCRIPTION }),
};

// SPEC 3.5 and RFC 9700 section 4.1.3: redirect_uri is always required and must equal a registered URI
// (loopback IPs: any port, for public clients); a repeated redirect_uri cannot be verified either.
const redirectUriRegistered: AuthorizationRule = {
  name: 'redirect_uri_registered',
  redirectable: false,
  check: (context) => {
    const uri = value(context, 'redirect_uri');
    const { application } = context;
    return (
      uri !== undefined &&
      application !== null &&
      matchesRegisteredUri(uri, application.redirectUris, { anyLoopbackPort: !application.confidential })
    );
  },
  error: (context) =>
    context.application?.registeredBy === 'metadata_document' && value(context, 'redirect_uri') !== undefined
      ? new InvalidRedirectUri(
          `The redirect_uri is not one of the redirect_uris of the application's metadata document at ${context.application.uid}.`,
        )
      : new InvalidRedirectUri(),
};

// RFC 9126 sections 5 and 6: with pushedAuthorizationRequests.required, or for a client registered with
// require_pushed_authorization_requests, only a pushed request is accepted. Its redirect_uri is verified by now, so
// the client hears why (redirected, as every later rule). A fapi2 client pushes always (FAPI 2.0 Security Profile section 5).
const pushedWhenRequired: AuthorizationRule = {
  name: 'pushed_when_required',
  redirectable: true,
  check: (context) =>
    context.parameters.pushed !== undefined ||
    !(
      context.config.pushedAuthorizationRequests.required ||
      context.application?.requirePushedAuthorizationRequests ||
      isFapi2(context.application)
    ),
  error: (context) =>
    new InvalidRequest(
      context.config.pushedAuthorizationRequests.required || context.application?.requirePushedAuthorizationRequests
        ? 'Pushed authorization requests are required for this client.'
        : `${FAPI2}: pushed authorization requests are required for this client (profile fapi2).`,
    ),
};

// RFC 9101 section 10.5: a client registered with require_signed_request_object sends its request as a signed
// request object, here or at PAR (the pushed request remembers that it was: pushed-authorization-requests.ts).
const signedWhenRequired: AuthorizationRule = {
  name: 'signed_when_required',
  redirectable: true,
  check: (context) => context.parameters.signed === true || !context.application?.requireSignedRequestObject,
  error: () => new InvalidRequest('A signed request object is required for this client.'),
};

// FAPI 2.0 Security Profile section 5: a fapi2 client uses the code flow only (response_type code), never implicit.
const fapi2CodeFlowOnly: AuthorizationRule = {
  name: 'fapi2_code_flow_only',
  redirectable: true,
  check: (context) => !isFapi2(context.application) || isCodeRequest(context),
  error: () => new UnauthorizedClient(`${FAPI2}: only response_type code is allowed for this client (profile fapi2).`),
};

// FAPI 2.0 Security Profile section 5: PKCE with S256, whatever pkce.required and pkce.methods say for other clients.
const fapi2PkceS256: AuthorizationRule = {
  name: 'fapi2_pkce_s256',
  redirectable: true,
  check: (context) =>
    !isFapi2(context.application) || (present(context, 'code_challenge') && value(context, 'code_challenge_method') === 'S256'),
  error: () => new InvalidRequest(`${FAPI2}: PKCE with code_challenge_method S256 is required for this client (profile fapi2).`),
};

// RFC 6749 section 3.1: request parameters MUST NOT be included more than once.
const parametersSingleValued: AuthorizationRule = {
  name: 'parameters_single_valued',
  redirectable: true,
  check: (context) => context.parameters.malformed.length === 0,
  error: (context) => InvalidRequest.sentMoreThanOnce(context.parameters.malformed[0] ?? 'parameter'),
};

// RFC 6749 appendix A: no parameter holds a NUL (authorization-parameters.ts says why it is refused up front).
const parametersWithoutNul: AuthorizationRule = {
  name: 'parameters_without_nul',
  redirectable: true,
  check: (context) => parameterHoldingNul(context.parameters) === null,
  error: (context) => InvalidRequest.holdsNul(parameterHoldingNul(context.parameters) ?? 'parameter'),
};

const responseTypePresent: AuthorizationRule = {
  name: 'response_type_present',
  redirectable: true,
  check: (context) => present(context, 'response_type'),
  error: () => InvalidRequest.missingParameter('response_type'),
};

const scopePresent: AuthorizationRule = {
  name: 'scope_present',
  redirectable: true,
  check: (context) => present(context, 'scope') || context.config.defaultScopes.length > 0,
  error: () => InvalidRequest.missingParameter('scope'),
};

const responseTypeSupported: AuthorizationRule = {
  name: 'response_type_supported',
  redirectable: true,
  check: (context) => (enabledResponseTypes(context.config) as string[]).includes(value(context, 'response_type') ?? ''),
  error: () => new UnsupportedResponseType(),
};

// RFC 6749 section 4.1.2.1 / 4.2.2.1 and RFC 7591 section 2 (issue 29): a self-registered client uses only the grant
// types it registered and the operator allows, here as at the token endpoint; the implicit flow is no way around them.
const responseTypeHeld: AuthorizationRule = {
  name: 'response_type_held',
  redirectable: true,
  check: holdsResponseType,
  error: () => new UnauthorizedClient(),
};

// The out-of-band page shows a code; an implicit token would end up in a URL on our own pages instead.
const outOfBandCodeOnly: AuthorizationRule = {
  name: 'out_of_band_code_only',
  redirectable: true,
  check: (context) => !(knownResponseType(context) === 'token' && isOutOfBand(value(context, 'redirect_uri') ?? '')),
  error: () => new UnsupportedResponseType(),
};

const responseModeSupported: AuthorizationRule = {
  name: 'response_mode_supported',
  redirectable: true,
  check: (context) => responseModeOf(context) !== null,
  error: () => new UnsupportedResponseMode(),
};

// Reference 8.2: well formed (no tab, CR, LF), not empty, and every scope within the allowed list.
const scopeValid: AuthorizationRule = {
  name: 'scope_valid',
  redirectable: true,
  check: (context) => {
    if (present(context, 'scope') && !isWellFormedScopeParam(value(context, 'scope'))) return false;
    const scopes = requestedScopes(context);
    return scopes.length > 0 && allScopesAllowed(scopes, allowedScopes(context));
  },
  error: () => new InvalidScope(),
};

// RFC 9396 section 5: authorization_details well formed, each of a type a resource serves, passing its schema.
const authorizationDetailsValid: AuthorizationRule = {
  name: 'authorization_details_valid',
  redirectable: true,
  check: (context) => !(context.authorizationDetails instanceof InvalidAuthorizationDetails),
  error: (context) => context.authorizationDetails as InvalidAuthorizationDetails,
};

// RFC 8707 section 2: every resource named is registered, and the scopes asked for are ones it accepts; the resources
// of the authorization_details (RFC 9396 section 9.1) are part of that audience.
const resourcesValid: AuthorizationRule = {
  name: 'resources_valid',
  redirectable: true,
  check: (context) => {
    const { uris, resources } = requestedAudience(context);
    return uris.length === 0 || audienceProblem(uris, resources, requestedScopes(context)) === null;
  },
  error: (context) => {
    const { uris, resources } = requestedAudience(context);
    return new InvalidTarget(audienceProblem(uris, resources, requestedScopes(context))!);
  },
};

// RFC 9449 section 10: dpop_jkt is a JWK SHA-256 thumbprint, 43 base64url characters.
const dpopJktWellFormed: AuthorizationRule = {
  name: 'dpop_jkt_well_formed',
  redirectable: true,
  check: (context) => !present(context, 'dpop_jkt') || /^[A-Za-z0-9_-]{43}$/.test(value(context, 'dpop_jkt')!),
  error: () => new InvalidRequest('The dpop_jkt parameter must be the base64url SHA-256 thumbprint of a JWK (RFC 7638).'),
};

// RFC 9449 section 10 binds the authorization code to the key; a token issued here (response_type token) is sent
// without any proof of it, so it could only be unbound: a client that asked for a binding is told, not given a Bearer.
const dpopJktForCode: AuthorizationRule = {
  name: 'dpop_jkt_for_code',
  redirectable: true,
  check: (context) => !present(context, 'dpop_jkt') || isCodeRequest(context),
  error: () => new InvalidRequest('The dpop_jkt parameter binds an authorization code: it cannot be used with response_type token.'),
};

// Reference 4.6: on deny only code and token are meaningful, enabled or not: they choose query or fragment.
const responseTypeKnown: AuthorizationRule = {
  name: 'response_type_known',
  redirectable: true,
  check: (context) => knownResponseType(context) !== null,
  error: () => new UnsupportedResponseType(),
};

// RFC 9101 section 5 (and Core 6.1): a request object still here was not unpacked (request-object.ts), as its client
// has no keys to verify it with; ignoring it would act on the parameters beside it, which the client did not sign.
const requestObjectUnpacked: AuthorizationRule = {
  name: 'request_object_unpacked',
  redirectable: true,
  check: (context) => !present(context, 'request'),
  error: () =>
    new RequestNotSupported('A request object needs the client’s registered keys (jwks or jwks_uri) to verify it; this client has none.'),
};

const VERIFY_CLIENT_AND_REDIRECT_URI = [clientIdPresent, clientRegistered, clientEnabled, redirectUriRegistered];

export const AUTHORIZATION_RULES: readonly AuthorizationRule[] = [
  ...VERIFY_CLIENT_AND_REDIRECT_URI,
  pushedWhenRequired,
  parametersSingleValued,
  parametersWithoutNul,
  requestObjectUnpacked,
  signedWhenRequired,
  responseTypePresent,
  scopePresent,
  responseTypeSupported,
  fapi2CodeFlowOnly,
  responseTypeHeld,
  outOfBandCodeOnly,
  responseModeSupported,
  scopeValid,
  authorizationDetailsValid,
  resourcesValid,
  dpopJktWellFormed,
  dpopJktForCode,
  fapi2PkceS256,
  ...PKCE_RULES,
  ...OPENID_RULES,
];

export const DENIAL_RULES: readonly AuthorizationRule[] = [
  ...VERIFY_CLIENT_AND_REDIRECT_URI,
  parametersSingleValued,
  parametersWithoutNul,
  responseTypePresent,
  responseTypeKnown,
];
