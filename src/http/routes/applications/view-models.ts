import {
  validateApplicationFields,
  type ApplicationFields,
  type ApplicationListFilter,
  type FieldErrors,
} from '../../../oauth/clients/applications.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { pairwiseAvailable, sectorOf } from '../../../oauth/openid/subject.js';
import { SIGNING_ALGORITHMS } from '../../../oauth/keys/signing-keys.js';
import { refreshTokensValue } from '../../../oauth/clients/refresh-token-setting.js';
import { usesClientSecret } from '../../../oauth/clients/client-authentication-setting.js';
import { holdsGrantType } from '../../../oauth/clients/client-holdings.js';
import { isFapi2 } from '../../../oauth/clients/fapi2-profile.js';
import type { ApplicationRecord } from '../../../oauth/store.js';
import { listFilters, listMarkers, registrationView } from './registration-view.js';

// Small view models for views/applications/*.eta (STYLE 14): the handlers decide, the templates print.

export const INDEX_PATH = '/oauth/applications';
export const showPath = (id: number) => `${INDEX_PATH}/${id}`;

type Config = OAuthDeps['config'];

/** Reference 15.6, with issue 19's markers and filters for self-registered and disabled clients. */
export function indexView(applications: ApplicationRecord[], filter?: ApplicationListFilter) {
  return {
    title: 'Your applications',
    navCurrent: true,
    filters: listFilters(filter),
    filtered: filter !== undefined,
    applications: applications.map((application) => ({
      ...listMarkers(application),
      id: application.id,
      name: application.name,
      href: showPath(application.id),
      editHref: `${showPath(application.id)}/edit`,
      deleteHref: `${showPath(application.id)}/delete`,
      redirectUris: application.redirectUris,
      confidential: application.confidential ? 'Yes' : 'No',
    })),
  };
}

/** Reference 15.8; `fields` are what was typed, so a form with errors keeps them. */
export function formView(
  config: Config,
  fields: ApplicationFields,
  options: { application?: ApplicationRecord; errors?: FieldErrors } = {},
) {
  const { application, errors = {} } = options;
  return {
    title: application ? 'Edit application' : 'New Application',
    action: application ? showPath(application.id) : INDEX_PATH,
    // HTML forms can only POST; the update route reads _method (Rails' convention).
    method: application ? 'patch' : null,
    cancelHref: INDEX_PATH,
    values: fields,
    hasErrors: Object.keys(errors).length > 0,
    errors: {
      name: fieldMessages(errors.name, 'Name'),
      redirect_uri: fieldMessages(errors.redirect_uri, 'Redirect URI'),
      scopes: fieldMessages(errors.scopes, 'Scopes'),
      post_logout_redirect_uris: fieldMessages(errors.post_logout_redirect_uris, 'Post-logout redirect URI'),
      backchannel_logout_uri: fieldMessages(errors.backchannel_logout_uri, 'Back-channel logout URI'),
      backchannel_logout_session_required: fieldMessages(errors.backchannel_logout_session_required, 'Back-channel logout'),
      grant_types: fieldMessages(errors.grant_types, 'Grant types'),
    },
    tokenFormat: selectView(TOKEN_FORMATS, fields.accessTokenFormat, 'opaque', errors.access_token_format, 'Access token format'),
    refreshTokens: selectView(REFRESH_TOKEN_OPTIONS, fields.refreshTokens, 'always', errors.refresh_tokens, 'Refresh tokens'),
    profile: selectView(PROFILE_OPTIONS, fields.profile, 'none', errors.profile, 'Profile'),
    authMethod: selectView(
      AUTH_METHODS,
      fields.tokenEndpointAuthMethod,
      '',
      errors.token_endpoint_auth_method,
      'Token endpoint auth method',
    ),
    jwksErrors: fieldMessages(errors.jwks, 'JWKS'),
    jwksUriErrors: fieldMessages(errors.jwks_uri, 'JWKS URI'),
    subjectType: {
      options: SUBJECT_TYPES.map(({ value, label }) => ({ value, label, selected: value === (fields.subjectType?.trim() || 'public') })),
      errors: fieldMessages(errors.subject_type, 'Subject type'),
      available: pairwiseAvailable(config),
    },
    algorithmSelects: [
      {
        field: 'id_token_signed_response_alg',
        label: 'ID token signing algorithm',
        options: algorithmOptions(fields.idTokenSignedResponseAlg, 'RS256 (default)'),
        errors: fieldMessages(errors.id_token_signed_response_alg, 'ID token signing algorithm'),
      },
      {
        field: 'userinfo_signed_response_alg',
        label: 'UserInfo response',
        options: algorithmOptions(fields.userinfoSignedResponseAlg, 'Plain JSON (default)', 'Signed JWT, '),
        errors: fieldMessages(errors.userinfo_signed_response_alg, 'UserInfo signing algorithm'),
      },
      {
        field: 'authorization_signed_response_alg',
        label: 'Authorization response signing algorithm (JARM)',
        options: algorithmOptions(fields.authorizationSignedResponseAlg, 'RS256 (default)'),
        errors: fieldMessages(errors.authorization_signed_response_alg, 'Authorization response signing algorithm'),
      },
    ],
    openidNote: openidNote(config),
    // Problems without a field on the form (uid, secret) go under the banner.
    otherErrors: [...(errors.uid ?? []), ...(errors.secret ?? [])],
    blankRedirectAllowed: blankRedirectUriAllowed(config),
  };
}

