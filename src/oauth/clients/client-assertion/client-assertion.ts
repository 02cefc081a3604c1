import { decodeJwt } from 'jose';
import { InvalidClient } from '../../errors.js';
import { JWT_BEARER_ASSERTION_TYPE } from './assertion-methods.js';

// RFC 7521 section 4.2 and RFC 7523 section 2.2: a client authenticates with a signed JWT in client_assertion, of
// client_assertion_type jwt-bearer. Here the request's parameters become credentials, before any lookup: the client
// is the assertion's `sub` (client_id may be sent too, and must then be the same). The signature and every claim
// are client-assertion-verification.ts's business.

// Bounds the work a stranger's request costs before any lookup (a real assertion is well under 2 KB).
const MAX_ASSERTION_LENGTH = 16_384;

export interface AssertionParameters {
  assertion: string | null;
  assertionType: string | null;
  clientId: string | null;
  address: string;
  endpoint: string | undefined;
  requestId: string | undefined;
}

/**
 * The credentials an assertion claims. RFC 7521 section 4.2.1: whatever is wrong with it is invalid_client, the
 * type included (this server understands only jwt-bearer).
 */
export function assertionCredentials({ assertion, assertionType, clientId, address, endpoint, requestId }: AssertionParameters) {
  if (assertionType !== JWT_BEARER_ASSERTION_TYPE || assertion === null || assertion.length > MAX_ASSERTION_LENGTH)
    throw new InvalidClient();
  const subject = claimedSubject(assertion);
  if (subject === null || subject === '' || subject.includes('\u0000') || (clientId !== null && clientId !== subject))
    throw new InvalidClient();
  return {
    method: 'client_assertion' as const,
    clientId: subject,
    secret: null,
    address,
    assertion,
    endpoint: endpoint ?? '/oauth/token',
    requestId,
  };
}

function claimedSubject(assertion: string): string | null {
  try {
    const { sub } = decodeJwt(assertion);
    return typeof sub === 'string' ? sub : null;
  } catch {
    return null;
  }
}
