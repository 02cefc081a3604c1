import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors, jwtVerify, type JWK } from 'jose';
import { authorizationIssuer } from '../../issuer.js';
import type { OAuthDeps } from '../../deps.js';
import { dpopNonces } from './dpop-nonce.js';
import { InvalidDpopProof, UseDpopNonce } from '../../errors.js';

// RFC 9449 section 4.3: the checks of a DPoP proof, all through jose. A proof is good for one request (htm, htu),
// for a short window (iat), once on any instance (jti, in PostgreSQL), with a public key only; the key's RFC 7638
// thumbprint is what a token gets bound to.

export interface DpopRequest {
  method: string;
  /** The URL the client sent the request to, as the public would see it (query and fragment are ignored). */
  url: string;
  /** At a protected resource: the access token the proof must name (ath). */
  accessToken?: string;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const MAX_JTI_LENGTH = 256;

/** A proof whose signature and claims were checked, not yet recorded against replay (rememberDpopProof). */
export interface CheckedDpopProof {
  /** RFC 7638 thumbprint of the proof's key: what a token gets bound to. */
  jkt: string;
  /** SHA-256 hex of the key's thumbprint and the jti: what section 11.1's replay check remembers. */
  replayKey: string;
  /** The end of the window in which the proof is acceptable at all. */
  expiresAt: Date;
  /** Its JWS algorithm, for a client whose profile narrows them (FAPI 2.0 section 5.4). */
  alg: string;
}

/** The thumbprint (jkt) of a proof's key; throws InvalidDpopProof, or UseDpopNonce when a nonce is needed. */
export async function verifyDpopProof(
  deps: Pick<OAuthDeps, 'config' | 'stores' | 'now'>,
  proof: string,
  request: DpopRequest,
): Promise<string> {
  const checked = await checkDpopProof(deps, proof, request);
  await rememberDpopProof(deps, checked);
  return checked.jkt;
}

/** Every check of section 4.3 but replay, which writes: a request may be refused for other reasons first. */
export async function checkDpopProof(
  deps: Pick<OAuthDeps, 'config' | 'now'>,
  proof: string,
  request: DpopRequest,
): Promise<CheckedDpopProof> {
  const settings = deps.config.dpop;
  // Section 4.3 check 1: HTTP joins two DPoP header fields with a comma, which no compact JWT holds.
  if (proof.includes(',')) throw new InvalidDpopProof('Send exactly one DPoP proof.');
  const header = protectedHeader(proof);
  if (header.typ !== 'dpop+jwt') throw new InvalidDpopProof('The DPoP proof must have typ dpop+jwt.');
  if (typeof header.alg !== 'string' || !(settings.algorithms as readonly string[]).includes(header.alg)) {
    throw new InvalidDpopProof(`The DPoP proof must be signed with one of ${settings.algorithms.join(', ')}.`);
  }
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null) throw new InvalidDpopProof('The DPoP proof must carry its public key as jwk.');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw new InvalidDpopProof('The DPoP proof carries a private key.');
  const payload = await verifiedPayload(proof, settings.algorithms);
  if (payload.htm !== request.method) throw new InvalidDpopProof('The DPoP proof is for another HTTP method.');
  if (typeof payload.htu !== 'string' || withoutQuery(payload.htu) !== withoutQuery(request.url)) {
    throw new InvalidDpopProof('The DPoP proof is for another URL.');
  }
  const now = deps.now();
  const iat = payload.iat;
  const nowSeconds = now.getTime() / 1000;
  if (typeof iat !== 'number') throw new InvalidDpopProof('The DPoP proof needs an iat (a number of seconds).');
  if (iat < nowSeconds - settings.proofMaxAgeSeconds || iat > nowSeconds + settings.clockToleranceSeconds) {
    throw new InvalidDpopProof('The DPoP proof is too old or from the future (iat).');
  }
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti === '') throw new InvalidDpopProof('The DPoP proof needs a jti.');
  if (jti.length > MAX_JTI_LENGTH) throw new InvalidDpopProof(`The DPoP proof's jti is longer than ${MAX_JTI_LENGTH} characters.`);
  if (request.accessToken !== undefined && payload.ath !== sha256(request.accessToken).toString('base64url')) {
    throw new InvalidDpopProof('The DPoP proof is for another access token (ath).');
  }
  checkNonce(deps, payload.nonce, now);
  const jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  // Section 11.1: once per key and jti within the window in which the proof is acceptable at all.
  const expiresAt = new Date((iat + settings.proofMaxAgeSeconds + settings.clockToleranceSeconds) * 1000);
  return { jkt, replayKey: sha256(`${jkt}.${jti}`).toString('hex'), expiresAt, alg: header.alg };
}

