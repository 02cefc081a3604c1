import type { OAuthDeps } from '../deps.js';
import { replayKey } from '../replay-key.js';

// WebAuthn Level 3 section 13.4.3: a ceremony's challenge is used once. The challenge travels in the browser's session
// cookie, and a copy of that cookie from before its first answer would still hold it: the first answer is recorded in
// the replay table (oauth_dpop_proofs, under a namespace of its own: replay-key.ts) until the challenge expires, so a
// captured answer sent again is refused on every instance, even for a passkey that keeps no signature counter.
const NAMESPACE = 'webauthn-challenge';

/** Whether this is the first answer to `challenge` (of a ceremony for `purpose`); recorded until `expiresAt`. */
export function isFirstAnswer(deps: Pick<OAuthDeps, 'stores'>, purpose: string, challenge: string, expiresAt: Date): Promise<boolean> {
  return deps.stores.dpopProofs.remember(replayKey(NAMESPACE, purpose, challenge), expiresAt);
}
