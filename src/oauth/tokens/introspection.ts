import { signInClaims } from '../authentication-context.js';
import { authenticateClient, requireClient } from '../clients/client-authentication.js';
import { extractClientCredentials } from '../clients/client-credentials.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidClient, InvalidRequest, InvalidToken } from '../errors.js';
import { mayIntrospect, type IntrospectionRequester, type IntrospectionRule } from './introspection-policy.js';
import { introspectionExtraFields, standardSubject } from './introspection-response.js';
import { signedByRetiredKey } from './jwt-access-token.js';
import { optionalParameter, requireParameter, type Parameters } from '../request-parameters.js';
import { formatScopes } from '../scopes.js';
import type { AccessTokenRecord, ApplicationRecord } from '../store.js';
import { findAccessToken, findAccessTokens, findTokenByValue, type AccessLookup, type FoundToken } from './token-lookup.js';
import { inaccessibleReason, isAccessible, isRefreshUsable, presentationProblem } from './token-state.js';

export type IntrospectionResponse = { active: false } | ({ active: true } & Record<string, unknown>);

/** The answer, and who was authenticated as asking for it (RFC 9701 addresses the signed answer to it). */
export interface Introspection {
  response: IntrospectionResponse;
  requester: IntrospectionRequester;
}

export interface IntrospectionRequest {
  parameters: Parameters;
  authorization: string | undefined;
  /** The requester's address as the failure limits count it (limitedAddress). */
  address: string;
  /** The request's id, for the log line of a failed client authentication. */
  requestId?: string;
}

const INACTIVE = { active: false } as const;

/**
 * RFC 7662 as the seed describes it (SPEC 3.3). The requester is a client by HTTP Basic or a bearer token, or
 * (issue 34) a client assertion, nothing else; an inactive answer is exactly {"active": false}, so nothing leaks (RFC 7662 section 2.2).
 */
export async function introspect(deps: OAuthDeps, rules: IntrospectionRule[], request: IntrospectionRequest): Promise<Introspection> {
  const { parameters, authorization } = request;
  refuseBodyCredentials(parameters, authorization);
  const hint = optionalParameter(parameters, 'token_type_hint');
  const bearer = bearerValue(authorization);
  const accessLookup = await prefetchBearerPair(deps, bearer, parameters.token, hint);
  const requester = await authenticateRequester(deps, request, bearer, accessLookup);
  const value = requireParameter(parameters, 'token');
  const found = await findTokenByValue(deps, deps.stores.tokenReads, value, hint, accessLookup);
  const token = found?.record ?? null;
  // The audience rule is about access tokens: a refresh token is meant for this server alone (RFC 6749 section 1.5).
  const accessWithAudience = found?.kind === 'access_token' && token !== null && token.audience.length > 0;
  if (requester.client && accessWithAudience && rules.some((rule) => rule.name === 'audience')) {
    requester.servedResources = (await deps.stores.resources.servedBy(requester.client.uid)).map((resource) => resource.uri);
  }
  if (requester.bearer) {
    if (token?.id === requester.bearer.id) throw new InvalidToken();
    // Seed, Errors: a Bearer requester the policy rejects gets 401; the token argument is null when unknown.
    if (!(await mayIntrospect(deps.hooks, rules, token, requester))) throw new InvalidToken();
  } else if (!token || !(await mayIntrospect(deps.hooks, rules, token, requester))) {
    return { response: INACTIVE, requester };
  }
  if (!found || !isActive(deps, found)) return { response: INACTIVE, requester };
  // A JWT access token signed by a key retired since is no longer active (issue 29 item 12); opaque ones skip this.
  const retired = found.kind === 'access_token' && signedByRetiredKey(deps, value);
  if (retired !== false && (await retired)) return { response: INACTIVE, requester };
  // The token's application is read for client_id anyway (the application cache): a disabled one's tokens are
  // inactive (issue 19), without a query of their own.
  const application = found.record.applicationId === null ? null : await deps.stores.applications.findById(found.record.applicationId);
  if (application?.disabledAt) return { response: INACTIVE, requester };
  const standard = standardFields(deps, found, application);
  const subject = standardSubject(deps, found.record, application);
  if (subject !== null) {
    const sub = await subject;
    if (sub !== null) standard.sub = sub;
  }
  const extra = await introspectionExtraFields(deps, found.record, application, requester);
  const response = Object.keys(extra).length === 0 ? standard : { ...standard, ...extra };
  // Last, so no extra field changes it.
  response.active = true;
  return { response: response as IntrospectionResponse, requester };
}

/**
 * Seed, Authentication 1: credentials in the body are not one of the two kinds (SPEC 3.3), so alone they are
 * invalid_client, but for a client assertion (issue 34, RFC 7523 section 2.2), which is sent in the body. Next to an Authorization header they are a second mechanism, which RFC 6749 section 2.3
 * forbids: invalid_request, as at the token endpoint (a Basic client and the same client_id is one client).
 */
function refuseBodyCredentials(parameters: Parameters, authorization: string | undefined): void {
  const assertion = sentAssertion(parameters);
  if (!assertion && parameters.client_id === undefined && parameters.client_secret === undefined) return;
  const scheme = schemeOf(authorization);
  if (scheme === 'bearer') throw InvalidRequest.multipleClientAuthMethods();
  // Issue 34: a client assertion is a third kind; client_id may name its client beside it, a secret may not.
  if (assertion && scheme === undefined) return void extractClientCredentials({ body: parameters, address: '' });
  if (scheme !== 'basic') throw new InvalidClient();
  extractClientCredentials({ authorization, body: parameters, address: '' });
}

const sentAssertion = (parameters: Parameters) =>
  parameters.client_assertion !== undefined || parameters.client_assertion_type !== undefined;

