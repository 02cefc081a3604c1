import { ApplicationInvalid, validateApplicationFields } from '../applications.js';
import { storedRequestSecurityMetadata } from './request-security-metadata.js';
import { reportWithdrawnApproval, reviewedFieldsChanged, type Warn } from '../client-approval.js';
import { InvalidClientMetadata, InvalidRegistrationRedirectUri } from './client-registration-errors.js';
import { NO_EXTRAS, operatorExtrasOf } from '../client-holdings.js';
import { validateClientMetadata, type ClientMetadata } from './client-registration-metadata.js';
import type { OAuthDeps } from '../../deps.js';
import { InvalidRequest, InvalidToken } from '../../errors.js';
import { boundedJson } from '../../json-nesting.js';
import { refreshTokenPolicyOf, refreshTokensValue } from '../refresh-token-setting.js';
import { roomUnderCap } from './registration-cap.js';
import type { RegistrationTokenRecord } from './registration-store.js';
import { checkInitialAccessToken, useInitialAccessToken } from './registration-tokens.js';
import { clientSecretMatches, generateClientId, generateSecret, sha256Hex, storedForm } from '../../secrets.js';
import type { ApplicationInput, ApplicationRecord } from '../../store.js';
import { expiredUnused } from './unused-clients.js';
import { checkSubjectMetadata, checkSubjectUnchanged } from './sector-identifier.js';
import { usesClientSecret } from '../client-authentication-setting.js';

// Dynamic client registration (RFC 7591) and its management protocol (RFC 7592), issue 19. The admin's rules for
// an application (applications.ts validateApplicationFields) hold here too, beside the stricter ones of
// client-registration-metadata.ts; the metadata is stored as registered and answered from the stored record.

const DEFAULT_CLIENT_NAME = 'Dynamically registered client';

export type RegistrationResponse = Record<string, unknown>;

const clientUri = (deps: OAuthDeps, clientId: string) =>
  `${deps.config.baseUrl.replace(/\/+$/, '')}/oauth/register/${encodeURIComponent(clientId)}`;

/**
 * The admin's rules on the registered metadata. Its redirect URI rules replace forceSslInRedirectUri (https, or
 * loopback http for native clients only), and a client registered without authorization_code needs no redirect
 * URI even while the server offers that grant.
 */
function checkAdminRules(deps: OAuthDeps, metadata: ClientMetadata): void {
  const config = {
    ...deps.config,
    forceSslInRedirectUri: false,
    grantFlows: deps.config.grantFlows.filter((flow) => metadata.grant_types.includes(flow)),
  };
  const fields = {
    name: metadata.client_name ?? DEFAULT_CLIENT_NAME,
    redirectUri: metadata.redirect_uris.join('\n'),
    scopes: metadata.scope ?? '',
    confidential: metadata.token_endpoint_auth_method !== 'none',
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
    // Bounded: the admin's rules refuse a set nested too deeply by name, which JSON.stringify of it would overflow.
    jwks: metadata.jwks === undefined ? '' : boundedJson(metadata.jwks),
    jwksUri: metadata.jwks_uri ?? '',
  };
  const errors = validateApplicationFields(fields, config);
  const { redirect_uri: redirectProblems, ...others } = errors;
  if (redirectProblems?.length) throw new InvalidRegistrationRedirectUri(redirectProblems.join(' '));
  if (Object.keys(others).length > 0) throw new InvalidClientMetadata(new ApplicationInvalid(others).message);
}

/** A public client has no secret, and a private_key_jwt client proves itself with its key: it gets none either. */
const usesSecret = (metadata: ClientMetadata) => usesClientSecret(columnsOf(metadata));

