import type { Config } from '../../../config/types.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../keys/signing-keys.js';
import { InvalidClientMetadata } from './client-registration-errors.js';

// OpenID Connect Registration 1.0 section 2: the algorithm a client's ID tokens and (signed) UserInfo answers are
// signed with, while OpenID Connect is on; off, metadata this server does not act on, ignored (RFC 7591 section 2)
// as the other OpenID Connect fields are. The admin's rules: one of the algorithms this server signs with, named as
// JOSE names them (case-sensitive); never "none". Left out: RS256 ID tokens and plain JSON UserInfo, the defaults.

export interface SignedResponseMetadata {
  id_token_signed_response_alg?: SigningAlgorithm;
  userinfo_signed_response_alg?: SigningAlgorithm;
}

const FIELDS = ['id_token_signed_response_alg', 'userinfo_signed_response_alg'] as const;

export function signedResponseMetadataOf(body: Record<string, unknown>, config: Pick<Config, 'openid'>): SignedResponseMetadata {
  if (!config.openid.enabled) return {};
  const metadata: SignedResponseMetadata = {};
  for (const field of FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !isSigningAlgorithm(value))
      throw new InvalidClientMetadata(`${field} must be one of ${SIGNING_ALGORITHMS.join(', ')}.`);
    metadata[field] = value;
  }
  return metadata;
}
