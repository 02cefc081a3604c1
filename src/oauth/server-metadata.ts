import { reachableAcrValues } from './authentication-context.js';
import type { Config } from '../config/types.js';
import { PAGE_LOCALES } from '../config/page-locales.js';
import { enabledResponseTypes, responseModesFor } from './authorization/authorization-context.js';
import { REQUEST_OBJECT_ALGORITHMS } from './authorization/request-object-algorithms.js';
import { deviceFlowEnabled } from './device/device-code-grant-type.js';
import { SIGNING_ALGORITHMS } from './keys/signing-keys.js';
import { pairwiseAvailable } from './openid/subject.js';
import { CLAIMS_SUPPORTED } from './openid/standard-claims.js';
import { ASSERTION_ALGORITHMS, type AssertionMethod } from './clients/client-assertion/assertion-methods.js';

/**
 * Whether this server is an OpenID Provider: OpenID Connect on and the code flow, the one that issues ID tokens,
 * enabled. OpenID Connect on without it (client_credentials with JWT access tokens) publishes its keys only: a
 * Discovery document needs an authorization endpoint and the code response type (Discovery 1.0 section 3).
 */
export const isOpenIdProvider = (config: Readonly<Pick<Config, 'openid' | 'grantFlows'>>): boolean =>
  config.openid.enabled && config.grantFlows.includes('authorization_code');

/** Whether a grant may answer with an ID token: the code flow's, or the device grant's (behaviour.md 3.14). */
const issuesIdTokens = (config: Readonly<Pick<Config, 'openid' | 'grantFlows'>>): boolean =>
  isOpenIdProvider(config) || (config.openid.enabled && deviceFlowEnabled(config));

/**
 * What this server supports, derived from the config so it never claims more than it does: the RFC 8414
 * section 2 document, and as an OpenID Provider (isOpenIdProvider), the OpenID Connect Discovery 1.0 section 3 fields (the
 * same document serves /.well-known/openid-configuration). The issuer is baseUrl, the same value as the RFC
 * 9207 `iss` of authorization responses and the `iss` of ID tokens.
 */
export function authorizationServerMetadata(config: Readonly<Config>): Record<string, unknown> {
  const base = config.baseUrl.replace(/\/+$/, '');
  const flows = config.grantFlows;
  const redirectFlows = flows.includes('authorization_code') || flows.includes('implicit');
  const clientAuthMethods = ['client_secret_basic', 'client_secret_post', 'none', ...assertionMethods(config)];
  return {
    issuer: base,
    ...(redirectFlows && { authorization_endpoint: `${base}/oauth/authorize` }),
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    ...(config.openid.enabled && { jwks_uri: `${base}/oauth/jwks` }),
    ...(config.introspection.enabled && { introspection_endpoint: `${base}/oauth/introspect` }),
    ...(config.registration.policy !== 'off' && { registration_endpoint: `${base}/oauth/register` }),
    // RFC 8628 section 4: while the device grant is on (it is then in grant_types_supported too).
    ...(flows.includes('urn:ietf:params:oauth:grant-type:device_code') && {
      device_authorization_endpoint: `${base}/oauth/device_authorization`,
    }),
    // RFC 9126 section 5: the PAR endpoint serves the authorization endpoint's requests.
    ...(redirectFlows && {
      pushed_authorization_request_endpoint: `${base}/oauth/par`,
      require_pushed_authorization_requests: config.pushedAuthorizationRequests.required,
    }),
    ...(config.registration.clientIdMetadataDocuments.enabled && { client_id_metadata_document_supported: true }),
    scopes_supported: [...config.defaultScopes, ...config.optionalScopes],
    response_types_supported: [...(flows.includes('authorization_code') ? ['code'] : []), ...(flows.includes('implicit') ? ['token'] : [])],
    response_modes_supported: responseModes(config),
    // JARM section 3: JWT-secured authorization responses are signed with the OpenID Connect keys, RS256 unless the
    // client registered another authorization_signed_response_alg.
    ...(redirectFlows && config.openid.enabled && { authorization_signing_alg_values_supported: [...SIGNING_ALGORITHMS] }),
    // RFC 9101 section 10.5: request objects by value, signed with a client's registered keys (request-object.ts).
    ...(redirectFlows && {
      request_parameter_supported: true,
      request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGORITHMS],
    }),
    // RFC 7591 section 2 grant type values, which include "implicit".
    grant_types_supported: [...flows],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    ...assertionAlgorithms('token', config),
    ...assertionAlgorithms('revocation', config),
    // SPEC 3.3: HTTP Basic or a Bearer access token, and (issue 34) a client assertion, nothing else.
    ...(config.introspection.enabled && {
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer', ...assertionMethods(config)],
      ...assertionAlgorithms('introspection', config),
    }),
    // RFC 9701 section 7: JWT introspection responses need the signing keys, which exist with OpenID Connect on.
    ...(config.introspection.enabled && config.openid.enabled && { introspection_signing_alg_values_supported: ['RS256'] }),
    // RFC 9449 section 5.1: the algorithms a DPoP proof may use at the token endpoint.
    dpop_signing_alg_values_supported: [...config.dpop.algorithms],
    ...(redirectFlows && { code_challenge_methods_supported: [...config.pkce.methods] }),
    authorization_response_iss_parameter_supported: redirectFlows,
    // RFC 8414 section 2 (and Discovery 1.0 section 3): the languages of the sign-in, consent and device pages,
    // which ui_locales chooses from (Core 3.1.2.1).
    ui_locales_supported: [...PAGE_LOCALES],
    ...(issuesIdTokens(config) && idTokenFields(base, config)),
    ...(isOpenIdProvider(config) && openIdProviderFields(base)),
  };
}

