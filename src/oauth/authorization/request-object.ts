import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload } from 'jose';
import type { OAuthDeps } from '../deps.js';
import { InvalidRequest, InvalidRequestObject, type OAuthError } from '../errors.js';
import { clientKeySource, ClientKeysUnavailable, verifyWithClientKeys } from '../clients/client-assertion/client-key-sets.js';
import { fapi2AlgorithmRefusal, isFapi2 } from '../clients/fapi2-profile.js';
import { registeredAlgorithmRefusal, sameAlgorithm, signingAlgorithmsOf } from '../clients/registered-signing-algs.js';
import { authorizationIssuer } from '../issuer.js';
import { NESTED_TOO_DEEPLY, nestedTooDeeply } from '../json-nesting.js';
import type { LookupOrigin } from '../store.js';
import { readAuthorizationParameters, type AuthorizationParameters } from './authorization-parameters.js';
import { REQUEST_OBJECT_ALGORITHMS } from './request-object-algorithms.js';
import { INTERACTION_SECONDS } from './pushed-authorization-requests.js';

// RFC 9101 (JAR): the authorization request as a JWT the client signed with one of its registered keys (jwks or
// jwks_uri, as for private_key_jwt), passed by value in `request`. Once verified, its claims are the request: section
// 6.3 says to use only the parameters inside it, so those beside it in the query are dropped, client_id aside, which
// must be the same. A client without keys keeps today's answer, request_not_supported (the rules say it). What is
// wrong with a request object is shown on our page, never redirected: its redirect_uri cannot be trusted.

/**
 * FAPI 2.0 Message Signing (5.3.1): nbf at most 60 minutes back, exp at most 60 minutes after nbf (and after now).
 * nbf is required of a fapi2 client's objects only: RFC 9101 does not require it of others.
 */
const MAX_LIFETIME_SECONDS = 3600;
const CLOCK_TOLERANCE_SECONDS = 30;
// Bounds the work a stranger's request costs before the lookup (a real request object is a few KB).
const MAX_REQUEST_OBJECT_LENGTH = 65_536;
// The JWT's own claims: not parameters of the request.
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);

/**
 * OpenID Connect Core 6: "If one of these parameters is used, the other MUST NOT be used in the same request" (RFC 9101
 * section 5 has each REQUIRED unless the other is specified). Refused before either is looked at: a pushed request_uri
 * is not opened, and which redirect_uri the request names (the object's, the pushed one's) is unknown, so the error is
 * shown, never redirected, as any other fault of a request object or request_uri. null when at most one is sent.
 */
export function requestAndRequestUriTogether({ values }: AuthorizationParameters): InvalidRequest | null {
  const sent = (value: string | undefined) => value !== undefined && value.trim() !== '';
  if (!sent(values.request) || !sent(values.request_uri)) return null;
  return new InvalidRequest('The request and request_uri parameters must not be used together.');
}

export type UnpackedRequest = { ok: true; parameters: AuthorizationParameters } | { ok: false; error: OAuthError };

/**
 * The request's parameters: the verified request object's when `request` is sent by a client with keys, else as sent.
 * `seenValid`: this browser was shown this very request while its object was valid (the consent page's approval, the
 * way back from a sign-in it asked for); its sign-in and consent then have INTERACTION_SECONDS past the object's exp,
 * as a pushed request's do (RFC 9101 section 10.2's exp bounds when a request is accepted, not how long a user takes).
 */
