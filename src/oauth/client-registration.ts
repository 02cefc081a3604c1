import { ApplicationInvalid, createApplication, deleteApplication, updateApplication, type ApplicationFields } from './applications.js';
import { InvalidClientMetadata, InvalidRegistrationRedirectUri } from './client-registration-errors.js';
import { validateClientMetadata, type ClientMetadata } from './client-registration-metadata.js';
import type { OAuthDeps } from './deps.js';
import { InvalidRequest, InvalidToken } from './errors.js';
import { constantTimeEqual, generateSecret, sha256Hex } from './secrets.js';
import type { ApplicationRecord } from './store.js';

// Dynamic client registration (RFC 7591) and its management protocol (RFC 7592), issue 19. Applications are
// created through the admin's domain (applications.ts), so every rule of an admin-made application holds here too.

const DEFAULT_CLIENT_NAME = 'Dynamically registered client';

export type RegistrationResponse = Record<string, unknown>;

const clientUri = (deps: OAuthDeps, clientId: string) =>
  `${deps.config.baseUrl.replace(/\/+$/, '')}/oauth/register/${encodeURIComponent(clientId)}`;

function fieldsOf(metadata: ClientMetadata): ApplicationFields {
  return {
    name: metadata.client_name ?? DEFAULT_CLIENT_NAME,
    redirectUri: metadata.redirect_uris.join('\n'),
    scopes: metadata.scope ?? '',
    confidential: metadata.token_endpoint_auth_method !== 'none',
  };
}

/** An admin-domain refusal in RFC 7591 terms: redirect URI problems are invalid_redirect_uri, the rest metadata. */
function registrationError(error: unknown): unknown {
  if (!(error instanceof ApplicationInvalid)) return error;
  const { redirect_uri: redirectProblems, ...others } = error.fieldErrors;
  if (redirectProblems?.length) return new InvalidRegistrationRedirectUri(redirectProblems.join(' '));
  return new InvalidClientMetadata(Object.values(others).flat().join(' '));
}

/** The metadata as stored (RFC 7592 section 3): grant types and the exact secret method are not stored yet. */
function storedMetadata(application: ApplicationRecord) {
  return {
    client_name: application.name,
    redirect_uris: application.redirectUris,
    token_endpoint_auth_method: application.confidential ? 'client_secret_basic' : 'none',
    ...(application.scopes.length > 0 && { scope: application.scopes.join(' ') }),
  };
}

/** RFC 7591 section 3.1 / 3.2.1: registers a client and answers with its credentials and metadata. */
export async function registerClient(deps: OAuthDeps, body: Record<string, unknown>): Promise<RegistrationResponse> {
  const metadata = validateClientMetadata(body, deps.config);
  const dynamic = (await deps.stores.applicationAdmin.list()).filter((app) => app.registeredBy === 'dynamic');
  if (dynamic.length >= deps.config.registration.maxOpenRegistrations) throw new InvalidClientMetadata('Open registration is full');
  const created = await createApplication(deps, fieldsOf(metadata)).catch((error: unknown) => {
    throw registrationError(error);
  });
  const registrationAccessToken = generateSecret();
  // Stored hashed like every generated secret (STYLE 9); the plain token is shown once, here.
  const application =
    (await deps.stores.applicationAdmin.update(created.application.id, {
      registeredBy: 'dynamic',
      registrationAccessToken: sha256Hex(registrationAccessToken),
    })) ?? created.application;
  return {
    client_id: application.uid,
    ...(created.plainSecret !== null && { client_secret: created.plainSecret, client_secret_expires_at: 0 }),
    client_id_issued_at: Math.floor(application.createdAt.getTime() / 1000),
    registration_access_token: registrationAccessToken,
    registration_client_uri: clientUri(deps, application.uid),
    ...metadata,
    client_name: application.name,
  };
}

/** RFC 7592 section 2: the bearer registration access token must be this client's (compared by hash, constant time). */
export async function authorizeManagement(deps: OAuthDeps, clientId: string, token: string | null): Promise<ApplicationRecord> {
  const application = await deps.stores.applications.findByUid(clientId);
  const expected = application?.registeredBy === 'dynamic' ? application.registrationAccessToken : null;
  // Hash and compare even without a client, so an unknown client_id takes as long as a wrong token.
  const matches = constantTimeEqual(sha256Hex(token ?? ''), expected ?? '');
  if (!application || expected === null || token === null || !matches) throw new InvalidToken();
  return application;
}

/** RFC 7592 section 2.1: the client's current configuration (no secret). */
export function readClient(deps: OAuthDeps, application: ApplicationRecord): RegistrationResponse {
  return {
    client_id: application.uid,
    client_id_issued_at: Math.floor(application.createdAt.getTime() / 1000),
    registration_client_uri: clientUri(deps, application.uid),
    ...storedMetadata(application),
  };
}

/** RFC 7592 section 2.2: the request's metadata replaces the stored one, under the same rules as registration. */
export async function updateClient(
  deps: OAuthDeps,
  application: ApplicationRecord,
  body: Record<string, unknown>,
): Promise<RegistrationResponse> {
  if (body.client_id !== application.uid) throw new InvalidRequest('client_id must be the client being updated.');
  const metadata = validateClientMetadata(body, deps.config);
  const updated = await updateApplication(deps, application.id, fieldsOf(metadata)).catch((error: unknown) => {
    throw registrationError(error);
  });
  if (!updated) throw new InvalidToken();
  return {
    ...readClient(deps, updated.application),
    ...(updated.plainSecret !== null && { client_secret: updated.plainSecret, client_secret_expires_at: 0 }),
    ...metadata,
    client_name: updated.application.name,
  };
}

/** RFC 7592 section 2.3: deletes the client with its grants and tokens. */
export async function deleteClient(deps: OAuthDeps, application: ApplicationRecord): Promise<void> {
  await deleteApplication(deps, application.id);
}
