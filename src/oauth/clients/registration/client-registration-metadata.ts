import { REGISTRABLE_GRANT_TYPES } from '../../../config/registration-schema.js';
import { grantTypeProblem, operatorAllowance, scopeProblem, type OperatorExtras } from '../client-holdings.js';
import type { OAuthDeps } from '../../deps.js';
import { backchannelLogoutMetadataOf, type BackchannelLogoutMetadata } from './backchannel-logout-metadata.js';
import { postLogoutRedirectMetadataOf, type PostLogoutRedirectMetadata } from './post-logout-redirect-metadata.js';
import { InvalidClientMetadata, InvalidRegistrationRedirectUri } from './client-registration-errors.js';
import { drawsNothing, formatCharacterIn } from '../../format-characters.js';
import { displayUriProblem, redirectUriVerdict, type ApplicationType } from './client-registration-uris.js';
import { isWellFormedScopeParam, parseScopes } from '../../scopes.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type SubjectType, type TokenEndpointAuthMethod } from '../application-store.js';
import { SUBJECT_TYPES } from '../../openid/subject.js';
import { sectorIdentifierUriOf } from './sector-identifier.js';
import { requestSecurityMetadataOf, type RequestSecurityMetadata } from './request-security-metadata.js';
import { REFRESH_TOKENS_VALUES, type RefreshTokensValue } from '../refresh-token-setting.js';
import { shownJson } from '../../json-nesting.js';
import { UNSTORABLE_TEXT, unstorableText } from '../../storable-text.js';
import { signedResponseMetadataOf, type SignedResponseMetadata } from './signed-response-metadata.js';

// RFC 7591 section 2: the client metadata this server understands, validated in order, the first failing rule
// deciding (section 3.2.2). Anything else is ignored (section 2: the server MUST ignore metadata it does not
// understand). Every value is bounded: nothing a client sends can make a row or the consent screen unbounded.

// RFC 9700 section 2.1.2: no implicit grant; the password grant is for clients an admin vetted (config's list).
export { REGISTRABLE_GRANT_TYPES };
export const APPLICATION_TYPES = ['web', 'native'] as const;
export const MAX_REDIRECT_URIS = 20;
export const MAX_CONTACTS = 10;
const MAX_TEXT = 255;
const DISPLAY_URIS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const;
type DisplayUri = (typeof DISPLAY_URIS)[number];

export interface ClientMetadata
  extends
    Partial<Record<DisplayUri, string>>,
    BackchannelLogoutMetadata,
    PostLogoutRedirectMetadata,
    RequestSecurityMetadata,
    SignedResponseMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  grant_types: string[];
  response_types: string[];
  application_type: ApplicationType;
  client_name?: string;
  scope?: string;
  contacts?: string[];
  software_id?: string;
  software_version?: string;
  /** OpenID Connect Registration 1.0 section 2 (Core 8): public unless the client asks for pairwise. */
  subject_type: SubjectType;
  sector_identifier_uri?: string;
  /** This server's extension (issue 31 item 1): always, or offline_access (OpenID Connect Core 11); default always. */
  refresh_tokens: RefreshTokensValue;
  /** RFC 7591 section 2 (issue 34): a private_key_jwt client's public keys, inline or by reference. */
  jwks?: Record<string, unknown>;
  jwks_uri?: string;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A pragmatic address check (RFC 5322's full grammar is not needed to show a contact): local@domain.tld.
const EMAIL_LIKE = /^[^\s@<>()[\]",;:\\]{1,64}@[^\s@<>()[\]",;:\\]+\.[^\s@<>()[\]",;:\\.]+$/;

function stringList(value: unknown, name: string, max: number, error = InvalidClientMetadata): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new error(`${name} must be an array of strings.`);
  if (value.length > max) throw new error(`${name} may hold at most ${max} values.`);
  return value as string[];
}

function text(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidClientMetadata(`${name} must be a string.`);
  if (value.length > MAX_TEXT) throw new InvalidClientMetadata(`${name} is too long (maximum is ${MAX_TEXT} characters).`);
  if (CONTROL.test(value) || drawsNothing(value)) throw new InvalidClientMetadata(`${name} must not be blank or hold control characters.`);
  // Issue 29 item 10: a format character makes the text read as something else on the consent screen.
  const format = formatCharacterIn(value);
  if (format !== null) throw new InvalidClientMetadata(`${name} must not hold invisible formatting characters (${format}).`);
  return value;
}

const oneOf = <T extends string>(value: unknown, name: string, allowed: readonly T[]): T | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw new InvalidClientMetadata(`${name}: ${shownJson(value)} is not supported.`);
  return value as T;
};

type Allowance = ReturnType<typeof operatorAllowance>;

const USER_GRANTS = ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'];

