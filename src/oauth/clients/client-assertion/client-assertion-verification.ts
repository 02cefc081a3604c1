import { createHash } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { OAuthDeps } from '../../deps.js';
import type { ApplicationRecord } from '../../store.js';
import { FAPI2, fapi2AlgorithmRefusal, isFapi2 } from '../fapi2-profile.js';
import { registeredAlgorithmRefusal, sameAlgorithm, signingAlgorithmsOf } from '../registered-signing-algs.js';
import { ASSERTION_ALGORITHMS, type AssertionMethod } from './assertion-methods.js';
import { clientKeySource, ClientKeysUnavailable, verifyWithClientKeys, type ClientKeySource } from './client-key-sets.js';

// RFC 7523 section 3 and OpenID Connect Core 9: the checks of a client assertion once its client is known.
// iss and sub are the client id; aud names this server (the issuer, RFC 7523bis), the endpoint called, or the token
// endpoint (Core 9 says the token endpoint at every endpoint); exp is present and at most MAX_AHEAD_SECONDS ahead;
// jti is present and used once, on every instance, until exp (the DPoP proofs' table holds it, as a hash).

/** Core 9 puts no bound on exp; an assertion good for hours would be a bearer credential worth stealing. */
export const MAX_AHEAD_SECONDS = 300;
/** Clocks of client and server differ: exp, iat and nbf are judged with this much slack. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * The outcome: the verified claims, or why not (`description`: only what the client should be told: a fetch failure,
 * the profile's rules, or, once the signature verified, which claim failed).
 */
export type AssertionVerdict = { payload: JWTPayload } | { payload: null; description?: string };