const codeFlowHeld = (config: Config, application: ApplicationRecord): boolean =>
  config.grantFlows.includes('authorization_code') && holdsGrantType(application, 'authorization_code', config);

/** Reference 15.7. `plainSecret` is set only on the one page view right after the secret was made. */
export function showView(config: Config, application: ApplicationRecord, plainSecret: string | null) {
  const scopes = application.scopes.join(' ');
  return {
    title: `Application: ${application.name}`,
    application: {
      id: application.id,
      name: application.name,
      uid: application.uid,
      scopes: scopes === '' ? null : scopes,
      confidential: String(application.confidential),
      editHref: `${showPath(application.id)}/edit`,
      deleteHref: `${showPath(application.id)}/delete`,
      rotateHref: `${showPath(application.id)}/rotate_secret`,
    },
    registration: registrationView(application),
    secret: plainSecret !== null ? { plain: plainSecret } : { placeholder: secretPlaceholder(config, application) },
    // A private_key_jwt client has no secret: rotating is refused (applications.ts), so no button offers it.
    canRotate: usesClientSecret(application),
    // Authorize tries the code flow: offered only to an application that may use it (else unauthorized_client).
    callbackUrls: application.redirectUris.map((uri) => ({
      uri,
      authorizeHref: codeFlowHeld(config, application) ? authorizeHref(application, uri) : null,
    })),
    grantTypes: application.grantTypes?.join(' ') ?? 'Every grant the server enables but the device grant',
    accessTokenFormat: TOKEN_FORMATS.find(({ value }) => value === application.accessTokenFormat)?.label ?? application.accessTokenFormat,
    // RFC 9449 section 5.2: without it, a proof still binds the tokens of a request that sends one. The profile fapi2
    // requires both DPoP and PAR whatever the stored settings say (fapi2-profile.ts).
    dpopBoundAccessTokens: requirement(application, application.dpopBoundAccessTokens),
    requirePushedAuthorizationRequests: config.pushedAuthorizationRequests.required
      ? 'Required (pushedAuthorizationRequests.required: every client)'
      : requirement(application, application.requirePushedAuthorizationRequests),
    requireSignedRequestObject: application.requireSignedRequestObject ? 'Required' : 'Not required',
    // OpenID Connect Registration 1.0 section 2: what a self-registered client said it signs with; others are refused.
    requestObjectSigningAlg: application.requestObjectSigningAlg,
    authorizationSignedResponseAlg: application.authorizationSignedResponseAlg ?? 'RS256 (default)',
    profile: application.profile === 'fapi2' ? 'FAPI 2.0 Security Profile (fapi2)' : 'None',
    refreshTokens: REFRESH_TOKEN_OPTIONS.find(({ value }) => value === refreshTokensValue(application.refreshTokens))!.label,
    clientAuthentication: {
      method: application.tokenEndpointAuthMethod ?? (application.confidential ? 'Client secret (default)' : 'none'),
      keys: application.jwksUri ?? (application.jwks === null ? null : `${keyCount(application.jwks)} inline`),
      signingAlg: application.tokenEndpointAuthSigningAlg,
    },
    openid: {
      postLogoutRedirectUris: application.postLogoutRedirectUris,
      backchannelLogoutUri: application.backchannelLogoutUri,
      backchannelLogoutSessionRequired: application.backchannelLogoutSessionRequired ? 'Required' : 'Not required',
      idTokenSignedResponseAlg: application.idTokenSignedResponseAlg ?? 'RS256 (default)',
      subjectType:
        application.subjectType === 'public'
          ? 'Public (default)'
          : `Pairwise, sector ${sectorOf(application) ?? '(none: its redirect URIs name several hosts)'}`,
      userinfoSignedResponseAlg:
        application.userinfoSignedResponseAlg === null ? 'Plain JSON (default)' : `Signed JWT, ${application.userinfoSignedResponseAlg}`,
      note: openidNote(config),
    },
  };
}

// OpenID Connect Core 8: the sub of the application's users, their own or one of its sector's (8.1).
const SUBJECT_TYPES = [
  { value: 'public', label: 'Public (default)' },
  { value: 'pairwise', label: 'Pairwise, per sector' },
];

// RFC 9068's JWT access tokens are signed with the OpenID Connect keys; a resource's own format wins over this one.
const TOKEN_FORMATS = [
  { value: 'opaque', label: 'Opaque' },
  { value: 'jwt', label: 'JWT (RFC 9068)' },
];

// OpenID Connect Core 11: refresh tokens with every code exchange, or only when the user granted offline_access.
// Issue 36 item 5: the security profile applied to the client (fapi2-profile.ts).
const PROFILE_OPTIONS = [
  { value: 'none', label: 'None (default)' },
  { value: 'fapi2', label: 'FAPI 2.0 Security Profile (fapi2)' },
];