const USED = 'The DPoP proof was used already.';

/**
 * Section 11.1: records the proof, on any instance (PostgreSQL); a proof seen before is InvalidDpopProof. Called once
 * the request is otherwise accepted (issue 29 item 7): the INSERT is the atomic replay check.
 */
export async function rememberDpopProof(deps: Pick<OAuthDeps, 'stores'>, { replayKey, expiresAt }: CheckedDpopProof): Promise<void> {
  if (!(await deps.stores.dpopProofs.remember(replayKey, expiresAt))) throw new InvalidDpopProof(USED);
}

/**
 * Section 4.3 step 12 without the write: a proof recorded already is InvalidDpopProof, before the request is judged
 * any further; a proof not seen yet is recorded only by rememberDpopProof, if the request is accepted.
 */
export async function refuseReplayedDpopProof(deps: Pick<OAuthDeps, 'stores'>, { replayKey }: CheckedDpopProof): Promise<void> {
  if (await deps.stores.dpopProofs.seen(replayKey)) throw new InvalidDpopProof(USED);
}

/**
 * The DPoP header of a token request (RFC 9449 section 5), or of a pushed authorization request (section 10.1, `path`
 * /oauth/par): absent is a bearer request (null); sent twice or
 * empty is invalid_dpop_proof; else the checked proof. Its replay check waits for the grant to have
 * authenticated the client (admitClient), and its record for the grant to issue (recordDpopProof), so requests
 * without credentials read nothing and refused ones write nothing.
 */
export async function tokenRequestDpopProof(
  deps: Pick<OAuthDeps, 'config' | 'now'>,
  header: string | string[] | undefined,
  path = '/oauth/token',
): Promise<CheckedDpopProof | null> {
  if (header === undefined) return null;
  if (typeof header !== 'string' || header.trim() === '') throw new InvalidDpopProof('Send exactly one DPoP proof.');
  return checkDpopProof(deps, header.trim(), { method: 'POST', url: `${authorizationIssuer(deps.config.baseUrl)}${path}` });
}

function protectedHeader(proof: string): ReturnType<typeof decodeProtectedHeader> {
  try {
    return decodeProtectedHeader(proof);
  } catch {
    throw new InvalidDpopProof('The DPoP proof is not a JWT.');
  }
}

async function verifiedPayload(proof: string, algorithms: readonly string[]): Promise<Record<string, unknown>> {
  try {
    return (await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...algorithms] })).payload;
  } catch (error) {
    // The signature verified, a claim did not ("iat" that is no number): said as such, not as a bad signature.
    if (error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTInvalid)
      throw new InvalidDpopProof(`The DPoP proof's claims are not valid: ${error.message}.`);
    throw new InvalidDpopProof('The DPoP proof signature does not verify with its jwk.');
  }
}

function checkNonce(deps: Pick<OAuthDeps, 'config'>, nonce: unknown, now: Date): void {
  if (!deps.config.dpop.nonce.required) return;
  const nonces = dpopNonces(deps.config);
  if (!nonces) return;
  if (typeof nonce !== 'string' || !nonces.accepts(nonce, now)) throw new UseDpopNonce(nonces.current(now));
}

// Section 4.3: htu is compared without query and fragment, after RFC 3986 normalisation (case of scheme and host,
// default port), which URL does.
function withoutQuery(value: string): string | null {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${normalizedPath(url.pathname)}`;
  } catch {
    return null;
  }
}

// Section 4.3 check 9 asks for RFC 3986 section 6.2.2's syntax-based normalization; the URL parser does the case of
// scheme and host, the default port and dot segments, and this the percent-encodings (6.2.2.1 and 6.2.2.2): an
// unreserved character is decoded, any other encoding upper-cased, so "/oauth/%74oken" is "/oauth/token".
function normalizedPath(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (encoding: string, hex: string) => {
    const character = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(character) ? character : encoding.toUpperCase();
  });
}

const sha256 = (value: string) => createHash('sha256').update(value).digest();
