import type { ClientCredentials } from './client-credentials.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidClient, TooManyRequests } from '../errors.js';
import { clientSecretMatches } from '../secrets.js';
import type { ApplicationRecord } from '../store.js';
import { expiredUnused } from './registration/unused-clients.js';
import { isAssertionMethod } from './client-assertion/assertion-methods.js';
import { rememberAssertion, verifyAssertion } from './client-assertion/client-assertion-verification.js';

/**
 * RFC 6749 section 2.3: the application these credentials authenticate, or InvalidClient. A public client
 * identifies itself by client_id alone; if it sends a secret anyway, that secret must be right (reference 2.5).
 * Secrets carry 256 bits, so a SHA-256 compared in constant time is the right check (SPEC 4). A disabled
 * application (issue 19: an admin disabled a self-registered client) fails like a wrong secret, after the same
 * comparison, so the answer and its timing tell nobody that it exists but is disabled; its right credentials are not
 * counted as a failure (no guess), else the client's own requests would lock it out for `lockoutSeconds` after an
 * admin enables it again.
 */
export async function authenticateClient(deps: OAuthDeps, credentials: ClientCredentials): Promise<ApplicationRecord> {
  const { clientId, address } = credentials;
  const limits = deps.limits.clients;
  // The credentials carry the requester's address: they are the lookup's origin, with no object made per request.
  const application = await deps.stores.applications.findByUid(clientId, credentials);
  // From here on nothing awaits: the lockout check, the comparison and the count of a failure are one step, so
  // guesses sent at once cannot pass a lockout that the earlier ones reached (SPEC 5 rateLimit).
  const now = deps.now();
  // Issue 29 item 5: a self-registered client that expired unused is no client any more.
  if (!application || expiredUnused(application, deps.config.registration.unusedClientLifetimeSeconds, now)) {
    refuseWhileLockedOut(limits.retryAfterForUnknownClient(address, now));
    limits.unknownClientFailed(address, now, credentials.requestId);
    throw new InvalidClient({ triedBasic: credentials.method === 'client_secret_basic' });
  }
  refuseWhileLockedOut(limits.retryAfterForClient(clientId, address, now));
  if (credentials.method === 'client_assertion') return authenticateAssertion(deps, application, credentials);
  // A client registered for a JWT method (issue 34) proves itself that way only: no falling back to its secret.
  const secretAllowed = !isAssertionMethod(application.tokenEndpointAuthMethod);
  if (secretAllowed && secretMatches(deps, application, credentials.secret)) {
    if (application.disabledAt === null) return withinRequestBudget(deps, application);
    throw new InvalidClient({ triedBasic: credentials.method === 'client_secret_basic' });
  }
  limits.failed(clientId, address, now, credentials.requestId);
  refuseAsUnknownWhileLockedOut(deps, address);
  throw new InvalidClient({ triedBasic: credentials.method === 'client_secret_basic' });
}

/**
 * RFC 7523 section 2.2 (issue 34): the application's registered method says which JWT method it uses; a failed
 * assertion counts against the same client and address as a wrong secret. The lockout was checked before the
 * signature, and is counted after it: the verification awaits (a jwks_uri fetch), so assertions sent at once are
 * each judged before the first failure counts. That costs work (a signature check each; the key set is cached), not
 * secrecy: a signature cannot be guessed as a short secret might. The jti is recorded only for an assertion that
 * verified, so nobody can spend another client's jti.
 */
async function authenticateAssertion(
  deps: OAuthDeps,
  application: ApplicationRecord,
  credentials: ClientCredentials,
): Promise<ApplicationRecord> {
  const method = application.tokenEndpointAuthMethod;
  const verdict = isAssertionMethod(method)
    ? await verifyAssertion(deps, application, method, credentials.assertion!, credentials.endpoint ?? '/oauth/token')
    : { payload: null };
  let description = 'description' in verdict ? verdict.description : undefined;
  if (verdict.payload !== null && application.disabledAt !== null) throw new InvalidClient();
  if (verdict.payload !== null) {
    if (await rememberAssertion(deps, application, verdict.payload)) return withinRequestBudget(deps, application);
    description = 'The client assertion was used already (jti).';
  }
  deps.limits.clients.failed(credentials.clientId, credentials.address, deps.now(), credentials.requestId);
  refuseAsUnknownWhileLockedOut(deps, credentials.address);
  throw new InvalidClient(description ? { description } : {});
}

function secretMatches(deps: OAuthDeps, application: ApplicationRecord, secret: string | null): boolean {
  if (secret === null) return !application.confidential;
  if (application.secret === null) return false;
  return clientSecretMatches(secret, application.secret, deps.config.hashApplicationSecrets);
}

/** rateLimit.perClientPerMinute, counted once the client is known (limits/client-request-budget.ts). */
function withinRequestBudget(deps: OAuthDeps, application: ApplicationRecord): ApplicationRecord {
  const retryAfter = deps.limits.clientRequests?.take(application.uid, deps.now()) ?? 0;
  if (retryAfter > 0) throw new TooManyRequests(retryAfter, 'Request limit reached.');
  return application;
}

function refuseWhileLockedOut(retryAfter: number): void {
  if (retryAfter > 0) throw new TooManyRequests(retryAfter, 'Too many failed client authentications.');
}

/**
 * While the address is locked out for naming unknown client ids, a known client's failure is answered as an unknown
 * one's is (429), not 401: else the lockout would tell, one request per guess, which client ids exist.
 */
function refuseAsUnknownWhileLockedOut(deps: OAuthDeps, address: string): void {
  refuseWhileLockedOut(deps.limits.clients.retryAfterForUnknownClient(address, deps.now()));
}

/** Authenticates when credentials were sent; null when none were. */
export async function authenticateOptionalClient(
  deps: OAuthDeps,
  credentials: ClientCredentials | null,
): Promise<ApplicationRecord | null> {
  return credentials ? authenticateClient(deps, credentials) : null;
}

/** Authenticates and insists that credentials were sent (RFC 6749 section 3.2.1). */
export async function requireClient(deps: OAuthDeps, credentials: ClientCredentials | null): Promise<ApplicationRecord> {
  if (!credentials) throw new InvalidClient();
  return authenticateClient(deps, credentials);
}
