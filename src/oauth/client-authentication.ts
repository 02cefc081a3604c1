import type { ClientCredentials } from './client-credentials.js';
import type { OAuthDeps } from './deps.js';
import { InvalidClient } from './errors.js';
import { constantTimeEqual, storedForm } from './secrets.js';
import type { ApplicationRecord } from './store.js';

/**
 * RFC 6749 section 2.3: the application these credentials authenticate, or InvalidClient. A public client
 * identifies itself by client_id alone; if it sends a secret anyway, that secret must be right (reference 2.5).
 * Secrets carry 256 bits, so a SHA-256 compared in constant time is the right check (SPEC 4).
 */
export async function authenticateClient(deps: OAuthDeps, credentials: ClientCredentials): Promise<ApplicationRecord> {
  const triedBasic = credentials.method === 'client_secret_basic';
  const application = await deps.stores.applications.findByUid(credentials.clientId);
  if (!application) throw new InvalidClient({ triedBasic });
  if (credentials.secret === null) {
    if (application.confidential) throw new InvalidClient({ triedBasic });
    return application;
  }
  const presented = storedForm(credentials.secret, deps.config.hashApplicationSecrets);
  if (application.secret === null || !constantTimeEqual(presented, application.secret)) throw new InvalidClient({ triedBasic });
  return application;
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
