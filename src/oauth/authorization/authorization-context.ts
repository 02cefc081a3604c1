import type { GrantFlow } from '../../config/types.js';
import type { AuthorizationParameterName, AuthorizationParameters, ResponseMode, ResponseType } from './authorization-parameters.js';
import type { OAuthDeps } from '../deps.js';
import type { InvalidAuthorizationDetails, OAuthError } from '../errors.js';
import type { GrantedDetails } from '../resources/authorization-details.js';
import { heldDefaultScopes, heldScopes, holdsGrantType } from '../clients/client-holdings.js';
import { withoutIgnoredOfflineAccess } from '../openid/offline-access.js';
import { parseScopes } from '../scopes.js';
import type { ApplicationRecord, ResourceRecord } from '../store.js';

// What the authorization rules look at: the parameters, the application they name, the config, and the values
// derived from them (response mode, requested scopes, whether PKCE is required).

export interface AuthorizationContext {
  parameters: AuthorizationParameters;
  /** The application named by client_id, loaded once before the rules run; null when unknown or absent. */
  application: ApplicationRecord | null;
  /**
   * Why a client_id URL names no application (its Client ID Metadata Document was refused), in words for the error
   * page; null otherwise.
   */
  clientRefusal: string | null;
  /** The registered resources among those the request names (RFC 8707), loaded with the application. */
  resources: ResourceRecord[];
  /** RFC 9396: the authorization_details validated (none when not sent), or why they are invalid. */
  authorizationDetails: GrantedDetails | InvalidAuthorizationDetails;
  config: OAuthDeps['config'];
}

/** One check of the authorization endpoint (authorization-rules.ts, and the OpenID Connect ones of openid-request.ts). */
export interface AuthorizationRule {
  name: string;
  /**
   * RFC 6749 section 4.1.2.1: until client and redirect URI are verified the server MUST NOT redirect; errors
   * of later rules go to the client (SPEC 8: also on GET).
   */
  redirectable: boolean;
  check(context: AuthorizationContext): boolean;
  error(context: AuthorizationContext): OAuthError;
}

// Reference section 3: the response modes of each response type, the default first.
const RESPONSE_MODES: Record<ResponseType, readonly ResponseMode[]> = {
  code: ['query', 'fragment', 'form_post'],
  token: ['fragment', 'form_post'],
};
// JARM (JWT Secured Authorization Response Mode) section 2.3, signed with the keys OpenID Connect has, so offered
// only with it on; `jwt` names the response type's default, the first. Section 2.3.1: query.jwt never carries an
// access token, as the response is not encrypted.
const JWT_RESPONSE_MODES: Record<ResponseType, readonly ResponseMode[]> = {
  code: ['query.jwt', 'fragment.jwt', 'form_post.jwt'],
  token: ['fragment.jwt', 'form_post.jwt'],
};
const FLOW_OF: Record<ResponseType, GrantFlow> = { code: 'authorization_code', token: 'implicit' };

export const value = (context: AuthorizationContext, name: AuthorizationParameterName) => context.parameters.values[name];
export const present = (context: AuthorizationContext, name: AuthorizationParameterName) => (value(context, name) ?? '').trim() !== '';
export const knownResponseType = (context: AuthorizationContext): ResponseType | null => {
  const type = value(context, 'response_type');
  return type === 'code' || type === 'token' ? type : null;
};
export const isCodeRequest = (context: AuthorizationContext) => value(context, 'response_type') === 'code';

/** Whether the client may use the flow of this response type (client-holdings.ts: a self-registered client only its own). */
export function holdsResponseType(context: AuthorizationContext): boolean {
  const type = knownResponseType(context);
  return type !== null && holdsGrantType(context.application, FLOW_OF[type], context.config);
}

export function enabledResponseTypes(config: OAuthDeps['config']): ResponseType[] {
  return (Object.keys(FLOW_OF) as ResponseType[]).filter((type) => config.grantFlows.includes(FLOW_OF[type]));
}

/** The response modes a response type may use here, its default first. */
export function responseModesFor(type: ResponseType, config: AuthorizationContext['config']): readonly ResponseMode[] {
  return config.openid.enabled ? [...RESPONSE_MODES[type], ...JWT_RESPONSE_MODES[type]] : RESPONSE_MODES[type];
}

/** The response_mode parameter with JARM's `jwt` read as the response type's default JWT mode (code's when unknown). */
function requestedResponseMode(context: AuthorizationContext): string {
  const requested = value(context, 'response_mode') ?? '';
  return requested === 'jwt' ? JWT_RESPONSE_MODES[knownResponseType(context) ?? 'code'][0]! : requested;
}

/** The response mode of a request with a known response type: the default when blank, null when unsupported. */
export function responseModeOf(context: AuthorizationContext): ResponseMode | null {
  const type = knownResponseType(context);
  if (type === null) return null;
  const modes = responseModesFor(type, context.config);
  if (!present(context, 'response_mode')) return modes[0]!;
  const requested = requestedResponseMode(context);
  return modes.find((mode) => mode === requested) ?? null;
}

/** How an error reaches the client: the requested mode when it fits, else the response type's default (reference 4.5). */
export function errorResponseMode(context: AuthorizationContext): ResponseMode {
  const type = knownResponseType(context);
  const requested = requestedResponseMode(context);
  // An unknown response type may still be answered in any mode code has (every mode there is).
  const allowed = responseModesFor(type ?? 'code', context.config);
  if (allowed.includes(requested as ResponseMode)) return requested as ResponseMode;
  return type === 'token' ? 'fragment' : 'query';
}

// Reference 8.2: what the client holds (client-holdings.ts), as at the token endpoint.
export function allowedScopes(context: AuthorizationContext): readonly string[] {
  return heldScopes(context.application, context.config);
}

/** The scopes asked for: the scope parameter, or the default scopes the client holds when it is blank (reference 4.2). */
export function askedScopes(context: AuthorizationContext): string[] {
  return present(context, 'scope') ? parseScopes(value(context, 'scope')) : heldDefaultScopes(context.application, context.config);
}

/** The scopes asked for, without offline_access where OpenID Connect Core 11 says to ignore it. */
export function requestedScopes(context: AuthorizationContext): string[] {
  return withoutIgnoredOfflineAccess(askedScopes(context), value(context, 'response_type'), context.config.openid.enabled);
}

// SPEC 3.5: PKCE is required of public clients, or of every client with pkce.required "all". It protects the
// code, so it applies to response_type=code only.
export function pkceRequired(context: AuthorizationContext): boolean {
  const { required } = context.config.pkce;
  return required === 'all' || (required === 'public' && context.application?.confidential === false);
}

/** The audience the request asks for: the resources it names (RFC 8707), and those its authorization_details are for. */
export function requestedAudience(context: AuthorizationContext): { uris: string[]; resources: ResourceRecord[] } {
  const detailResources = 'details' in context.authorizationDetails ? context.authorizationDetails.resources : [];
  const uris = [...new Set([...context.parameters.resources, ...detailResources.map((resource) => resource.uri)])];
  return { uris, resources: [...context.resources, ...detailResources] };
}
