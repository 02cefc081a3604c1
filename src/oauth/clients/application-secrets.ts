import type { OAuthDeps } from '../deps.js';
import { clientSecretMatches, generateSecret, storedForm } from '../secrets.js';
import type { ApplicationRecord } from '../store.js';
import { ApplicationInvalid, importedClientErrors, type CreatedApplication } from './applications.js';
import { usesClientSecret } from './client-authentication-setting.js';

// A confidential application's secret once it exists: a new one made (rotation), an imported one set, and the check of
// a plain one against the stored form. Shown once, stored as its hash when hashApplicationSecrets is on (SPEC 2, 3.6).

/** A new secret for a confidential client, returned once; the old one stops working at once. */
export function rotateApplicationSecret(deps: OAuthDeps, id: number): Promise<CreatedApplication | null> {
  return replaceSecret(deps, id, generateSecret());
}

/** Sets an imported secret (SPEC 2: 32 characters at least) on a confidential client; the old one stops working at once. */
export function setApplicationSecret(deps: OAuthDeps, id: number, plainSecret: string): Promise<CreatedApplication | null> {
  return replaceSecret(deps, id, plainSecret);
}

async function replaceSecret(deps: OAuthDeps, id: number, plainSecret: string): Promise<CreatedApplication | null> {
  const current = await deps.stores.applications.findById(id);
  if (!current) return null;
  if (!current.confidential) throw new ApplicationInvalid({ secret: ['A public client has no secret to rotate'] });
  if (!usesClientSecret(current)) {
    const method = current.tokenEndpointAuthMethod;
    throw new ApplicationInvalid({ secret: [`A ${method} client has no secret to rotate: it authenticates with its key`] });
  }
  const errors = importedClientErrors({ secret: plainSecret }, current);
  if (Object.keys(errors).length > 0) throw new ApplicationInvalid(errors);
  const application = await deps.stores.applicationAdmin.update(id, {
    secret: storedForm(plainSecret, deps.config.hashApplicationSecrets),
  });
  return application && { application, plainSecret };
}

/** Whether the client's stored secret is this plain one (compared in constant time, RFC 6749 section 10.3). */
export function applicationSecretIs(deps: OAuthDeps, application: ApplicationRecord, plainSecret: string): boolean {
  return application.secret !== null && clientSecretMatches(plainSecret, application.secret, deps.config.hashApplicationSecrets);
}