const REFRESH_TOKEN_OPTIONS = [
  { value: 'always', label: 'Always (default)' },
  { value: 'offline_access', label: 'Only with offline_access' },
];

const keyCount = (jwks: string) => {
  const count = (JSON.parse(jwks) as { keys: unknown[] }).keys.length;
  return count === 1 ? '1 key' : `${count} keys`;
};

// Issue 34, RFC 7591 section 2 token_endpoint_auth_method: blank derives it from Confidential, as before.
const AUTH_METHODS = [
  { value: '', label: 'Client secret, Basic or in the body (default; none when not confidential)' },
  { value: 'client_secret_basic', label: 'client_secret_basic' },
  { value: 'client_secret_post', label: 'client_secret_post' },
  { value: 'private_key_jwt', label: 'private_key_jwt: a JWT signed with its key (RFC 7523)' },
  { value: 'client_secret_jwt', label: 'client_secret_jwt: a JWT signed with its secret (HS256)' },
  { value: 'none', label: 'none (public client)' },
];

// The OpenID Connect settings are always shown, so that they can be prepared before the switch is turned on.
function openidNote(config: Config): string {
  return config.openid.enabled
    ? 'Used by OpenID Connect sign-in and logout.'
    : 'OpenID Connect is not enabled on this server: these settings apply once it is (config openid.enabled).';
}

// The select's options: blank for the default, then each algorithm. A value that is none of them (typed into a
// JSON request) is kept as an extra option, so that the form with errors shows what was sent.
function algorithmOptions(current: string | undefined, defaultLabel: string, prefix = '') {
  const selected = current?.trim() ?? '';
  const values: string[] = ['', ...SIGNING_ALGORITHMS];
  if (!values.includes(selected)) values.push(selected);
  return values.map((value) => ({ value, label: value === '' ? defaultLabel : `${prefix}${value}`, selected: value === selected }));
}

/** The page that asks before a new secret ends the current one (the show page's Rotate secret leads to it). */
export function rotateSecretView(application: ApplicationRecord) {
  return {
    title: `Rotate the secret of ${application.name}?`,
    application: { name: application.name, action: `${showPath(application.id)}/rotate_secret`, cancelHref: showPath(application.id) },
  };
}

/** The confirmation page that stands in for Doorkeeper's JavaScript `confirm('Are you sure?')`. */
export function deleteView(application: ApplicationRecord) {
  return {
    title: `Delete ${application.name}?`,
    application: { id: application.id, name: application.name, action: showPath(application.id), cancelHref: showPath(application.id) },
  };
}

/** A select of `choices` with the typed value (blank: `byDefault`) selected, and its field's messages. */
function selectView(
  choices: ReadonlyArray<{ value: string; label: string }>,
  typed: string | undefined,
  byDefault: string,
  messages: string[] | undefined,
  fieldLabel: string,
) {
  const chosen = typed?.trim() || byDefault;
  const options = choices.map(({ value, label }) => ({ value, label, selected: value === chosen }));
  return { options, errors: fieldMessages(messages, fieldLabel) };
}

// The domain's messages are full sentences ("Name can't be blank"); beside the field the reference prints
// them without the field's name, capitalised ("Can't be blank", "Doesn't match those configured on the server.").
function fieldMessages(messages: string[] | undefined, label: string): string[] {
  return (messages ?? []).map((message) => {
    const bare = message.startsWith(`${label} `) ? message.slice(label.length + 1) : message;
    return bare.charAt(0).toUpperCase() + bare.slice(1);
  });
}

// Reference 7.1's rule stays in the domain: ask it whether a blank redirect URI would pass.
function blankRedirectUriAllowed(config: Config): boolean {
  const errors = validateApplicationFields({ name: 'x', redirectUri: '', scopes: '', confidential: true }, config);
  return errors.redirect_uri === undefined;
}

const requirement = (application: ApplicationRecord, setting: boolean) =>
  isFapi2(application) ? 'Required (profile fapi2)' : setting ? 'Required' : 'Not required';

// The stored secret is a hash (or, with hashApplicationSecrets off, a value shown only once): never printed. A
// private_key_jwt client has none (one it kept from before is never accepted).
function secretPlaceholder(config: Config, application: ApplicationRecord): string {
  if (!application.confidential) return 'None (public client)';
  if (!usesClientSecret(application)) return `None (it authenticates with its key, ${application.tokenEndpointAuthMethod})`;
  if (application.secret === null) return 'None yet (rotate the secret to make one)';
  return config.hashApplicationSecrets ? 'Secret hashed' : 'Hidden (shown only once)';
}

// Reference 15.7: a link that starts an authorization request for this client and redirect URI.
function authorizeHref(application: ApplicationRecord, redirectUri: string): string {
  const parameters: Array<[string, string]> = [
    ['client_id', application.uid],
    ['redirect_uri', redirectUri],
    ['response_type', 'code'],
  ];
  if (application.scopes.length > 0) parameters.push(['scope', application.scopes.join(' ')]);
  return `/oauth/authorize?${parameters.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')}`;
}
