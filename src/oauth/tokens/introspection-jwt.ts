import type { OAuthDeps } from '../deps.js';
import type { IntrospectionResponse } from './introspection.js';
import type { IntrospectionRequester } from './introspection-policy.js';

// RFC 9701: the introspection answer as a signed JWT, for a resource server that asks for one by name. Signed
// with the shared OpenID Connect keys; never encrypted (RFC 9701 section 5 makes encryption optional, and no
// JWE is implemented). RS256 always: RFC 9701 section 6's client metadata introspection_signed_response_alg,
// which would let a resource server choose, is not stored (no column), so the metadata advertises RS256 only.

/** RFC 9701 section 4: what a resource server sends in Accept, and the Content-Type of the signed answer. */
export const INTROSPECTION_JWT_MEDIA_TYPE = 'application/token-introspection+jwt';

/** RFC 9701 section 5: the `typ` header, the media type without its "application/" (RFC 7515 section 4.1.9). */
const INTROSPECTION_JWT_TYP = 'token-introspection+jwt';

/**
 * RFC 9701 section 4: whether the Accept header asks for the JWT. JSON stays the default, so the JWT type must
 * be named (with q above 0); `*\/*` and `application/*` do not ask for it. Named, it wins unless a range that
 * covers application/json has a strictly higher q (RFC 9110 section 12.5.1: the most specific range decides
 * each type's q); on a tie the resource server gets the JWT it named.
 */
export function acceptsIntrospectionJwt(accept: string | string[] | undefined): boolean {
  if (accept === undefined) return false;
  const ranges = (Array.isArray(accept) ? accept.join(',') : accept).split(',').map(mediaRange);
  const jwt = qualityOf(ranges, [INTROSPECTION_JWT_MEDIA_TYPE]);
  const json = qualityOf(ranges, ['application/json', 'application/*', '*/*']);
  return jwt > 0 && jwt >= json;
}

/**
 * RFC 9701 section 5: `response`, exactly the RFC 7662 JSON answer (active or inactive), as the
 * `token_introspection` claim of a JWT from the issuer to the requester (`aud`, its client_id). Null when there
 * is no client to address: a Bearer requester whose token has no application gets the JSON answer, whose
 * Content-Type says it is unsigned, rather than a JWT whose `aud` names no resource server (or the issuer
 * itself, which a resource server checking `aud` against its client_id would refuse anyway).
 * `requester` is the one introspect() authenticated.
 */
export async function signedIntrospection(
  deps: OAuthDeps,
  requester: IntrospectionRequester,
  response: IntrospectionResponse,
): Promise<string | null> {
  const audience = await requesterClientId(deps, requester);
  if (audience === null) return null;
  const payload = {
    iss: deps.config.baseUrl.replace(/\/+$/, ''),
    aud: audience,
    iat: Math.floor(deps.now().getTime() / 1000),
    // Nothing else at the top level (no sub, no exp, no scope): the JWT must not pass for an access token.
    token_introspection: (await intendedFor(deps, audience, requester, response)) ? response : INACTIVE,
  };
  return deps.signer.sign(payload, { alg: 'RS256', typ: INTROSPECTION_JWT_TYP });
}

const INACTIVE = { active: false } as const;

/**
 * RFC 9701 section 5: a token "not intended for the calling resource server (e.g., because the token was issued to a
 * different audience)" is answered `active: false` and nothing else. A token issued for resources (RFC 8707: it has an
 * aud) is intended for the servers of those resources only; one without is for every API that trusts this server, as
 * the introspection policy decided. The JSON answer keeps the policy's answer (the seed's rules).
 */
async function intendedFor(
  deps: OAuthDeps,
  clientId: string,
  requester: IntrospectionRequester,
  response: IntrospectionResponse,
): Promise<boolean> {
  if (!response.active) return true;
  const aud: unknown = (response as Record<string, unknown>).aud;
  if (aud === undefined) return true;
  const uris = Array.isArray(aud) ? aud : [aud];
  // Read by introspect() already where the audience rule could decide (its servedResources): not queried twice.
  const served = requester.servedResources ?? (await deps.stores.resources.servedBy(clientId)).map((resource) => resource.uri);
  return served.some((uri) => uris.includes(uri));
}

/** The client_id of the authenticated requester: the Basic client, or the client of the Bearer token. */
async function requesterClientId(deps: OAuthDeps, { client, bearer }: IntrospectionRequester): Promise<string | null> {
  if (client) return client.uid;
  const applicationId = bearer?.applicationId ?? null;
  if (applicationId === null) return null;
  // The application cache answers this on the hot path (no query once the client has been seen).
  return (await deps.stores.applications.findById(applicationId))?.uid ?? null;
}

interface MediaRange {
  type: string;
  q: number;
}

function mediaRange(text: string): MediaRange {
  const [type = '', ...parameters] = text.split(';').map((part) => part.trim());
  let q = 1;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=', 2).map((part) => part.trim());
    if (name?.toLowerCase() !== 'q') continue;
    // RFC 9110 section 12.4.2: a weight is 0 to 1 with at most three decimals; a malformed one excludes the range.
    q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : -1;
  }
  return { type: type.toLowerCase(), q };
}

/** The q of the first of `candidates` (most specific first) that a range names; 0 when none does. */
function qualityOf(ranges: MediaRange[], candidates: string[]): number {
  for (const candidate of candidates) {
    const named = ranges.filter((range) => range.type === candidate && range.q >= 0);
    if (named.length > 0) return Math.max(...named.map((range) => range.q));
  }
  return 0;
}
