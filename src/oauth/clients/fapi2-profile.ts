import type { ApplicationRecord, ClientProfile } from './application-store.js';
import { CLIENT_PROFILES } from './application-store.js';
import { isSigningAlgorithm, type SigningAlgorithm } from '../keys/signing-keys.js';
import { InvalidDpopProof } from '../errors.js';
import { isPlainHttpOffLoopback } from '../authorization/redirect-uri.js';

// A client's security profile (issue 36 item 5). `fapi2` applies FAPI 2.0 Security Profile (final) section 5 to the
// client: what it may register is checked here (fapi2ProfileProblems, at the admin's create/update, the CLI, apply
// files and RFC 7591 registration), and each request-time rule sits where its check already was, asking isFapi2:
// PAR and PKCE S256 and the code flow in authorization-rules.ts, DPoP in token-issuer.ts (as dpop_bound_access_tokens),
// no password grant in client-admission.ts, the code lifetime in authorization-approval.ts, the client assertion's aud
// and algorithm in client-assertion-verification.ts, the request object's algorithm in request-object.ts, the DPoP
// proof's (requireFapi2DpopAlgorithm, below) in client-admission.ts and at PAR, and what
// this server signs for the client with (signingAlgorithmFor, below) where each JWT is signed. Mutual TLS (the
// profile's other client authentication and sender constraint) is not supported: private_key_jwt and DPoP are the only
// ones.

/** FAPI 2.0 Security Profile section 5: authorization codes live at most 60 seconds. */
export const FAPI2_CODE_LIFETIME_SECONDS = 60;
/** The prefix of every request-time refusal, so the client's developer sees which profile's rule it broke. */
export const FAPI2 = 'FAPI 2.0';

export const isFapi2 = (application: Pick<ApplicationRecord, 'profile'> | null | undefined): boolean => application?.profile === 'fapi2';

export const isClientProfile = (value: string): value is ClientProfile => (CLIENT_PROFILES as readonly string[]).includes(value);

/** FAPI 2.0 Security Profile section 5.4: the only JWS algorithms a fapi2 client and this server sign its JWTs with. */
export const FAPI2_ALGORITHMS: readonly string[] = ['PS256', 'ES256', 'EdDSA', 'Ed25519'];
/** What this server signs a fapi2 client's JWTs with when keys.algorithms names no FAPI algorithm (signingAlgorithmFor). */
export const FAPI2_FALLBACK_ALGORITHM: SigningAlgorithm = 'ES256';

const fapi2Allows = (alg: string): boolean => FAPI2_ALGORITHMS.includes(alg);
// What this server signs with of FAPI 2.0's algorithms: what a fapi2 client's *_signed_response_alg may name.
const FAPI2_SIGNED = FAPI2_ALGORITHMS.filter(isSigningAlgorithm);

/** Of the algorithms a JWT the client signed is verified with, those it may use: all, or a fapi2 client's FAPI ones. */
export const algorithmsFor = (application: Pick<ApplicationRecord, 'profile'> | null, algorithms: readonly string[]): string[] =>
  algorithms.filter((alg) => !isFapi2(application) || fapi2Allows(alg));

/** The refusal of a fapi2 client's JWT signed with another algorithm; `what`: "the request object", "the client assertion". */
export const fapi2AlgorithmRefusal = (what: string): string =>
  `${FAPI2}: ${what} must be signed with one of ${FAPI2_ALGORITHMS.join(', ')} (profile fapi2).`;

/** Section 5.4 for a fapi2 client's DPoP proofs (at the token endpoint and PAR): invalid_dpop_proof in another algorithm. */
export function requireFapi2DpopAlgorithm(application: Pick<ApplicationRecord, 'profile'> | null, alg: string): void {
  if (algorithmsFor(application, [alg]).length === 0) throw new InvalidDpopProof(fapi2AlgorithmRefusal('the DPoP proof'));
}

/**
 * What this server signs a JWT for this client with (ID token, logout token, JARM response, signed UserInfo):
 * `registered`, the algorithm the client chose for it, else RS256 (OpenID Connect Registration 2's default). A fapi2
 * client's are FAPI 2.0's (section 5.4) whatever is stored (a row from before the rule, edited by hand): its
 * registered one when FAPI allows it, else the first FAPI algorithm of keys.algorithms (kept signing-ready, so
 * published ahead), else ES256, whose key the signer makes on first use as for any client's registered algorithm
 * outside keys.algorithms: the profile sets its own floor under the server's settings, as for the code lifetime.
 */
