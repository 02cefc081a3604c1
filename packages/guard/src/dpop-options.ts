/** Asymmetric JWS algorithms a DPoP proof may use (RFC 9449 section 4.2: never `none`, never a MAC). */
export type DpopAlgorithm = 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'Ed25519' | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512';

/**
 * DPoP (RFC 9449) at the API: `Authorization: DPoP <token>` with a `DPoP` proof header is accepted, checked and bound
 * to the token's `cnf.jkt`. Give `dpop: {}` for the defaults; without the option the guard reads Bearer tokens only
 * (and still refuses a DPoP-bound token sent as Bearer).
 */
export interface DpopOptions {
  /** Accepted proof `alg` values, asymmetric only. Default ES256, ES384, EdDSA, Ed25519, RS256, PS256 (the service's). */
  algorithms?: readonly DpopAlgorithm[];
  /**
   * Every route of this guard requires a DPoP-bound token: a Bearer token is refused with a DPoP challenge, and the
   * protected resource metadata says `dpop_bound_access_tokens_required: true`. Default false (Bearer tokens that
   * are not bound keep working next to DPoP ones).
   */
  required?: boolean;
  /** How old a proof may be (its `iat`), in seconds; also how long its `jti` is remembered. Default 300. */
  proofMaxAgeSeconds?: number;
  /** How far in the future a proof's `iat` may be, for clocks that disagree, in seconds. Default 5. */
  clockToleranceSeconds?: number;
  /**
   * The API's public base URL as clients call it, e.g. `https://api.example.com` or `https://example.com/api` when a
   * proxy strips `/api`: the expected `htu` is this followed by the request's path. Default: the request's own
   * protocol and host (`request.protocol`, `request.host`), which reflect X-Forwarded-Proto/-Host only with Fastify's
   * `trustProxy`.
   */
  publicUrl?: string;
  /** Server-provided nonces (RFC 9449 section 9). */
  nonce?: DpopNonceOptions;
  /** Most proof `jti`s remembered for replay detection (per process). Default 200 000. */
  replayCacheMaxEntries?: number;
  /**
   * Whether refusals of Bearer requests (and of requests without a token) also announce the DPoP scheme with its
   * challenge, as RFC 9449 section 7.1 shows. Default true; false keeps those challenges exactly Bearer's, for an API
   * whose clients match them byte for byte (refusals of DPoP requests always carry the DPoP challenge).
   */
  announce?: boolean;
}

export interface DpopNonceOptions {
  /** Proofs without a current nonce are refused with `use_dpop_nonce` and a `DPoP-Nonce` header. */
  required: boolean;
  /**
   * HMAC key of the stateless nonces, at least 32 bytes (a string is taken as UTF-8). API instances sharing it accept
   * each other's nonces. Default: random per process (each instance then accepts only its own).
   */
  secret?: string | Uint8Array;
  /** A new nonce every this many seconds; the previous one stays accepted for one more period. Default 300. */
  rotateSeconds?: number;
}