/** Whether the assertion authenticates the application (its signature and claims), without recording the jti. */
export async function verifyAssertion(
  deps: OAuthDeps,
  application: ApplicationRecord,
  method: AssertionMethod,
  assertion: string,
  endpoint: string,
): Promise<AssertionVerdict> {
  const key = verificationKey(deps, application, method);
  if (key === null) return { payload: null };
  // FAPI 2.0 Security Profile section 5.4: a fapi2 client signs with PS256, ES256 or EdDSA, and is told so.
  const registered = application.tokenEndpointAuthSigningAlg;
  const algorithms = signingAlgorithmsOf(application, ASSERTION_ALGORITHMS[method], registered);
  const alg = headerAlgorithm(assertion);
  if (registered !== null && alg !== null && !sameAlgorithm(alg, registered))
    return {
      payload: null,
      description: registeredAlgorithmRefusal('The client assertion', registered, 'token_endpoint_auth_signing_alg'),
    };
  if (isFapi2(application) && alg !== null && !algorithms.includes(alg))
    return { payload: null, description: fapi2AlgorithmRefusal('the client assertion') };
  const base = deps.config.baseUrl.replace(/\/+$/, '');
  // FAPI 2.0 Security Profile section 5: a fapi2 client's assertion names the issuer alone, never an endpoint.
  const audiences = isFapi2(application) ? [base] : [base, `${base}/oauth/token`, `${base}${endpoint}`];
  const options = {
    algorithms,
    issuer: application.uid,
    subject: application.uid,
    audience: audiences,
    requiredClaims: ['exp', 'jti'],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    currentDate: deps.now(),
  };
  try {
    const { payload } = await (key instanceof Uint8Array
      ? jwtVerify(assertion, key, options)
      : verifyWithClientKeys(assertion, key, options));
    // The profile asks for the issuer as a string: an array that holds it (and maybe more) is not accepted either.
    if (isFapi2(application) && payload.aud !== base) return { payload: null, description: fapi2AudienceRefusal(base) };
    const problem = boundsProblem(deps, payload) ?? (onlyFor(payload, audiences) ? null : OTHER_AUDIENCES);
    return problem === null ? { payload } : { payload: null, description: problem };
  } catch (error) {
    if (error instanceof ClientKeysUnavailable) return { payload: null, description: error.message };
    // Said, as the profile's other refusals are: a library that names the token endpoint (as for any other server) is
    // told which rule it broke. Only after the signature verified (jose checks the claims after it).
    if (isFapi2(application) && error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud')
      return { payload: null, description: fapi2AudienceRefusal(base) };
    if (error instanceof errors.JOSEError) return { payload: null, description: claimRefusal(error) };
    throw error;
  }
}

// What a client whose assertion verified is told of its claims (a wrong clock, a library's aud): it holds the key,
// so nothing is given away; a signature that does not verify, or a key that is not the client's, stays unexplained.
const OTHER_AUDIENCES = "The client assertion's aud names another audience besides this server.";
const NOT_YET = (claim: string) => `The client assertion is not valid yet (${claim}): check the client's clock.`;

function claimRefusal(error: InstanceType<typeof errors.JOSEError>): string | undefined {
  if (error instanceof errors.JWTExpired) return 'The client assertion has expired (exp).';
  if (!(error instanceof errors.JWTClaimValidationFailed)) return undefined;
  if (error.reason === 'missing') return `The client assertion has no ${error.claim} claim.`;
  if (error.reason === 'invalid') return `The client assertion's ${error.claim} claim is not a number (seconds since 1970).`;
  if (error.claim === 'nbf' || error.claim === 'iat') return NOT_YET(error.claim);
  if (error.claim === 'aud') return 'The client assertion is for another audience (aud).';
  return `The client assertion's ${error.claim} claim is not valid.`;
}

/** Records the jti; false when it was used already (a replay), on this instance or another. */
export async function rememberAssertion(deps: OAuthDeps, application: ApplicationRecord, payload: JWTPayload): Promise<boolean> {
  // A client's jti is its own: two clients may choose the same one. The prefix keeps these apart from DPoP proofs.
  const key = createHash('sha256')
    .update(`client_assertion\u0000${application.uid}\u0000${String(payload.jti)}`)
    .digest('hex');
  const expiresAt = new Date((payload.exp! + CLOCK_TOLERANCE_SECONDS) * 1000);
  return deps.stores.dpopProofs.remember(key, expiresAt);
}

function headerAlgorithm(assertion: string): string | null {
  try {
    return decodeProtectedHeader(assertion).alg ?? null;
  } catch {
    return null;
  }
}

function verificationKey(deps: OAuthDeps, application: ApplicationRecord, method: AssertionMethod): Uint8Array | ClientKeySource | null {
  if (method === 'private_key_jwt') return clientKeySource(deps, application);
  // HS256 needs the secret itself: only where secrets are stored as they are (hashApplicationSecrets off).
  if (deps.config.hashApplicationSecrets || application.secret === null) return null;
  return new TextEncoder().encode(application.secret);
}

// jose checks that exp has not passed and nbf has; Core 9 leaves how far ahead exp may be to the server, and jose looks
// at iat only when asked for a maximum age: an assertion issued in the future (beyond the clocks' skew) is refused.
function boundsProblem(deps: OAuthDeps, payload: JWTPayload): string | null {
  const now = Math.floor(deps.now().getTime() / 1000);
  if (typeof payload.exp !== 'number' || payload.exp > now + MAX_AHEAD_SECONDS + CLOCK_TOLERANCE_SECONDS)
    return `The client assertion's exp is more than ${MAX_AHEAD_SECONDS / 60} minutes ahead.`;
  if (payload.iat !== undefined && payload.iat > now + CLOCK_TOLERANCE_SECONDS) return NOT_YET('iat');
  if (payload.jti === undefined || payload.jti === '') return 'The client assertion has no jti claim.';
  if (typeof payload.jti !== 'string') return "The client assertion's jti claim is not a string.";
  return null;
}

// jose accepts an aud array that holds one of the audiences; it may hold nothing else here (behaviour.md 3.1), so
// that an assertion made for this server and another cannot be played at both.
function onlyFor(payload: JWTPayload, audiences: string[]): boolean {
  const named = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  return named.every((audience) => typeof audience === 'string' && audiences.includes(audience));
}

const fapi2AudienceRefusal = (issuer: string): string =>
  `${FAPI2}: the client assertion's aud must be the issuer, ${issuer}, as a string (profile fapi2).`;
