import type { ClientCredentials } from '../clients/client-credentials.js';
import type { OAuthDeps } from '../deps.js';
import type { CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import type { Parameters } from '../request-parameters.js';
import type { ApplicationRecord } from '../store.js';
import type { IssuedToken } from '../tokens/token-issuer.js';

/** What every grant handler receives: the form parameters and the client credentials the request carried. */
export interface GrantRequest {
  parameters: Parameters;
  credentials: ClientCredentials | null;
  /** The requester's address as the failure limits count it (limitedAddress). */
  address: string;
  /**
   * RFC 9449: the request's DPoP proof, checked but not yet recorded against replay; admitClient records it
   * once the client is known and hands out its key's thumbprint. Null (or absent) without a proof.
   */
  dpopProof?: CheckedDpopProof | null;
}

export interface GrantResult {
  issued: IssuedToken;
  application: ApplicationRecord | null;
  /**
   * OpenID Connect Core 3.1.3.3 and 12.2: the ID token of a code exchange or a refresh, signed before the grant wrote
   * anything (mintWithIdToken); null or absent when none is due.
   */
  idToken?: string | null;
  /** RFC 8693 section 2.2.1: a token exchange says what it issued (issued_token_type). */
  issuedTokenType?: string;
}

/**
 * RFC 8693 section 2.2.1: a token exchange that issued no access token of this server (an ID-JAG for another
 * server): the response body as it is, nothing stored to describe.
 */
export interface IssuedAssertion {
  application: ApplicationRecord;
  body: { access_token: string; issued_token_type: string; token_type: 'N_A'; expires_in: number; scope?: string; created_at: number };
}

/** One grant type of RFC 6749 section 4/6: validate in order, then issue. Throws OAuthError subclasses. */
export type GrantHandler = (deps: OAuthDeps, request: GrantRequest) => Promise<GrantResult | IssuedAssertion>;