/** The record's fields for the metadata (RFC 7592 section 2.2: an update replaces all of them). */
function columnsOf(metadata: ClientMetadata) {
  return {
    name: (metadata.client_name ?? DEFAULT_CLIENT_NAME).trim(),
    redirectUris: metadata.redirect_uris,
    scopes: metadata.scope === undefined ? [] : metadata.scope.split(' ').filter(Boolean),
    confidential: metadata.token_endpoint_auth_method !== 'none',
    grantTypes: metadata.grant_types,
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
    applicationType: metadata.application_type,
    subjectType: metadata.subject_type,
    sectorIdentifierUri: metadata.sector_identifier_uri ?? null,
    refreshTokens: refreshTokenPolicyOf(metadata.refresh_tokens),
    clientUri: metadata.client_uri ?? null,
    logoUri: metadata.logo_uri ?? null,
    policyUri: metadata.policy_uri ?? null,
    tosUri: metadata.tos_uri ?? null,
    contacts: metadata.contacts ?? [],
    softwareId: metadata.software_id ?? null,
    softwareVersion: metadata.software_version ?? null,
    backchannelLogoutUri: metadata.backchannel_logout_uri ?? null,
    backchannelLogoutSessionRequired: metadata.backchannel_logout_session_required ?? false,
    postLogoutRedirectUris: metadata.post_logout_redirect_uris ?? [],
    idTokenSignedResponseAlg: metadata.id_token_signed_response_alg ?? null,
    userinfoSignedResponseAlg: metadata.userinfo_signed_response_alg ?? null,
    jwks: metadata.jwks === undefined ? null : JSON.stringify(metadata.jwks),
    jwksUri: metadata.jwks_uri ?? null,
    requirePushedAuthorizationRequests: metadata.require_pushed_authorization_requests ?? false,
    requireSignedRequestObject: metadata.require_signed_request_object ?? false,
    authorizationSignedResponseAlg: metadata.authorization_signed_response_alg ?? null,
    profile: metadata.profile ?? 'none',
    dpopBoundAccessTokens: metadata.dpop_bound_access_tokens ?? false,
    requestObjectSigningAlg: metadata.request_object_signing_alg ?? null,
    tokenEndpointAuthSigningAlg: metadata.token_endpoint_auth_signing_alg ?? null,
  } satisfies Partial<ApplicationInput>;
}

type Columns = ReturnType<typeof columnsOf>;
const OPENID_COLUMNS = [
  'subjectType',
  'sectorIdentifierUri',
  'backchannelLogoutUri',
  'backchannelLogoutSessionRequired',
  'postLogoutRedirectUris',
  'idTokenSignedResponseAlg',
  'userinfoSignedResponseAlg',
] as const;
type OpenIdColumn = (typeof OPENID_COLUMNS)[number];

/**
 * What an update writes. OpenID Connect's metadata is ignored while it is off (RFC 7591 section 2: metadata this server
 * does not act on), so an update then leaves what is stored of it, set at registration while it was on or by an admin:
 * replacing it with nothing would drop a client's logout URIs and turn a pairwise client public, giving its users
 * new subs once OpenID Connect is on again.
 */
function updatedColumnsOf(deps: OAuthDeps, metadata: ClientMetadata): Omit<Columns, OpenIdColumn> & Partial<Columns> {
  const columns = columnsOf(metadata);
  if (deps.config.openid.enabled) return columns;
  const oauth: Partial<Columns> = { ...columns };
  for (const column of OPENID_COLUMNS) delete oauth[column];
  return oauth as Omit<Columns, OpenIdColumn>;
}

/** RFC 7592 section 3: the client's metadata as stored, the response types implied by its grant types. */
export function storedMetadata(application: ApplicationRecord): Record<string, unknown> {
  const grantTypes = application.grantTypes ?? ['authorization_code'];
  const optional = {
    scope: application.scopes.length > 0 ? application.scopes.join(' ') : null,
    client_uri: application.clientUri,
    logo_uri: application.logoUri,
    policy_uri: application.policyUri,
    tos_uri: application.tosUri,
    backchannel_logout_uri: application.backchannelLogoutUri,
    post_logout_redirect_uris: application.postLogoutRedirectUris.length > 0 ? application.postLogoutRedirectUris : null,
    id_token_signed_response_alg: application.idTokenSignedResponseAlg,
    userinfo_signed_response_alg: application.userinfoSignedResponseAlg,
    contacts: application.contacts.length > 0 ? application.contacts : null,
    software_id: application.softwareId,
    software_version: application.softwareVersion,
    sector_identifier_uri: application.sectorIdentifierUri,
    jwks: application.jwks === null ? null : (JSON.parse(application.jwks) as unknown),
    jwks_uri: application.jwksUri,
  };
  return {
    client_name: application.name,
    redirect_uris: application.redirectUris,
    token_endpoint_auth_method: application.tokenEndpointAuthMethod ?? (application.confidential ? 'client_secret_basic' : 'none'),
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    application_type: application.applicationType ?? 'web',
    subject_type: application.subjectType,
    refresh_tokens: refreshTokensValue(application.refreshTokens),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)),
    ...(application.backchannelLogoutUri !== null && { backchannel_logout_session_required: application.backchannelLogoutSessionRequired }),
    ...storedRequestSecurityMetadata(application),
  };
}

