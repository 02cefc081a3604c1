import { audienceProblem, type AudienceRule } from './audience.js';
import { extractCredentials } from './bearer-token.js';
import type { DpopProofResult } from './dpop-proof.js';
import type { TokenProblem } from './token-problem.js';
import type { GuardToken, Introspect } from './types.js';

/**
 * The outcome of looking at a request's credentials: a valid token, or why there is none (`detail`: for a refused
 * DPoP proof, which check failed). `staleNonce`: the DPoP proof carried the previous period's nonce, so the response
 * should hand out the current one.
 */
export type TokenEvaluation =
  { token: GuardToken; problem: null; staleNonce?: true } | { token: null; problem: TokenProblem; detail?: string };

/** With DPoP on: whether Bearer tokens are refused, and the proof check of the request for a given access token. */
export interface DpopCheck {
  required: boolean;
  verify(accessToken: string): Promise<DpopProofResult>;
}

const KEY_MISMATCH = 'The DPoP proof is not signed by the key the access token is bound to';

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface EvaluationRules {
  /** With a resource configured: a valid token must also be meant for it. */
  audience?: AudienceRule | null;
  /** jwt mode: the exp check tolerates clocks this far apart (the JWT's nbf and iat are checked by the verifier). */
  clockToleranceSeconds?: number;
}

/**
 * Reads the access token of a request and looks it up; introspection errors propagate. With `dpop`, the DPoP
 * scheme is read too (RFC 9449 section 7.1): its proof is checked before the lookup, and the token must then be
 * bound to the proof's key (`dpopJkt`, its cnf.jkt). A bound token sent as Bearer is refused in any case (section 7.2).
 */
export async function evaluateRequestToken(
  authorization: string | undefined,
  introspect: Introspect,
  nowMs: () => number,
  { audience = null, clockToleranceSeconds = 0 }: EvaluationRules = {},
  dpop: DpopCheck | null = null,
): Promise<TokenEvaluation> {
  const extracted = extractCredentials(authorization, dpop !== null);
  if (extracted.kind === 'none') return { token: null, problem: 'missing' };
  if (extracted.kind === 'malformed') return { token: null, problem: 'unknown' };
  if (extracted.kind === 'bearer' && dpop?.required) return { token: null, problem: 'dpop_required' };
  let proof: DpopProofResult | null = null;
  if (extracted.kind === 'dpop' && dpop) {
    proof = await dpop.verify(extracted.token);
    if (!proof.ok) return { token: null, problem: proof.problem, detail: proof.detail };
  }
  const evaluation = judgeToken(await introspect(extracted.token), nowMs() - clockToleranceSeconds * 1000);
  const problem = evaluation.token && audience ? audienceProblem(evaluation.token, audience) : null;
  if (problem) return { token: null, problem };
  if (evaluation.token === null) return evaluation;
  const boundTo = evaluation.token.dpopJkt ?? null;
  if (proof === null) return boundTo === null ? evaluation : { token: null, problem: 'dpop_bound' };
  if (boundTo === null) return { token: null, problem: 'dpop_unbound' };
  if (boundTo !== proof.jkt) return { token: null, problem: 'dpop_proof', detail: KEY_MISMATCH };
  return proof.nonce === 'previous' ? { ...evaluation, staleNonce: true } : evaluation;
}

/**
 * Whether a looked-up token may be used at this instant. The expiry is checked here too, whatever the source
 * said, so neither a cached answer nor a lenient introspect function can accept a token past its exp.
 */
export function judgeToken(token: GuardToken | null, nowMs: number): TokenEvaluation {
  if (token === null) return { token: null, problem: 'unknown' };
  if (!token.active) return { token: null, problem: token.reason ?? 'unknown' };
  if (token.expiresAt !== null && nowMs >= token.expiresAt * 1000) return { token: null, problem: 'expired' };
  return { token, problem: null };
}

/** Seed: a token satisfies one serviceAuthorize call when it holds any one of its scopes; none = any valid token. */
export function holdsAnyScope(token: GuardToken, required: readonly string[]): boolean {
  return required.length === 0 || required.some((scope) => token.scopes.includes(scope));
}

/**
 * The scopes given to serviceAuthorize, checked when the route is defined. Each must be one scope-token (RFC 6749
 * section 3.3); "read write" in one argument is refused because it would read as AND but mean nothing.
 */
export function requiredScopes(scopes: readonly string[]): readonly string[] {
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`serviceAuthorize: ${JSON.stringify(scope)} is not a scope; pass one scope per argument`);
    }
  }
  return Object.freeze([...new Set(scopes)]);
}
