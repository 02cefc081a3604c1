import { REQUEST_OBJECT_ALGORITHMS } from '../../authorization/request-object-algorithms.js';
import type { ApplicationRecord, ClientProfile } from '../application-store.js';
import { ASSERTION_ALGORITHMS, isAssertionMethod } from '../client-assertion/assertion-methods.js';
import { algorithmsFor, fapi2ProfileProblems } from '../fapi2-profile.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../keys/signing-keys.js';
import { InvalidClientMetadata } from './client-registration-errors.js';
import { shownJson } from '../../json-nesting.js';
import type { SignedResponseMetadata } from './signed-response-metadata.js';

// Issue 36: the registration metadata of the request and response security settings. RFC 9126 section 6's
// require_pushed_authorization_requests, RFC 9101 section 10.5's require_signed_request_object, JARM section 3's
// authorization_signed_response_alg, and `profile` (this server's own name: FAPI 2.0 registers no metadata for the
// profile a client follows), whose fapi2 rules are fapi2-profile.ts's.

export interface RequestSecurityMetadata {
  require_pushed_authorization_requests?: boolean;
  require_signed_request_object?: boolean;
  authorization_signed_response_alg?: SigningAlgorithm;
  profile?: ClientProfile;
  /** RFC 9449 section 5.2: every token request of the client carries a DPoP proof; its tokens are bound. */
  dpop_bound_access_tokens?: boolean;
  /** OpenID Connect Registration 1.0 section 2 (registered-signing-algs.ts): the one algorithm of its request objects. */
  request_object_signing_alg?: string;
  /** The same, of its client assertions; kept for private_key_jwt and client_secret_jwt only, the methods it is for. */
  token_endpoint_auth_signing_alg?: string;
}

function booleanOf(body: Record<string, unknown>, name: keyof RequestSecurityMetadata): boolean | undefined {
  const value = body[name];
  if (value !== undefined && typeof value !== 'boolean') throw new InvalidClientMetadata(`${name} must be a boolean.`);
  return value;
}

/** The settings the registration names, validated; the client's method and grant types are judged for its profile. */
export function requestSecurityMetadataOf(
  body: Record<string, unknown>,
  client: { tokenEndpointAuthMethod: string; grantTypes: readonly string[]; signedResponses: SignedResponseMetadata },
): RequestSecurityMetadata {
  const requirePar = booleanOf(body, 'require_pushed_authorization_requests');
  const requireSigned = booleanOf(body, 'require_signed_request_object');
  const alg = body.authorization_signed_response_alg;
  if (alg !== undefined && !(typeof alg === 'string' && isSigningAlgorithm(alg)))
    throw new InvalidClientMetadata(`authorization_signed_response_alg must be one of ${SIGNING_ALGORITHMS.join(', ')}.`);
  const profile = body.profile;
  const signing = registeredSigningAlgs(body, client.tokenEndpointAuthMethod, { profile: profile === 'fapi2' ? 'fapi2' : 'none' });
  const requireDpop = booleanOf(body, 'dpop_bound_access_tokens');
  if (profile !== undefined) {
    const problems = fapi2ProfileProblems({
      profile: typeof profile === 'string' ? profile : shownJson(profile),
      confidential: client.tokenEndpointAuthMethod !== 'none',
      tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
      grantTypes: client.grantTypes,
      signedResponseAlgs: { ...client.signedResponses, authorization_signed_response_alg: typeof alg === 'string' ? alg : null },
    });
    if (problems.length > 0) throw new InvalidClientMetadata(problems.join(' '));
  }
  return {
    ...(requirePar !== undefined && { require_pushed_authorization_requests: requirePar }),
    ...(requireSigned !== undefined && { require_signed_request_object: requireSigned }),
    ...(alg !== undefined && { authorization_signed_response_alg: alg as SigningAlgorithm }),
    ...(profile !== undefined && { profile: profile as ClientProfile }),
    ...(requireDpop !== undefined && { dpop_bound_access_tokens: requireDpop }),
    ...signing,
  };
}

/**
 * request_object_signing_alg, one the server verifies request objects with; token_endpoint_auth_signing_alg, one of the
 * client's assertion method, and only with such a method (for another it says nothing and is not kept). Both within a
 * fapi2 client's algorithms; never `none`.
 */
function registeredSigningAlgs(
  body: Record<string, unknown>,
  method: string,
  client: Pick<ApplicationRecord, 'profile'>,
): Pick<RequestSecurityMetadata, 'request_object_signing_alg' | 'token_endpoint_auth_signing_alg'> {
  const requestAlg = body.request_object_signing_alg;
  const requestAlgs = algorithmsFor(client, REQUEST_OBJECT_ALGORITHMS);
  if (requestAlg !== undefined && !(typeof requestAlg === 'string' && requestAlgs.includes(requestAlg)))
    throw new InvalidClientMetadata(`request_object_signing_alg must be one of ${requestAlgs.join(', ')}.`);
  const assertionAlg = body.token_endpoint_auth_signing_alg;
  const assertionAlgs = isAssertionMethod(method) ? algorithmsFor(client, ASSERTION_ALGORITHMS[method]) : null;
  if (assertionAlg !== undefined && assertionAlgs !== null && !(typeof assertionAlg === 'string' && assertionAlgs.includes(assertionAlg)))
    throw new InvalidClientMetadata(`token_endpoint_auth_signing_alg must be one of ${assertionAlgs.join(', ')} for ${method}.`);
  return {
    ...(typeof requestAlg === 'string' && { request_object_signing_alg: requestAlg }),
    ...(typeof assertionAlg === 'string' && assertionAlgs !== null && { token_endpoint_auth_signing_alg: assertionAlg }),
  };
}

/** The stored settings as RFC 7592 answers them: each stated only when it is not the default. */
export function storedRequestSecurityMetadata(
  application: Pick<
    ApplicationRecord,
    | 'requirePushedAuthorizationRequests'
    | 'requireSignedRequestObject'
    | 'authorizationSignedResponseAlg'
    | 'profile'
    | 'dpopBoundAccessTokens'
    | 'requestObjectSigningAlg'
    | 'tokenEndpointAuthSigningAlg'
  >,
): RequestSecurityMetadata {
  return {
    ...(application.dpopBoundAccessTokens && { dpop_bound_access_tokens: true }),
    ...(application.requestObjectSigningAlg !== null && { request_object_signing_alg: application.requestObjectSigningAlg }),
    ...(application.tokenEndpointAuthSigningAlg !== null && { token_endpoint_auth_signing_alg: application.tokenEndpointAuthSigningAlg }),
    ...(application.requirePushedAuthorizationRequests && { require_pushed_authorization_requests: true }),
    ...(application.requireSignedRequestObject && { require_signed_request_object: true }),
    ...(application.authorizationSignedResponseAlg !== null && {
      authorization_signed_response_alg: application.authorizationSignedResponseAlg,
    }),
    ...(application.profile !== 'none' && { profile: application.profile }),
  };
}
