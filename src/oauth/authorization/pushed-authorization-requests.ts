import type { OAuthDeps } from '../deps.js';
import { InvalidRequest, InvalidRequestUri } from '../errors.js';
import { sha256Hex } from '../secrets.js';
import type { LookupOrigin } from '../store.js';
import type { AuthorizationParameters } from './authorization-parameters.js';
import type { PushedRequestRecord } from './pushed-request-store.js';

// RFC 9126 section 4: /oauth/authorize with the request_uri that POST /oauth/par answered. The stored parameters
// are the request; of the query, only client_id counts, and must name the client that pushed it. A request_uri
// is single use: it is consumed when the authorization completes (a code or token issued, or denied), as
// node-oidc-provider does, not at the first GET, so that the sign-in coming back and a reload of the consent page
// still work. Its expires_in (pushedAuthorizationRequests.expiresIn) bounds the wait for that first GET; from
// then on the sign-in and the consent have INTERACTION_SECONDS.

export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** How long the sign-in and consent of a pushed request may take once /oauth/authorize has used its request_uri. */
export const INTERACTION_SECONDS = 600;

/**
 * The parameters a pushed request stores: those of /oauth/authorize, as validated at the PAR endpoint, and whether
 * they came as a signed request object (RFC 9101 section 10.5's require_signed_request_object is then met).
 */
export type PushedParameters = Pick<AuthorizationParameters, 'values' | 'resources' | 'signed'>;

export const isPushedRequestUri = (value: string | undefined): value is string =>
  value !== undefined && value.startsWith(REQUEST_URI_PREFIX);

/** The stored form of a request_uri: SHA-256 hex of its random part. */
export const requestUriReference = (requestUri: string) => sha256Hex(requestUri.slice(REQUEST_URI_PREFIX.length));

/**
 * The request a pushed request_uri stands for, opened (pushed-request-store.ts); the parameters as they are when
 * they carry no such request_uri; an error for the page when it names nothing this client may use.
 */
export async function resolvePushedRequest(
  deps: OAuthDeps,
  parameters: AuthorizationParameters,
  origin?: LookupOrigin,
): Promise<AuthorizationParameters | InvalidRequest | InvalidRequestUri> {
  const requestUri = parameters.values.request_uri;
  // Sent twice, it names no request at all: said so, rather than by the missing redirect_uri's page.
  if (parameters.malformed.includes('request_uri')) return new InvalidRequestUri('The parameter request_uri was sent more than once.');
  if (parameters.pushed !== undefined || !isPushedRequestUri(requestUri)) return parameters;
  const clientId = parameters.values.client_id;
  if (clientId === undefined || clientId === '') return InvalidRequest.missingParameter('client_id');
  const application = await deps.stores.applications.findByUid(clientId, origin);
  const reference = requestUriReference(requestUri);
  const now = deps.now();
  const openUntil = new Date(now.getTime() + INTERACTION_SECONDS * 1000);
  const record = application && (await deps.stores.pushedRequests.open(reference, application.id, now, openUntil));
  if (!record) return new InvalidRequestUri(await whyRefused(deps, reference, application?.id ?? null, now));
  const stored = JSON.parse(record.parameters) as PushedParameters;
  return {
    values: stored.values,
    resources: stored.resources,
    malformed: [],
    pushed: { requestUri },
    ...(stored.signed === true && { signed: true }),
  };
}

/**
 * RFC 9126 section 4: the authorization of a pushed request completes; false when another completion was first (the
 * request_uri was used already) or it expired meanwhile. Directly sent requests have nothing to consume.
 */
export async function consumePushedRequest(
  deps: OAuthDeps,
  applicationId: number,
  requestUri: string | null | undefined,
): Promise<boolean> {
  if (!requestUri) return true;
  return deps.stores.pushedRequests.consume(requestUriReference(requestUri), applicationId, deps.now());
}

export const REQUEST_URI_USED = 'The request_uri was used already: push the authorization request again.';

// Another client's request_uri reads as unknown: its owner's requests are nobody else's business.
async function whyRefused(deps: OAuthDeps, reference: string, applicationId: number | null, now: Date): Promise<string> {
  const record: PushedRequestRecord | null = await deps.stores.pushedRequests.find(reference);
  if (record === null || record.applicationId !== applicationId) return 'The request_uri is unknown, or was pushed by another client.';
  if (record.consumedAt !== null) return REQUEST_URI_USED;
  if (record.expiresAt <= now) return 'The request_uri has expired: push the authorization request again.';
  return 'The request_uri cannot be used.';
}