/** RFC 7591 section 2 and 2.1: the grant types, and the response types they imply (code with authorization_code). */
function grantsOf(body: Record<string, unknown>, config: OAuthDeps['config'], allowance: Allowance) {
  const grantTypes = [...new Set(stringList(body.grant_types, 'grant_types', 10) ?? ['authorization_code'])];
  if (grantTypes.length === 0) throw new InvalidClientMetadata('grant_types must name at least one grant type.');
  for (const grant of grantTypes) {
    // A grant the server serves (its discovery lists it) but no self-registered client may use is not "unsupported".
    if (!(REGISTRABLE_GRANT_TYPES as readonly string[]).includes(grant))
      throw new InvalidClientMetadata(
        (config.grantFlows as readonly string[]).includes(grant)
          ? `grant_types: ${grant} is not allowed for clients that register themselves here: an admin registers clients that use it.`
          : `grant_types: ${grant} is not supported.`,
      );
    if (grant !== 'refresh_token' && !(config.grantFlows as readonly string[]).includes(grant))
      throw new InvalidClientMetadata(`grant_types: ${grant} is not enabled on this server.`);
    // RFC 7591 section 3.2.2: more than the operator allows is refused, never silently narrowed (issue 29).
    const problem = grantTypeProblem(grant, allowance);
    if (problem !== null) throw new InvalidClientMetadata(`${problem}.`);
  }
  // A refresh token is only ever issued with an authorization code or a device code here (a user's grants).
  if (grantTypes.includes('refresh_token') && !grantTypes.some((grant) => USER_GRANTS.includes(grant)))
    throw new InvalidClientMetadata(`grant_types: refresh_token goes with ${USER_GRANTS.join(' or ')}.`);
  const implied = grantTypes.includes('authorization_code') ? ['code'] : [];
  const responseTypes = [...new Set(stringList(body.response_types, 'response_types', 10) ?? implied)];
  for (const type of responseTypes) if (type !== 'code') throw new InvalidClientMetadata(`response_types: ${type} is not supported.`);
  // RFC 7591 section 2.1: the code response type goes with the authorization_code grant, and only with it.
  if (responseTypes.length !== implied.length)
    throw new InvalidClientMetadata('grant_types and response_types are inconsistent: code goes with authorization_code.');
  return { grantTypes, responseTypes };
}

/**
 * OpenID Connect Registration section 2: application_type. A client that leaves it out is native when one of its
 * redirect URIs is one only a native client may use (loopback http, a private-use scheme): MCP clients do not send
 * it, and they are desktop or command-line apps. An explicit "web" client gets https redirect URIs only.
 */
function redirectsOf(body: Record<string, unknown>, grantTypes: string[]) {
  const declared = oneOf(body.application_type, 'application_type', APPLICATION_TYPES);
  // RFC 7591 section 2 lets the server replace a requested value, and section 3.2.1 answers what was stored: a URI
  // listed twice is kept once, in the order first given, as grant_types and response_types are. Matching is exact
  // (redirect-uri.ts), so the copy means nothing, and the admin's form and the CLI do not refuse one either.
  const listed = stringList(body.redirect_uris, 'redirect_uris', MAX_REDIRECT_URIS, InvalidRegistrationRedirectUri) ?? [];
  const redirectUris = [...new Set(listed)];
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0)
    throw new InvalidRegistrationRedirectUri('redirect_uris is required for the authorization_code grant.');
  let needsNative = false;
  for (const uri of redirectUris) {
    const verdict = redirectUriVerdict(uri);
    if ('problem' in verdict) throw new InvalidRegistrationRedirectUri(verdict.problem);
    if (verdict.needs === 'native' && declared === 'web')
      throw new InvalidRegistrationRedirectUri(`${uri}: a web client may register https redirect URIs only.`);
    needsNative ||= verdict.needs === 'native';
  }
  return { redirectUris, applicationType: declared ?? (needsNative ? 'native' : 'web') };
}

/**
 * RFC 7591 section 2: the scopes the client will ask for, each one the server offers and the operator allows
 * (issue 29: a stranger's client never holds more, and is told which scope it may not have). An empty scope is no
 * scope (clients send the metadata's scopes_supported joined, which may be empty).
 */
function scopeOf(value: unknown, config: OAuthDeps['config'], allowance: Allowance): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 1000)
    throw new InvalidClientMetadata('scope must be a string of at most 1000 characters.');
  // RFC 6749 section 3.3: scope tokens separated by spaces.
  if (!isWellFormedScopeParam(value)) throw new InvalidClientMetadata('scope must be scope tokens separated by spaces.');
  const problem = scopeProblem(parseScopes(value), config, allowance);
  if (problem !== null) throw new InvalidClientMetadata(`${problem}.`);
  return value;
}

function contactsOf(value: unknown): string[] | undefined {
  const contacts = stringList(value, 'contacts', MAX_CONTACTS);
  for (const contact of contacts ?? []) {
    const format = formatCharacterIn(contact);
    if (format !== null) throw new InvalidClientMetadata(`contacts must not hold invisible formatting characters (${format}).`);
    if (contact.length > 254 || !EMAIL_LIKE.test(contact) || CONTROL.test(contact))
      throw new InvalidClientMetadata('contacts must be e-mail addresses.');
  }
  return contacts;
}

