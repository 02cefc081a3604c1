import type { ClientProfile } from '../application-store.js';
import { fapi2ProfileProblems } from '../fapi2-profile.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../keys/signing-keys.js';
import { InvalidClientMetadata } from './client-registration-errors.js';
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
  if (profile !== undefined) {
    const problems = fapi2ProfileProblems({
      profile: typeof profile === 'string' ? profile : String(JSON.stringify(profile)),
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
  };
}

/** The stored settings as RFC 7592 answers them: each stated only when it is not the default. */
export function storedRequestSecurityMetadata(application: {
  requirePushedAuthorizationRequests: boolean;
  requireSignedRequestObject: boolean;
  authorizationSignedResponseAlg: SigningAlgorithm | null;
  profile: ClientProfile;
}): RequestSecurityMetadata {
  return {
    ...(application.requirePushedAuthorizationRequests && { require_pushed_authorization_requests: true }),
    ...(application.requireSignedRequestObject && { require_signed_request_object: true }),
    ...(application.authorizationSignedResponseAlg !== null && {
      authorization_signed_response_alg: application.authorizationSignedResponseAlg,
    }),
    ...(application.profile !== 'none' && { profile: application.profile }),
  };
}