export function signingAlgorithmFor(
  application: Pick<ApplicationRecord, 'profile'>,
  registered: SigningAlgorithm | null,
  keys: { algorithms: readonly SigningAlgorithm[] },
): SigningAlgorithm {
  if (!isFapi2(application)) return registered ?? 'RS256';
  if (registered !== null && fapi2Allows(registered)) return registered;
  return keys.algorithms.find(fapi2Allows) ?? FAPI2_FALLBACK_ALGORITHM;
}

/** The metadata that names what this server signs a client's JWTs with (OpenID Connect Registration 2, JARM 3). */
export type SignedResponseAlgField = 'id_token_signed_response_alg' | 'userinfo_signed_response_alg' | 'authorization_signed_response_alg';

/** What a client to be stored with this profile looks like (its method null: derived from confidential). */
export interface ProfiledClient {
  profile: string;
  confidential: boolean;
  tokenEndpointAuthMethod: string | null;
  /** null: every grant the server enables (then the request-time rules keep implicit and password out). */
  grantTypes: readonly string[] | null;
  /** The signing algorithms it will have, by metadata name; blank or null (or left out): the default. */
  signedResponseAlgs?: Partial<Record<SignedResponseAlgField, string | null>>;
  /** Its redirect URIs, when they are being set (RFC 7591 registration judges the scheme itself). */
  redirectUris?: readonly string[];
}

// Grants the FAPI 2.0 Security Profile (section 5) leaves out: implicit (tokens in the front channel) and password.
const FORBIDDEN_GRANTS = ['implicit', 'password'] as const;

/** Why the client cannot have this profile, each message naming the rule it breaks; empty when it can. */
export function fapi2ProfileProblems(client: ProfiledClient): string[] {
  if (!isClientProfile(client.profile))
    return [`Profile must be ${CLIENT_PROFILES.join(' or ')}, not ${JSON.stringify(client.profile.slice(0, 40))}.`];
  if (client.profile !== 'fapi2') return [];
  const problems: string[] = [];
  if (!client.confidential) problems.push('profile fapi2 requires a confidential client.');
  if (client.tokenEndpointAuthMethod !== 'private_key_jwt')
    problems.push('profile fapi2 requires token_endpoint_auth_method private_key_jwt (mutual TLS is not supported).');
  for (const grant of FORBIDDEN_GRANTS)
    if (client.grantTypes?.includes(grant)) problems.push(`profile fapi2 does not allow the ${grant} grant.`);
  // Section 5.4. Only an algorithm this server signs with is judged: another is its field's own error already.
  for (const [field, alg] of Object.entries(client.signedResponseAlgs ?? {}))
    if (alg && isSigningAlgorithm(alg) && !fapi2Allows(alg))
      problems.push(
        `profile fapi2 does not allow ${field} ${alg} (FAPI 2.0 allows only ${FAPI2_SIGNED.join(' or ')} for what this server signs).`,
      );
  // Section 5.3.2.2: https, or http on a loopback address (a native client), whatever forceSslInRedirectUri allows.
  for (const uri of client.redirectUris ?? [])
    if (isPlainHttpOffLoopback(uri))
      problems.push(`profile fapi2 does not allow the redirect URI ${uri} (FAPI 2.0: https, or http on a loopback address only).`);
  return problems;
}

/** Whether the profile refuses this grant type at the token endpoint (RFC 6749 unauthorized_client). */
export const fapi2RefusesGrant = (application: ApplicationRecord | null, grantType: string): boolean =>
  isFapi2(application) && (FORBIDDEN_GRANTS as readonly string[]).includes(grantType);

/** How long this client's authorization codes live: the configured lifetime, at most 60 s for a fapi2 client. */
export function codeLifetimeSeconds(application: ApplicationRecord, configured: number): number {
  return isFapi2(application) ? Math.min(configured, FAPI2_CODE_LIFETIME_SECONDS) : configured;
}