export async function unpackRequestObject(
  deps: OAuthDeps,
  parameters: AuthorizationParameters,
  origin?: LookupOrigin,
  seenValid = false,
): Promise<UnpackedRequest> {
  const jwt = parameters.values.request;
  const clientId = parameters.values.client_id;
  if (jwt === undefined || jwt === '' || clientId === undefined || clientId === '') return { ok: true, parameters };
  const application = await deps.stores.applications.findByUid(clientId, origin);
  const keys = application && clientKeySource(deps, application);
  // An unknown client, or one without keys: the rules answer as for any request (invalid_client, request_not_supported).
  if (!keys) return { ok: true, parameters };
  const refuse = (description: string): UnpackedRequest => ({ ok: false, error: new InvalidRequestObject(description) });
  if (jwt.length > MAX_REQUEST_OBJECT_LENGTH) return refuse('The request object is too large.');
  // FAPI 2.0 Security Profile section 5.4: a fapi2 client's objects are signed with PS256, ES256 or EdDSA only.
  const registered = application.requestObjectSigningAlg;
  const algorithms = signingAlgorithmsOf(application, REQUEST_OBJECT_ALGORITHMS, registered);
  const alg = headerAlgorithm(jwt);
  if (alg === null) return refuse('The request object is not a signed JWT.');
  if (registered !== null && !sameAlgorithm(alg, registered))
    return refuse(registeredAlgorithmRefusal('The request object', registered, 'request_object_signing_alg'));
  if (!algorithms.includes(alg)) {
    return refuse(
      isFapi2(application)
        ? fapi2AlgorithmRefusal('the request object')
        : `The request object must be signed with one of ${REQUEST_OBJECT_ALGORITHMS.join(', ')}.`,
    );
  }
  const checkedAt = seenValid ? acceptedAt(jwt, deps.now()) : deps.now();
  let payload: JWTPayload;
  try {
    ({ payload } = await verifyWithClientKeys(jwt, keys, {
      algorithms,
      issuer: clientId,
      audience: authorizationIssuer(deps.config.baseUrl),
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: checkedAt,
    }));
  } catch (error) {
    if (error instanceof ClientKeysUnavailable) return refuse(error.message);
    if (error instanceof errors.JOSEError) return refuse(`The request object is invalid: ${joseReason(error)}.`);
    throw error;
  }
  const problem = lifetimeProblem(payload, checkedAt, isFapi2(application)) ?? contentProblem(payload, clientId);
  if (problem !== null) return refuse(problem);
  // Its claims and authorization_details are carried on as JSON text (requestOf).
  if (nestedTooDeeply(payload)) return refuse(`The request object is ${NESTED_TOO_DEEPLY}.`);
  const unpacked = readAuthorizationParameters(requestOf(payload, clientId));
  // A claim of the wrong JSON type is the object's fault, not a parameter "sent more than once" as in a query.
  const mistyped = unpacked.malformed[0];
  if (mistyped !== undefined) {
    return refuse(`The request object's ${mistyped} claim must be a string${mistyped === 'resource' ? ' or an array of strings' : ''}.`);
  }
  return { ok: true, parameters: { ...unpacked, signed: true } };
}

/**
 * When an object seen valid is checked: now, or just before its exp when that passed less than INTERACTION_SECONDS
 * ago. The exp read here only chooses the time: the object is then verified in full (signature and claims) at it.
 */
function acceptedAt(jwt: string, now: Date): Date {
  let exp: unknown;
  try {
    ({ exp } = decodeJwt(jwt));
  } catch {
    return now;
  }
  if (typeof exp !== 'number' || exp * 1000 > now.getTime() || now.getTime() - exp * 1000 > INTERACTION_SECONDS * 1000) return now;
  return new Date(exp * 1000 - 1000);
}

function headerAlgorithm(jwt: string): string | null {
  try {
    return decodeProtectedHeader(jwt).alg ?? null;
  } catch {
    return null;
  }
}

// jose's messages name the claim and the check ("unexpected \"aud\" claim value"); a signature failure says no more.
function joseReason(error: errors.JOSEError): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify with the client’s keys';
  if (error instanceof errors.JWKSNoMatchingKey) return 'none of the client’s keys matches its header';
  return error.message.replace(/\.$/, '');
}

function lifetimeProblem(payload: JWTPayload, now: Date, nbfRequired: boolean): string | null {
  const seconds = Math.floor(now.getTime() / 1000);
  const minutes = MAX_LIFETIME_SECONDS / 60;
  if (payload.exp! > seconds + MAX_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) {
    return `The request object's exp is more than ${minutes} minutes ahead.`;
  }
  // jose has checked that an nbf present is a number and not in the future.
  if (payload.nbf === undefined) return nbfRequired ? 'The request object must have an nbf claim (FAPI 2.0, profile fapi2).' : null;
  if (payload.nbf < seconds - MAX_LIFETIME_SECONDS - CLOCK_TOLERANCE_SECONDS) {
    return `The request object's nbf is more than ${minutes} minutes in the past.`;
  }
  if (payload.exp! - payload.nbf > MAX_LIFETIME_SECONDS) return `The request object's exp is more than ${minutes} minutes after its nbf.`;
  return null;
}

// RFC 9101 sections 4 and 5: client_id inside, when there, is the one outside; a request object names no other.
function contentProblem(payload: JWTPayload, clientId: string): string | null {
  if (payload.client_id !== undefined && payload.client_id !== clientId) return 'The request object is for another client_id.';
  if (payload.request !== undefined || payload.request_uri !== undefined) {
    return 'A request object must not contain request or request_uri.';
  }
  return null;
}

// Claims that are JSON in the request object and JSON text in a query: the claims request (Core 5.5), and RFC 9396's
// authorization_details (section 3: an array in a request object).
const JSON_VALUED = new Set(['claims', 'authorization_details']);

// The claims as the query would carry them: numbers (max_age) as text, the JSON-valued ones as their JSON.
function requestOf(payload: JWTPayload, clientId: string): Record<string, unknown> {
  const source: Record<string, unknown> = {};
  for (const [name, claim] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name)) continue;
    source[name] =
      typeof claim === 'number' ? String(claim) : JSON_VALUED.has(name) && typeof claim === 'object' ? JSON.stringify(claim) : claim;
  }
  return { ...source, client_id: clientId };
}
