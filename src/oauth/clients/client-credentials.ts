import { Buffer } from 'node:buffer';
import { InvalidClient, InvalidRequest } from '../errors.js';
import { assertionCredentials } from './client-assertion/client-assertion.js';

// Which client credentials a request carries (SPEC 3.1, RFC 6749 section 2.3), before any lookup. Whether they
// are correct, and whether a public client may go without a secret, is client authentication's business.

export type ClientCredentials = {
  /** client_assertion: RFC 7523 section 2.2, private_key_jwt or client_secret_jwt (the application's method decides). */
  method: 'client_secret_basic' | 'client_secret_post' | 'none' | 'client_assertion';
  clientId: string;
  secret: string | null;
  /** Where the attempt came from (limitedAddress of the request's IP): failures are limited per client and address. */
  address: string;
  /** The signed JWT of method client_assertion (its secret is null). */
  assertion?: string;
  /** The path of the endpoint called, which an assertion's `aud` may name (client-assertion-verification.ts). */
  endpoint?: string;
  /** The request's id, which the log line of a failed authentication names (its request line has the same). */
  requestId?: string;
};

export type CredentialSources = {
  authorization?: string | undefined;
  body: Record<string, unknown>;
  address: string;
  /** The path of the endpoint called; the token endpoint's when left out. */
  endpoint?: string;
  requestId?: string;
};

// RFC 7617 section 2 / RFC 4648 section 4: standard alphabet; padding is tolerated when absent.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function badBasic(): InvalidClient {
  return new InvalidClient({ triedBasic: true });
}

function decodeBase64(text: string): string {
  const unpadded = text.replace(/=+$/, '');
  if (!BASE64.test(text) || unpadded.length % 4 === 1) throw badBasic();
  if (text.length !== unpadded.length && text.length % 4 !== 0) throw badBasic();
  try {
    return strictUtf8.decode(Buffer.from(unpadded, 'base64'));
  } catch {
    throw badBasic();
  }
}

// RFC 6749 section 2.3.1 and appendix B: id and secret are application/x-www-form-urlencoded before Basic
// encoding, so "+" is a space and %XX an octet of UTF-8.
function formUrlDecode(text: string): string {
  // Most ids and secrets (ours are base64url) hold neither: nothing to decode, and nothing malformed.
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw badBasic();
  }
}

function fromBasic(authorization: string | undefined): { clientId: string; secret: string | null } | null {
  if (typeof authorization !== 'string') return null;
  const [scheme = '', ...rest] = authorization.trim().split(/[ \t]+/);
  // RFC 7235 section 2.1: the scheme is case-insensitive. Other schemes (Bearer) are not client credentials.
  if (scheme.toLowerCase() !== 'basic') return null;
  if (rest.length !== 1 || rest[0] === undefined) throw badBasic();
  const decoded = decodeBase64(rest[0]);
  const colon = decoded.indexOf(':');
  if (colon < 0) throw badBasic();
  const clientId = formUrlDecode(decoded.slice(0, colon));
  const secret = formUrlDecode(decoded.slice(colon + 1));
  // RFC 6749 appendix A: a client_id is VSCHAR, so no NUL (which PostgreSQL text cannot hold either).
  if (clientId === '' || clientId.includes('\u0000')) throw badBasic();
  // An empty password is a public client identifying itself through Basic (reference 2.5).
  return { clientId, secret: secret === '' ? null : secret };
}

// A repeated parameter arrives as an array, a nested one as an object: both are invalid_request (SPEC 3).
function bodyString(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw new InvalidRequest();
  return value;
}

export function extractClientCredentials(input: CredentialSources): ClientCredentials | null {
  const body: Record<string, unknown> = typeof input.body === 'object' && input.body !== null ? input.body : {};
  const bodyClientId = bodyString(body, 'client_id');
  const bodySecret = bodyString(body, 'client_secret');
  const basic = fromBasic(input.authorization);
  const assertion = bodyString(body, 'client_assertion');
  const assertionType = bodyString(body, 'client_assertion_type');

  if (assertion !== null || assertionType !== null) {
    // RFC 6749 section 2.3: one method per request; an assertion beside a secret (Basic or body) is two.
    if (basic !== null || bodySecret !== null) throw InvalidRequest.multipleClientAuthMethods();
    const from = { address: input.address, endpoint: input.endpoint, requestId: input.requestId };
    return assertionCredentials({ assertion, assertionType, clientId: bodyClientId, ...from });
  }

  if (basic !== null) {
    // RFC 6749 section 2.3: the client MUST NOT use more than one authentication method in each request. A body
    // secret next to a Basic header is a second method even when the Basic password is empty.
    if (bodySecret !== null) throw InvalidRequest.multipleClientAuthMethods();
    // SPEC 8: two different client identities in one request are refused, not resolved in Basic's favour.
    if (bodyClientId !== null && bodyClientId !== basic.clientId) throw InvalidRequest.twoClients();
    return {
      method: 'client_secret_basic',
      clientId: basic.clientId,
      secret: basic.secret,
      address: input.address,
      requestId: input.requestId,
    };
  }
  if (bodyClientId === null) return null; // A lone client_secret identifies no one (reference 2.5).
  const { address, requestId } = input;
  if (bodySecret !== null) return { method: 'client_secret_post', clientId: bodyClientId, secret: bodySecret, address, requestId };
  return { method: 'none', clientId: bodyClientId, secret: null, address, requestId };
}