const schemeOf = (authorization: string | undefined) => authorization?.trim().split(/\s+/, 1)[0]?.toLowerCase();

/** The credential of `Authorization: Bearer <value>`; null for another scheme, '' for an empty one. */
const bearerValue = (authorization: string | undefined) =>
  schemeOf(authorization) === 'bearer' ? authorization!.trim().slice(6).trim() : null;

/**
 * A Bearer request names two access tokens, the requester's and (unless hinted as a refresh token) the
 * introspected one: both are read in one query. Every check still runs in its own order on the result.
 */
async function prefetchBearerPair(
  deps: OAuthDeps,
  bearer: string | null,
  token: string | undefined,
  hint: string | undefined,
): Promise<AccessLookup | undefined> {
  if (!bearer || !token || hint === 'refresh_token') return undefined;
  return findAccessTokens(deps, [bearer, token]);
}

async function authenticateRequester(
  deps: OAuthDeps,
  { authorization, address, parameters, requestId }: IntrospectionRequest,
  bearerCredential: string | null,
  accessLookup: AccessLookup | undefined,
): Promise<IntrospectionRequester> {
  if (bearerCredential !== null) {
    const bearer = bearerCredential === '' ? null : await findAccessToken(deps, bearerCredential, accessLookup);
    // RFC 9449 section 7.2: a DPoP-bound token is no bearer credential, here as at token info and UserInfo (issue 29
    // item 2: else a stolen bound token would introspect every token of its client).
    const reason = inaccessibleReason(bearer, deps.now()) ?? presentationProblem(bearer!, null);
    if (reason !== null) throw new InvalidToken(reason);
    const retired = signedByRetiredKey(deps, bearerCredential);
    if (retired !== false && (await retired)) throw new InvalidToken('revoked');
    // A disabled application's token is no credential (issue 19); the application cache answers this lookup,
    // which the answer's client_id (the sameApplication rule's usual case) makes anyway.
    if (bearer?.applicationId != null && (await deps.stores.applications.findById(bearer.applicationId))?.disabledAt) {
      throw new InvalidToken();
    }
    return { client: null, bearer };
  }
  if (sentAssertion(parameters) && schemeOf(authorization) === undefined) {
    const credentials = extractClientCredentials({ body: parameters, address, endpoint: '/oauth/introspect', requestId });
    return { client: await requireClient(deps, credentials), bearer: null };
  }
  const credentials =
    schemeOf(authorization) === 'basic' ? extractClientCredentials({ authorization, body: {}, address, requestId }) : null;
  // RFC 7662 section 2.1 and RFC 6749 section 5.2: no credentials at all is invalid_client too (SPEC 8).
  if (!credentials) throw new InvalidClient();
  // Seed: "HTTP Basic with client id and client secret". A public client's id alone is not client
  // authentication here; it introspects with a Bearer token (SPEC 3.3, SPEC 8).
  if (credentials.secret === null) throw new InvalidClient({ triedBasic: true });
  return { client: await authenticateClient(deps, credentials), bearer: null };
}

function isActive(deps: OAuthDeps, { record, kind }: FoundToken): boolean {
  const now = deps.now();
  // SPEC 3.3: a refresh token is active while it can still be used.
  return kind === 'refresh_token' ? isRefreshUsable(record, deps.config.refreshTokens.expiresIn, now) : isAccessible(record, now);
}

/**
 * The answer's own fields, in their order. Assigned one by one, not spread in: an object spread followed by more
 * properties costs V8 microseconds per answer (bench/RESULTS.md, issue 21).
 */
function standardFields(deps: OAuthDeps, { record, kind }: FoundToken, application: ApplicationRecord | null): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const scope = formatScopes(record.scopes);
  if (scope !== '') fields.scope = scope;
  if (application) fields.client_id = application.uid;
  // Seed: token_type is present whenever the token is active, "Bearer" for access tokens. A refresh token is
  // not a bearer credential (RFC 6749 section 1.5): saying so lets a resource server refuse one presented as
  // an access token (the guard does).
  fields.token_type = kind === 'refresh_token' ? 'refresh_token' : record.dpopJkt === null ? 'Bearer' : 'DPoP';
  fields.iat = Math.floor(record.createdAt.getTime() / 1000);
  const exp = expiry(record, kind === 'refresh_token' ? deps.config.refreshTokens.expiresIn : record.expiresIn);
  if (exp !== null) fields.exp = exp;
  // RFC 7662 section 2.2 and RFC 8707: the resources the token is for; a string when there is one.
  if (record.audience.length > 0) fields.aud = record.audience.length === 1 ? record.audience[0] : [...record.audience];
  // RFC 9449 section 6.2 and RFC 7800: the key a bound access token must be presented with.
  if (kind === 'access_token' && record.dpopJkt !== null) fields.cnf = { jkt: record.dpopJkt };
  // RFC 8693 section 4.1 (and 2.2.1's introspection note): who acts for the subject, as the JWT access token says.
  if (record.act !== null) fields.act = record.act;
  // RFC 9396 section 9.2: what the token authorizes in detail, as the JWT access token's claim says.
  if (record.authorizationDetails.length > 0) fields.authorization_details = record.authorizationDetails;
  // RFC 9470 section 6.1: the sign-in the token descends from (acr, auth_time; amr as RFC 9068 has it), so that an API
  // can ask for a stronger or newer one. A token without a user (client_credentials) skips this.
  if (record.authTime !== null) Object.assign(fields, signInClaims(record, deps.config.authentication.acr));
  return fields;
}

function expiry(record: AccessTokenRecord, lifetime: number | null): number | null {
  return lifetime === null ? null : Math.floor(record.createdAt.getTime() / 1000) + lifetime;
}