/**
 * RFC 7591 section 3 (policy initialAccessToken): the Bearer initial access token, checked before anything else;
 * its record says what it allows beyond the policy (issue 29).
 */
export async function authorizeRegistration(deps: OAuthDeps, token: string | null): Promise<RegistrationTokenRecord | null> {
  return deps.config.registration.policy === 'initialAccessToken' ? checkInitialAccessToken(deps, token) : null;
}

/**
 * RFC 7591 section 3.1 / 3.2.1: registers a client in one write; the response holds its credentials and metadata.
 * The cap on self-registered clients is counted and kept under a lock every registration takes, in any process.
 */
export async function registerClient(
  deps: OAuthDeps,
  body: Record<string, unknown>,
  initialToken: RegistrationTokenRecord | null,
): Promise<{ application: ApplicationRecord; response: RegistrationResponse }> {
  // Issue 29: what the operator allowed through the token is remembered on the row, for the client's whole life.
  const extras = initialToken ?? NO_EXTRAS;
  const metadata = validateClientMetadata(body, deps.config, extras);
  checkAdminRules(deps, metadata);
  await checkSubjectMetadata(deps, metadata);
  const plainSecret = usesSecret(metadata) ? generateSecret() : null;
  const registrationAccessToken = generateSecret();
  const application = await deps.stores.registrations.exclusively(async (locked) => {
    if (!(await roomUnderCap(locked, 'dynamic', deps))) throw new InvalidClientMetadata('Open registration is full');
    // Used only now that the registration will be made: a refused one costs the token nothing.
    if (initialToken !== null) await useInitialAccessToken(locked, initialToken.token, deps.now());
    return locked.createApplication({
      uid: generateClientId(),
      secret: plainSecret === null ? null : storedForm(plainSecret, deps.config.hashApplicationSecrets),
      ...columnsOf(metadata),
      registeredBy: 'dynamic',
      createdAt: deps.now(),
      operatorGrantTypes: [...extras.grantTypes],
      operatorScopes: [...extras.scopes],
      // Stored hashed like every generated secret (STYLE 9); the plain token is shown once, here.
      registrationAccessToken: sha256Hex(registrationAccessToken),
    });
  });
  const response = {
    client_id: application.uid,
    ...(plainSecret !== null && { client_secret: plainSecret, client_secret_expires_at: 0 }),
    client_id_issued_at: Math.floor(application.createdAt.getTime() / 1000),
    registration_access_token: registrationAccessToken,
    registration_client_uri: clientUri(deps, application.uid),
    ...storedMetadata(application),
  };
  return { application, response };
}

/**
 * RFC 7592 section 2: the bearer registration access token must be this client's. It is looked up by its hash in the
 * database, not in the application cache: a token rotated on another instance a moment ago works here at once.
 */
export async function authorizeManagement(deps: OAuthDeps, clientId: string, token: string | null): Promise<ApplicationRecord> {
  if (token === null) throw new InvalidToken('missing');
  const application = await deps.stores.applicationAdmin.findByRegistrationAccessToken(sha256Hex(token));
  if (!application || application.registeredBy !== 'dynamic' || application.uid !== clientId) throw new InvalidToken();
  // Issue 29 item 5: a client that expired unused is gone for its management too (RFC 7592 section 2: invalid_token).
  if (expiredUnused(application, deps.config.registration.unusedClientLifetimeSeconds, deps.now())) throw new InvalidToken();
  return application;
}