/**
 * Validates the request's metadata (RFC 7591 sections 2 and 3.2.2) and fills the defaults. `extras`: what the
 * operator allows this registration beyond the policy (its initial access token's, or the registered client's).
 */
export function validateClientMetadata(body: Record<string, unknown>, config: OAuthDeps['config'], extras: OperatorExtras): ClientMetadata {
  const allowance = operatorAllowance(config, extras);
  const { grantTypes, responseTypes } = grantsOf(body, config, allowance);
  const authMethod =
    oneOf(body.token_endpoint_auth_method, 'token_endpoint_auth_method', TOKEN_ENDPOINT_AUTH_METHODS) ?? 'client_secret_basic';
  // RFC 6749 section 4.4: the client credentials grant is for confidential clients only.
  if (authMethod === 'none' && grantTypes.includes('client_credentials'))
    throw new InvalidClientMetadata('client_credentials needs a confidential client (token_endpoint_auth_method other than none).');
  const { redirectUris, applicationType } = redirectsOf(body, grantTypes);
  // After the redirect URIs, which have an error of their own (invalid_redirect_uri).
  if (unstorableText(body) !== null) throw new InvalidClientMetadata(`Client metadata ${UNSTORABLE_TEXT}.`);
  const clientName = text(body.client_name, 'client_name');
  const scope = scopeOf(body.scope, config, allowance);
  const displayUris: Partial<Record<DisplayUri, string>> = {};
  for (const name of DISPLAY_URIS) {
    const value = body[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new InvalidClientMetadata(`${name} must be a string.`);
    const problem = displayUriProblem(name, value);
    if (problem !== null) throw new InvalidClientMetadata(problem);
    displayUris[name] = value;
  }
  const contacts = contactsOf(body.contacts);
  const softwareId = text(body.software_id, 'software_id');
  const softwareVersion = text(body.software_version, 'software_version');
  const backchannelLogout = backchannelLogoutMetadataOf(body, config, authMethod !== 'none');
  const postLogoutRedirects = postLogoutRedirectMetadataOf(body, config, applicationType);
  // Registration 1.0 section 2's subject metadata while OpenID Connect is on; off, metadata this server does not act
  // on, ignored (RFC 7591 section 2) as the back-channel logout fields are: no sector_identifier_uri fetched, no
  // refusal of pairwise (issue 31 item 7: the wire behaviour with OpenID Connect off is unchanged).
  const openid = config.openid.enabled;
  const subjectType = (openid && oneOf(body.subject_type, 'subject_type', SUBJECT_TYPES)) || 'public';
  const sectorIdentifierUri = openid ? sectorIdentifierUriOf(body.sector_identifier_uri) : undefined;
  const refreshTokens = oneOf(body.refresh_tokens, 'refresh_tokens', REFRESH_TOKENS_VALUES) ?? 'always';
  const keys = clientKeysOf(body);
  const signedResponses = signedResponseMetadataOf(body, config);
  const requestSecurity = requestSecurityMetadataOf(body, { tokenEndpointAuthMethod: authMethod, grantTypes, signedResponses });
  return {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: responseTypes,
    application_type: applicationType,
    subject_type: subjectType,
    ...(sectorIdentifierUri !== undefined && { sector_identifier_uri: sectorIdentifierUri }),
    refresh_tokens: refreshTokens,
    ...(clientName !== undefined && { client_name: clientName }),
    ...(scope !== undefined && { scope }),
    ...displayUris,
    ...(contacts !== undefined && { contacts }),
    ...(softwareId !== undefined && { software_id: softwareId }),
    ...(softwareVersion !== undefined && { software_version: softwareVersion }),
    ...backchannelLogout,
    ...postLogoutRedirects,
    ...keys,
    ...signedResponses,
    ...requestSecurity,
  };
}

// RFC 7591 section 2: jwks is a JSON object, jwks_uri a string; client-authentication-setting.ts checks the rest
// (checkAdminRules), the rules of the admin's form.
function clientKeysOf(body: Record<string, unknown>): Pick<ClientMetadata, 'jwks' | 'jwks_uri'> {
  const { jwks, jwks_uri: jwksUri } = body;
  if (jwks !== undefined && (typeof jwks !== 'object' || jwks === null || Array.isArray(jwks)))
    throw new InvalidClientMetadata('jwks must be a JSON object (a JWK Set).');
  if (jwksUri !== undefined && typeof jwksUri !== 'string') throw new InvalidClientMetadata('jwks_uri must be a string.');
  return {
    ...(jwks !== undefined && { jwks: jwks as Record<string, unknown> }),
    ...(jwksUri !== undefined && { jwks_uri: jwksUri }),
  };
}
