import {
  openIdSettingsErrors,
  storedOpenIdSettings,
  type OpenIdSettingsField,
  type OpenIdSettingsFields,
} from './application-openid-settings.js';
import type { OAuthDeps } from '../deps.js';
import { drawsNothing, formatCharacterIn } from '../format-characters.js';
import { subjectTypeError, subjectTypeOf } from './subject-type-setting.js';
import {
  backchannelLogoutErrors,
  storedBackchannelLogoutSettings,
  type BackchannelLogoutField,
  type BackchannelLogoutFields,
} from '../openid/backchannel-logout/backchannel-logout-settings.js';
import { refreshTokenPolicyOf, refreshTokensError } from './refresh-token-setting.js';
import { grantTypesError, sameGrantTypes, storedGrantTypes } from './grant-types-setting.js';
import { splitRegisteredUris } from '../authorization/redirect-uri.js';
import { isWellFormedScopeParam, parseScopes } from '../scopes.js';
import { generateClientId, generateSecret, storedForm } from '../secrets.js';
import type { ApplicationRecord } from '../store.js';
import type { ClientProfile } from './application-store.js';
import { fapi2ProfileProblems, type ProfiledClient } from './fapi2-profile.js';
import {
  clientAuthenticationErrors,
  storedClientAuthentication,
  usesClientSecret,
  type ClientAuthenticationField,
  type ClientAuthenticationFields,
} from './client-authentication-setting.js';
import { hasControlCharacter } from '../control-characters.js';
import { redirectUriProblems } from './application-redirect-uris.js';
import { changedRecordFields } from '../audit/changed-fields.js';
import { unstorableText } from '../storable-text.js';

/** The admin form and JSON API fields (SPEC 3.6), and the CLI's options; the OpenID Connect settings are optional. */
export interface ApplicationFields extends OpenIdSettingsFields, BackchannelLogoutFields, ClientAuthenticationFields {
  name: string;
  /** One URI per line (any whitespace separates). */
  redirectUri: string;
  /** Space-separated. */
  scopes: string;
  confidential: boolean;
  /**
   * RFC 9449 section 5.2's dpop_bound_access_tokens: every token request of this client must carry a DPoP proof.
   * undefined keeps what is stored (false on create).
   */
  dpopBoundAccessTokens?: boolean | undefined;
  /**
   * RFC 9126 section 6's require_pushed_authorization_requests: its authorization requests must be pushed (POST
   * /oauth/par). undefined keeps what is stored (false on create).
   */
  requirePushedAuthorizationRequests?: boolean | undefined;
  /**
   * RFC 9101 section 10.5's require_signed_request_object: its authorization requests must be signed request objects.
   * undefined keeps what is stored (false on create).
   */
  requireSignedRequestObject?: boolean | undefined;
  /** The security profile (fapi2-profile.ts): none or fapi2; blank is none. undefined keeps what is stored (none on create). */
  profile?: string | undefined;
  /** OpenID Connect Core 8: public or pairwise; blank is public. undefined keeps what is stored (public on create). */
  subjectType?: string | undefined;
  /**
   * OpenID Connect Core 11: always, or offline_access (refresh tokens only with that scope granted); blank is always.
   * undefined keeps what is stored (always on create).
   */
  refreshTokens?: string | undefined;
  /**
   * The grant types it may use, space-separated (issue 34: the device grant only when named here); blank: every grant
   * the server enables but the device grant. undefined keeps what is stored (blank on create).
   */
  grantTypes?: string | undefined;
}

export type ApplicationField =
  | 'name'
  | 'redirect_uri'
  | 'scopes'
  | 'uid'
  | 'secret'
  | 'subject_type'
  | 'refresh_tokens'
  | 'grant_types'
  | 'profile'
  | OpenIdSettingsField
  | BackchannelLogoutField
  | ClientAuthenticationField;

/** Validation problems: full English messages (reference 2.4), grouped by the field they belong to. */
export type FieldErrors = Partial<Record<ApplicationField, string[]>>;

export class ApplicationInvalid extends Error {
  constructor(readonly fieldErrors: FieldErrors) {
    super(Object.values(fieldErrors).flat().join(' '));
  }

  get messages(): string[] {
    return Object.values(this.fieldErrors).flat();
  }
}

/** Minimum length of an imported secret: generated ones carry 256 bits, imported ones must come close (SPEC 2). */
export const MIN_IMPORTED_SECRET_LENGTH = 32;

/** The grant flows that send the resource owner back to a redirect URI: while one is enabled, an application needs one. */
export const REDIRECT_FLOWS: readonly string[] = ['authorization_code', 'implicit'];

/**
 * Reference 7.1, 8.4 and 13: the rules an application must pass on create and update. `current`: the application
 * being updated, whose stored redirect URIs and name were accepted under the rules of their day and stay valid
 * (issue 29's rules apply to new values only; authorize never re-checks them).
 */