// Discovery 1.0 section 3, the fields about ID tokens and UserInfo (also RFC 8414 metadata, IANA's registry), so
// also for the device grant's ID tokens where the code flow is off. Every signing algorithm is offered: a client
// that registers ES256 or EdDSA gets a key of it made on first use.
function idTokenFields(base: string, config: Readonly<Config>): Record<string, unknown> {
  return {
    userinfo_endpoint: `${base}/oauth/userinfo`,
    // Core 8.1: pairwise only once its salt is configured (a client can be made pairwise then).
    subject_types_supported: pairwiseAvailable(config) ? ['public', 'pairwise'] : ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    userinfo_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    claims_supported: [...CLAIMS_SUPPORTED, ...ID_TOKEN_CLAIMS],
    // Core 2 and Discovery 3: the acr values a sign-in here can reach (config authentication.acr), which acr_values
    // and the claims parameter may ask for; a level no sign-in reaches yet is not promised.
    acr_values_supported: reachableAcrValues(config.authentication.acr),
    claim_types_supported: ['normal'],
  };
}

// Discovery 1.0 section 3, the fields about the authorization endpoint and the browser session. Fields whose
// default would claim support we lack are stated as false.
function openIdProviderFields(base: string): Record<string, unknown> {
  return {
    end_session_endpoint: `${base}/oauth/end_session`,
    // Back-Channel Logout 1.0 section 2.1: logout tokens go to each client's backchannel_logout_uri, with the sid of
    // the ID tokens of the session that ended.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    // Core 5.5: claims asked for by name, for the ID token and UserInfo (src/oauth/openid/claims-request.ts).
    claims_parameter_supported: true,
    request_uri_parameter_supported: false,
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    display_values_supported: ['page', 'popup', 'touch', 'wap'],
  };
}

// Issue 34, RFC 7523 section 2.2: client_secret_jwt needs the secret itself, which is kept only with hashing off.
const assertionMethods = (config: Readonly<Config>): AssertionMethod[] =>
  config.hashApplicationSecrets ? ['private_key_jwt'] : ['private_key_jwt', 'client_secret_jwt'];

const assertionAlgorithms = (endpoint: string, config: Readonly<Config>) => ({
  [`${endpoint}_endpoint_auth_signing_alg_values_supported`]: assertionMethods(config).flatMap((method) => ASSERTION_ALGORITHMS[method]),
});

const ID_TOKEN_CLAIMS = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'azp', 'at_hash', 'sid', 'amr', 'acr'];

// Reference section 3's modes of each enabled response type, and JARM's (section 3: with `jwt`, its shorthand).
function responseModes(config: Readonly<Config>): string[] {
  const modes = new Set<string>(enabledResponseTypes(config).flatMap((type) => responseModesFor(type, config)));
  if ([...modes].some((mode) => mode.endsWith('.jwt'))) modes.add('jwt');
  return [...modes];
}
