import type { OAuthDeps } from '../deps.js';
import { InvalidGrant } from '../errors.js';
import { replayKey } from '../replay-key.js';
import { CLOCK_SKEW_SECONDS, type VerifiedAssertion } from './assertion-checks.js';

// RFC 7523 section 3 item 7 (a jti used once) on every instance: the DPoP proofs' table (oauth_dpop_proofs), whose
// primary key is the replay check and whose rows go once their expires_at has passed, under a namespace of its own
// (replay-key.ts).
const NAMESPACE = 'jwt-bearer-assertion';

/** Records the assertion's jti until it expires; invalid_grant when it was recorded already (a replay). */
export async function consumeAssertion(deps: Pick<OAuthDeps, 'stores'>, assertion: VerifiedAssertion): Promise<void> {
  const key = replayKey(NAMESPACE, assertion.entry.issuer, assertion.jti);
  // Kept past exp by the clock skew an expired assertion is still accepted within.
  const until = new Date(assertion.expiresAt.getTime() + CLOCK_SKEW_SECONDS * 1000);
  if (!(await deps.stores.dpopProofs.remember(key, until))) throw new InvalidGrant('The assertion was used already (jti).');
}