export function validateApplicationFields(
  fields: ApplicationFields,
  config: OAuthDeps['config'],
  current?: ApplicationRecord,
): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: ApplicationField, message: string) => (errors[field] ??= []).push(message);
  if (drawsNothing(fields.name)) add('name', "Name can't be blank");
  if (fields.name.length > 255) add('name', 'Name is too long (maximum is 255 characters)');
  // PostgreSQL text cannot hold a NUL: refused here, not by a failing INSERT (SPEC 9: no input gives a 500); an unpaired
  // surrogate would be stored as U+FFFD, another name than the one sent (registration refuses both, storable-text.ts).
  const storable = unstorableText(fields.name) === null;
  if (!storable) add('name', 'Name is invalid');
  // Issue 29 item 10: the consent screen shows an admin's name as it shows a stranger's; a format character (a paste
  // that carried U+202E or U+200B) would make it read as another.
  const newName = fields.name.trim() !== current?.name;
  const format = newName ? formatCharacterIn(fields.name) : null;
  if (format !== null) add('name', `Name must not contain invisible formatting characters (${format})`);
  // Nor a control character (a bell, an escape sequence, a line break): the name is a line of the consent screen and of
  // the CLI's tables, as a user's name is (users refuse them too).
  if (newName && storable && hasControlCharacter(fields.name)) add('name', 'Name must not contain control characters');

  const uris = splitRegisteredUris(fields.redirectUri);
  // Reference 7.1: blank is allowed only when no enabled flow redirects; with grant types of its own (issue 34), only
  // when none of the application's does (a client_credentials job has no use for one).
  const ownGrants = fields.grantTypes === undefined ? (current?.grantTypes ?? null) : storedGrantTypes(fields.grantTypes);
  if (uris.length === 0 && (ownGrants ?? config.grantFlows).some((flow) => REDIRECT_FLOWS.includes(flow))) {
    add('redirect_uri', "Redirect URI can't be blank");
  }
  for (const message of redirectUriProblems(uris, config.forceSslInRedirectUri, current?.redirectUris ?? [])) add('redirect_uri', message);

  if (fields.scopes.trim() !== '') {
    const serverScopes = new Set([...config.defaultScopes, ...config.optionalScopes]);
    const wellFormed = isWellFormedScopeParam(fields.scopes.trim().replace(/\s+/g, ' '));
    if (!wellFormed || (config.enforceConfiguredScopes && !parseScopes(fields.scopes).every((s) => serverScopes.has(s)))) {
      add('scopes', "Scopes doesn't match those configured on the server.");
    }
  }
  const settingsOptions = {
    forceSsl: config.forceSslInRedirectUri,
    openidEnabled: config.openid.enabled,
    storedUris: current?.postLogoutRedirectUris ?? [],
  };
  for (const [field, message] of openIdSettingsErrors(fields, settingsOptions)) add(field, message);
  // OpenID Connect Core 8.1: the sector of a pairwise client is its redirect URIs' host (unless it registered a
  // sector_identifier_uri), checked also when only the redirect URIs change.
  const sector = { redirectUris: uris, sectorIdentifierUri: current?.sectorIdentifierUri ?? null };
  const subjectType = subjectTypeError(fields.subjectType ?? current?.subjectType ?? 'public', sector, config);
  if (subjectType !== null) add('subject_type', subjectType);
  for (const [field, message] of backchannelLogoutErrors(fields, config, current)) add(field, message);
  const refreshTokens = fields.refreshTokens === undefined ? null : refreshTokensError(fields.refreshTokens, 'Refresh tokens');
  if (refreshTokens !== null) add('refresh_tokens', refreshTokens);
  // Judged when changed only: a self-registered client's registered grant types stay as they were accepted.
  const unchanged = fields.grantTypes === undefined || sameGrantTypes(storedGrantTypes(fields.grantTypes), current?.grantTypes);
  const grantTypes = unchanged ? null : grantTypesError(fields.grantTypes!, config);
  if (grantTypes !== null) add('grant_types', grantTypes);
  // RFC 6749 section 4.4: the token endpoint refuses it to a public client (unauthorized_client), as registration does.
  else if (!fields.confidential && ownGrants?.includes('client_credentials'))
    add('grant_types', 'Client credentials needs a confidential client: a public client cannot authenticate (RFC 6749 section 4.4).');
  for (const [field, message] of clientAuthenticationErrors(fields, config, current)) add(field, message);
  for (const message of fapi2ProfileProblems(profiledClient(fields, current))) add('profile', message);
  if (signedRequestsWithoutKeys(fields, current))
    add('jwks', 'Require signed request object needs the public keys its request objects are verified with: set jwks or jwks_uri.');
  return errors;
}

