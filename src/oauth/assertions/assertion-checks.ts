import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { TrustedIssuerConfig } from '../../config/trusted-issuers-schema.js';
import { InvalidGrant } from '../errors.js';
import { authorizationIssuer } from '../issuer.js';
import type { OAuthDeps } from '../deps.js';
import { UNSTORABLE_TEXT, unstorableText } from '../storable-text.js';
import { issuerKeys } from './issuer-keys.js';
import { ID_JAG_TYPE } from './jwt-bearer-grant-type.js';

// RFC 7523 section 3 and the processing rules of draft-ietf-oauth-identity-assertion-authz-grant's access token
// request: the checks of an assertion, in order; each failure is invalid_grant saying which check failed, never a key
// or the assertion itself.

/** Asymmetric only: `none` and the HMAC algorithms are refused before any key is looked at (RFC 8725 section 3.1). */
export const ASSERTION_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

// Clocks of two parties: iat and nbf may be this far in the future, exp this far in the past.
export const CLOCK_SKEW_SECONDS = 30;
const MAX_JTI_LENGTH = 256;

/** An assertion whose signature and claims were checked; its jti not yet recorded against replay. */
export interface VerifiedAssertion {
  entry: TrustedIssuerConfig;
  claims: JWTPayload;
  subject: string;
  jti: string;
  expiresAt: Date;
}

/**
 * RFC 7515 section 4.1.9: a typ compares as a media type, case-insensitively, and one without a "/" has its
 * "application/" left out (oauth-id-jag+jwt is application/oauth-id-jag+jwt); RFC 8725 section 3.11 compares the same way.
 */
export function isMediaType(typ: unknown, expected: string): boolean {
  const full = (value: string) => (value.includes('/') ? value : `application/${value}`).toLowerCase();
  return typeof typ === 'string' && full(typ) === full(expected);
}

/** The unverified `iss`, to find the trusted issuer whose keys verify the rest; a non-JWT is invalid_grant. */
export function assertionIssuer(assertion: string): unknown {
  try {
    decodeProtectedHeader(assertion);
    return decodeJwt(assertion).iss;
  } catch {
    throw new InvalidGrant('The assertion is not a JWT.');
  }
}

export async function verifyAssertion(
  deps: Pick<OAuthDeps, 'config' | 'now'>,
  assertion: string,
  entry: TrustedIssuerConfig,
): Promise<VerifiedAssertion> {
  const header = decodeProtectedHeader(assertion);
  if (typeof header.alg !== 'string' || !ASSERTION_ALGORITHMS.includes(header.alg))
    throw new InvalidGrant(`The assertion must be signed with an asymmetric algorithm (${ASSERTION_ALGORITHMS.join(', ')}).`);
  // The draft's processing rules (RFC 8725 section 3.11): an ID-JAG says what it is, so no other JWT of the issuer passes.
  if (entry.idJag && !isMediaType(header.typ, ID_JAG_TYPE)) throw new InvalidGrant(`The assertion must have typ ${ID_JAG_TYPE}.`);
  const now = deps.now();
  const { payload } = await verified(assertion, entry, deps.config.baseUrl, now);
  // The draft's ID-JAG claims: iat is REQUIRED (as iss, sub, aud, client_id, jti and exp are).
  if (entry.idJag && payload.iat === undefined) throw new InvalidGrant('The assertion has no iat: an ID-JAG says when it was issued.');
  // The draft's aud is this server's issuer, one value (as a client assertion's, behaviour.md 3.1): an ID-JAG aimed at
  // another server too could be redeemed there as well.
  if (entry.idJag && Array.isArray(payload.aud) && payload.aud.length !== 1)
    throw new InvalidGrant('The assertion names other audiences too (aud): an ID-JAG is for this server alone.');
  // Signed is not sane: a claim (sub, email, jti...) is looked up and stored in PostgreSQL text (storable-text.ts).
  if (unstorableText(payload) !== null) throw new InvalidGrant(`The assertion’s claims ${UNSTORABLE_TEXT}.`);
  const exp = payload.exp!;
  // jose checks iat only against a maximum age; an assertion issued in the future is refused here.
  if (payload.iat !== undefined && payload.iat > now.getTime() / 1000 + CLOCK_SKEW_SECONDS)
    throw new InvalidGrant('The assertion is not valid yet (iat).');
  if (exp - now.getTime() / 1000 > entry.maxLifetimeSeconds + CLOCK_SKEW_SECONDS)
    throw new InvalidGrant(`The assertion expires too far ahead (at most ${entry.maxLifetimeSeconds} seconds).`);
  const subject = payload[entry.subjectClaim];
  if (typeof subject !== 'string' || subject === '') throw new InvalidGrant(`The assertion has no ${entry.subjectClaim} claim.`);
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) throw new InvalidGrant('The assertion needs a jti.');
  // The scope claim bounds the token's scopes (asserted-scopes.ts): one that is no string would bound nothing.
  if (payload.scope !== undefined && typeof payload.scope !== 'string')
    throw new InvalidGrant('The assertion’s scope claim must be a string of space-separated scopes.');
  return { entry, claims: payload, subject, jti, expiresAt: new Date(exp * 1000) };
}

async function verified(assertion: string, entry: TrustedIssuerConfig, baseUrl: string, now: Date) {
  try {
    return await jwtVerify(assertion, issuerKeys(entry.jwksUri), {
      algorithms: ASSERTION_ALGORITHMS,
      issuer: entry.issuer,
      // RFC 7523 section 3 item 3: this server, by its issuer identifier unless the operator named another audience.
      audience: entry.audience ?? authorizationIssuer(baseUrl),
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: now,
    });
  } catch (error) {
    throw new InvalidGrant(failedCheck(error));
  }
}

function failedCheck(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The assertion has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    // jose's reason for a time claim that is no number (a string, say): malformed, not early or late.
    if (error.reason === 'invalid') return `The assertion's ${error.claim} claim is not a number (seconds since 1970).`;
    if (error.claim === 'aud') return 'The assertion is for another audience (aud).';
    if (error.claim === 'exp') return 'The assertion has no valid exp.';
    if (error.claim === 'nbf' || error.claim === 'iat') return `The assertion is not valid yet (${error.claim}).`;
    return `The assertion's ${error.claim} claim is not valid.`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'No key of the issuer matches the assertion.';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The assertion signature does not verify.';
  // Web Crypto refusing a published key (a DataError for an EC key without its point), which jose passes on as it is.
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JOSENotSupported || error instanceof DOMException)
    return "The issuer's keys could not be used to verify the assertion.";
  if (error instanceof errors.JOSEError) return 'The assertion could not be verified.';
  if (error instanceof TypeError || error instanceof SyntaxError) return 'The assertion could not be verified.';
  throw error;
}
