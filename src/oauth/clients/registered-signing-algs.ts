import type { ApplicationRecord } from './application-store.js';
import { algorithmsFor } from './fapi2-profile.js';

// OpenID Connect Registration 1.0 section 2: request_object_signing_alg and token_endpoint_auth_signing_alg. A client
// that registered one has what it signs verified with that algorithm only (its request objects and assertions "MUST be
// rejected, if not signed with this algorithm"); one that did not, with any the server offers (a fapi2 client's: FAPI
// 2.0's, fapi2-profile.ts).

/**
 * Whether a JWT signed with `alg` is signed with the registered algorithm: EdDSA and Ed25519 (RFC 9864) name the same
 * signature here, as only Ed25519 keys are taken for either.
 */
export const sameAlgorithm = (alg: string, registered: string): boolean =>
  alg === registered || (EDDSA.includes(alg) && EDDSA.includes(registered));
const EDDSA = ['EdDSA', 'Ed25519'];

/** Of `offered`, those the client may sign with: its profile's, and of those the one it registered, if any. */
export const signingAlgorithmsOf = (
  application: Pick<ApplicationRecord, 'profile'> | null,
  offered: readonly string[],
  registered: string | null,
): string[] => algorithmsFor(application, offered).filter((alg) => registered === null || sameAlgorithm(alg, registered));

/** The refusal of a JWT the client signed with another algorithm than its registered `field`. */
export const registeredAlgorithmRefusal = (what: string, registered: string, field: string): string =>
  `${what} must be signed with ${registered}, the client's ${field}.`;