export interface CreatedApplication {
  application: ApplicationRecord;
  /** The plain secret, shown once; null for public clients and those that prove themselves with their key. */
  plainSecret: string | null;
}

/** A client as the secret rule (usesClientSecret) judges it. */
type SecretHolder = Pick<ApplicationRecord, 'confidential'> & { tokenEndpointAuthMethod: string | null };

export interface ImportedClient {
  uid?: string | undefined;
  secret?: string | undefined;
}

/** SPEC 2: the rules of an imported client's uid and secret (those given), as validateApplicationFields reports. */
export function importedClientErrors(imported: ImportedClient, client: SecretHolder): FieldErrors {
  const errors: FieldErrors = {};
  if (imported.uid !== undefined && !/^[\x21-\x7E]{1,255}$/.test(imported.uid)) {
    errors.uid = ['UID must be 1 to 255 visible ASCII characters'];
  }
  if (imported.secret !== undefined) {
    if (!client.confidential) errors.secret = ['Secret cannot be set for a public client'];
    else if (!usesClientSecret(client))
      errors.secret = [`Secret cannot be set for a ${client.tokenEndpointAuthMethod} client: it authenticates with its key`];
    else if (imported.secret.length < MIN_IMPORTED_SECRET_LENGTH)
      errors.secret = [`Secret must be at least ${MIN_IMPORTED_SECRET_LENGTH} characters`];
    // RFC 6749 appendix A.2: a secret is printable ASCII. One read from a file with its newline would be stored and
    // never match what the client sends.
    else if (!/^[\x20-\x7E]*$/.test(imported.secret))
      errors.secret = ['Secret must be printable ASCII characters, without a line break (RFC 6749 appendix A.2)'];
  }
  return errors;
}

/** Creates an application; `uid` and `secret` import an existing client (SPEC 2), else they are generated. */
export async function createApplication(
  deps: OAuthDeps,
  fields: ApplicationFields,
  imported: ImportedClient = {},
): Promise<CreatedApplication> {
  const client = { confidential: fields.confidential, tokenEndpointAuthMethod: methodOf(fields) };
  const errors = { ...validateApplicationFields(fields, deps.config), ...importedClientErrors(imported, client) };
  if (Object.keys(errors).length > 0) throw new ApplicationInvalid(errors);
  const plainSecret = usesClientSecret(client) ? (imported.secret ?? generateSecret()) : null;
  const application = await deps.stores.applicationAdmin.create({
    uid: imported.uid ?? generateClientId(),
    secret: plainSecret === null ? null : storedForm(plainSecret, deps.config.hashApplicationSecrets),
    ...storedApplicationFields(fields),
  });
  return { application, plainSecret };
}

/**
 * Updates an application. A client that comes to need a secret (made confidential, or moved from private_key_jwt to
 * a secret method) gets a new one (returned once); one that no longer does (made public, or moved to private_key_jwt)
 * loses it, as an RFC 7592 update does. null when there is no such application.
 */
/**
 * Updates an application with `fields`, or with what `changes` makes of it as it is now. Run in a transaction
 * (auditedChange), the row is locked from that read to the write: two changes at once (one PATCH of the name, another
 * of the redirect URIs, on two instances) each merge into the row as the other left it, and neither is lost.
 */
export async function updateApplication(
  deps: OAuthDeps,
  id: number,
  changes: ApplicationFields | ((current: ApplicationRecord) => ApplicationFields),
): Promise<CreatedApplication | null> {
  const current = await deps.stores.applicationAdmin.findByIdForUpdate(id);
  if (!current) return null;
  const fields = typeof changes === 'function' ? changes(current) : changes;
  const errors = validateApplicationFields(fields, deps.config, current);
  if (Object.keys(errors).length > 0) throw new ApplicationInvalid(errors);
  const secretNeeded = usesClientSecret({ confidential: fields.confidential, tokenEndpointAuthMethod: methodOf(fields, current) });
  const plainSecret = secretNeeded && current.secret === null ? generateSecret() : null;
  const secretChange = !secretNeeded
    ? { secret: null }
    : plainSecret !== null
      ? { secret: storedForm(plainSecret, deps.config.hashApplicationSecrets) }
      : {};
  const stored = { ...storedApplicationFields(fields), ...secretChange };
  // An update that changes nothing (the edit form saved as it was, an empty PATCH) writes nothing: updated_at stays.
  if (changedRecordFields(stored, current).length === 0) return { application: current, plainSecret: null };
  const application = await deps.stores.applicationAdmin.update(id, stored);
  return application && { application, plainSecret };
}

