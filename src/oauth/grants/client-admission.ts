import type { GrantFlow } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import { rememberDpopProof, type CheckedDpopProof } from '../dpop-proof.js';
import type { ApplicationRecord } from '../store.js';

/**
 * What every grant does as soon as it knows its client (authenticated, or for a public client's refresh the
 * application of its own refresh token), before it reads or writes anything else for the request. Returns the
 * thumbprint of the request's DPoP proof (RFC 9449), null without one.
 */
export async function admitClient(
  deps: Pick<OAuthDeps, 'stores'>,
  grantType: GrantFlow,
  application: ApplicationRecord | null,
  dpopProof: CheckedDpopProof | null | undefined,
): Promise<string | null> {
  if (!dpopProof) return null;
  // RFC 9449 section 11.1: the proof is recorded against replay only now, so that a request without valid
  // credentials (anyone's, with a self-signed proof) makes the server write nothing.
  await rememberDpopProof(deps, dpopProof);
  return dpopProof.jkt;
}