/** RFC 7592 section 3: the client information response, with the new registration access token. */
function clientInformation(deps: OAuthDeps, application: ApplicationRecord, registrationAccessToken: string): RegistrationResponse {
  return {
    client_id: application.uid,
    client_id_issued_at: Math.floor(application.createdAt.getTime() / 1000),
    registration_access_token: registrationAccessToken,
    registration_client_uri: clientUri(deps, application.uid),
    ...storedMetadata(application),
  };
}

/**
 * RFC 7592 section 3: the response MUST hold the registration access token, which is stored only as a hash, so
 * every read and update issues a new one (section 3 lets the server rotate it) and the presented one stops working
 * in the same write. The write is made only while the stored hash is still the presented token's: of two requests
 * with the same token one rotates it, the other is 401 invalid_token, as is one for a client deleted meanwhile.
 */
async function rotating(
  deps: OAuthDeps,
  application: ApplicationRecord,
  changes: Partial<ApplicationInput>,
): Promise<{ updated: ApplicationRecord; token: string }> {
  const token = generateSecret();
  const updated = await deps.stores.applicationAdmin.update(
    application.id,
    { ...changes, registrationAccessToken: sha256Hex(token) },
    { registrationAccessToken: application.registrationAccessToken! },
  );
  if (!updated) throw new InvalidToken();
  return { updated, token };
}

/** RFC 7592 section 2.1: the client's current configuration (no secret) and a new registration access token. */
export async function readClient(deps: OAuthDeps, application: ApplicationRecord): Promise<RegistrationResponse> {
  const { updated, token } = await rotating(deps, application, {});
  return clientInformation(deps, updated, token);
}

/**
 * RFC 7592 section 2.2: the request's metadata replaces the stored one, under the same rules as registration.
 * A public client turned confidential gets a secret (answered once); a confidential one turned public loses it.
 * A change of a reviewed field voids an admin's approval in the same write (client-approval.ts), with a warn line.
 */
export async function updateClient(
  deps: OAuthDeps,
  application: ApplicationRecord,
  body: Record<string, unknown>,
  warn: Warn,
): Promise<RegistrationResponse> {
  if (body.client_id !== application.uid) throw new InvalidRequest('client_id must be the client being updated.');
  // RFC 7592 section 2.2: a client_secret in the request MUST match the one currently issued.
  if (body.client_secret !== undefined && !secretIsCurrent(deps, application, body.client_secret))
    throw new InvalidRequest('client_secret must be the client secret currently issued.');
  const metadata = validateClientMetadata(body, deps.config, operatorExtrasOf(application));
  checkAdminRules(deps, metadata);
  if (deps.config.openid.enabled) checkSubjectUnchanged(application, metadata);
  await checkSubjectMetadata(deps, metadata);
  const secretNeeded = usesSecret(metadata);
  const plainSecret = secretNeeded && application.secret === null ? generateSecret() : null;
  const secretChange = !secretNeeded
    ? { secret: null }
    : plainSecret !== null
      ? { secret: storedForm(plainSecret, deps.config.hashApplicationSecrets) }
      : {};
  const columns = updatedColumnsOf(deps, metadata);
  const changed = reviewedFieldsChanged(application, columns);
  const approvalChange = changed.length > 0 ? { approvedAt: null } : {};
  const { updated, token } = await rotating(deps, application, { ...columns, ...secretChange, ...approvalChange });
  reportWithdrawnApproval(warn, 'client_registration', application, changed);
  return {
    ...clientInformation(deps, updated, token),
    ...(plainSecret !== null && { client_secret: plainSecret, client_secret_expires_at: 0 }),
  };
}

function secretIsCurrent(deps: OAuthDeps, application: ApplicationRecord, secret: unknown): boolean {
  if (typeof secret !== 'string' || application.secret === null) return false;
  return clientSecretMatches(secret, application.secret, deps.config.hashApplicationSecrets);
}

/**
 * RFC 7592 section 2.3: deletes the client with its grants and tokens, while the stored hash is still the presented
 * token's (as `rotating`): a read or update that rotated it meanwhile wins, and the deletion is 401 invalid_token.
 */
export async function deleteClient(deps: OAuthDeps, application: ApplicationRecord): Promise<void> {
  const only = { registrationAccessToken: application.registrationAccessToken! };
  if (!(await deps.stores.applicationAdmin.delete(application.id, only))) throw new InvalidToken();
}