/** The stored form of valid fields: what create and update write (and what `apply` compares with a stored application). */
export function storedApplicationFields(fields: ApplicationFields) {
  return {
    name: fields.name.trim(),
    redirectUris: splitRegisteredUris(fields.redirectUri),
    scopes: parseScopes(fields.scopes),
    confidential: fields.confidential,
    ...(fields.dpopBoundAccessTokens !== undefined && { dpopBoundAccessTokens: fields.dpopBoundAccessTokens }),
    ...(fields.requirePushedAuthorizationRequests !== undefined && {
      requirePushedAuthorizationRequests: fields.requirePushedAuthorizationRequests,
    }),
    ...(fields.requireSignedRequestObject !== undefined && { requireSignedRequestObject: fields.requireSignedRequestObject }),
    ...(fields.profile !== undefined && { profile: profileOf(fields.profile) }),
    ...(fields.subjectType !== undefined && { subjectType: subjectTypeOf(fields.subjectType) }),
    ...(fields.refreshTokens !== undefined && { refreshTokens: refreshTokenPolicyOf(fields.refreshTokens) }),
    ...(fields.grantTypes !== undefined && { grantTypes: storedGrantTypes(fields.grantTypes) }),
    ...storedOpenIdSettings(fields),
    ...storedBackchannelLogoutSettings(fields),
    ...storedClientAuthentication(fields),
  };
}

// The token endpoint auth method the client will be stored with (not given: the stored one; blank: null, the default).
function methodOf(fields: ApplicationFields, current?: ApplicationRecord): string | null {
  const method = fields.tokenEndpointAuthMethod === undefined ? current?.tokenEndpointAuthMethod : fields.tokenEndpointAuthMethod.trim();
  return method || null;
}

// The client as it will be stored, as the profile's rules judge it (a field not given: the stored one).
function profiledClient(fields: ApplicationFields, current?: ApplicationRecord): ProfiledClient {
  return {
    profile: fields.profile === undefined ? (current?.profile ?? 'none') : fields.profile.trim() || 'none',
    confidential: fields.confidential,
    tokenEndpointAuthMethod: methodOf(fields, current),
    grantTypes: fields.grantTypes === undefined ? (current?.grantTypes ?? null) : storedGrantTypes(fields.grantTypes),
    signedResponseAlgs: {
      id_token_signed_response_alg: fields.idTokenSignedResponseAlg?.trim() ?? current?.idTokenSignedResponseAlg ?? null,
      userinfo_signed_response_alg: fields.userinfoSignedResponseAlg?.trim() ?? current?.userinfoSignedResponseAlg ?? null,
      authorization_signed_response_alg: fields.authorizationSignedResponseAlg?.trim() ?? current?.authorizationSignedResponseAlg ?? null,
    },
    redirectUris: splitRegisteredUris(fields.redirectUri),
  };
}

// RFC 9101 section 10.5: a client that must sign its requests but registered no key could never be authorized.
function signedRequestsWithoutKeys(fields: ApplicationFields, current?: ApplicationRecord): boolean {
  const required = fields.requireSignedRequestObject ?? current?.requireSignedRequestObject ?? false;
  const keyed = (field: string | undefined, stored: string | null | undefined) =>
    field === undefined ? Boolean(stored) : field.trim() !== '';
  return required && !keyed(fields.jwks, current?.jwks) && !keyed(fields.jwksUri, current?.jwksUri);
}

const profileOf = (value: string): ClientProfile => (value.trim() === 'fapi2' ? 'fapi2' : 'none');

/** Issue 19: the admin list's filters (none: every application). */
export type ApplicationListFilter = 'self_registered' | 'awaiting_approval' | 'disabled';

const LIST_FILTERS: Record<ApplicationListFilter, (application: ApplicationRecord) => boolean> = {
  self_registered: (application) => application.registeredBy !== 'admin',
  awaiting_approval: (application) => application.registeredBy !== 'admin' && application.approvedAt === null,
  disabled: (application) => application.disabledAt !== null,
};

export async function listApplications(deps: OAuthDeps, filter?: ApplicationListFilter): Promise<ApplicationRecord[]> {
  const applications = await deps.stores.applicationAdmin.list();
  return filter === undefined ? applications : applications.filter(LIST_FILTERS[filter]);
}

export function findApplication(deps: OAuthDeps, id: number): Promise<ApplicationRecord | null> {
  return deps.stores.applications.findById(id);
}

export function findApplicationByUid(deps: OAuthDeps, uid: string): Promise<ApplicationRecord | null> {
  return deps.stores.applications.findByUid(uid);
}

/** Reference 13: the application's grants and tokens go with it (ON DELETE CASCADE). False when there was none. */
export function deleteApplication(deps: OAuthDeps, id: number): Promise<boolean> {
  return deps.stores.applicationAdmin.delete(id);
}

export { ApprovalNotNeeded, ApprovalOfChangedApplication, approveApplication, setApplicationDisabled } from './application-approval.js';
