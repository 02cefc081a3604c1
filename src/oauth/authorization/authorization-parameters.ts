// The parameters of an authorization request (RFC 6749 sections 4.1.1 and 4.2.1) as read from the query or
// form: what the context, the rules and the request validation all look at.

export type ResponseType = 'code' | 'token';
/** How the response reaches the client; the `.jwt` ones (JARM) carry it as one signed `response` parameter. */
export type ResponseMode = 'query' | 'fragment' | 'form_post' | 'query.jwt' | 'fragment.jwt' | 'form_post.jwt';

/**
 * Reference 2.1's keys, and OpenID Connect Core 3.1.2.1's (read only while openid.enabled): the only keys an
 * authorization request is made of; anything else is ignored, as Core requires of unknown parameters.
 */
export const AUTHORIZATION_PARAMETER_NAMES = [
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'prompt',
  'max_age',
  'login_hint',
  'id_token_hint',
  'display',
  'ui_locales',
  'claims_locales',
  'acr_values',
  'claims',
  'request',
  'request_uri',
  // OpenID Connect Core 7.2.1: read only to be refused (registration_not_supported, openid-request.ts).
  'registration',
  'resource',
  'dpop_jkt',
  'authorization_details',
] as const;
export type AuthorizationParameterName = (typeof AUTHORIZATION_PARAMETER_NAMES)[number];

export interface AuthorizationParameters {
  /** Each parameter sent exactly once, as a string. */
  values: Partial<Record<AuthorizationParameterName, string>>;
  /** RFC 8707 `resource`, the one parameter that may be sent more than once; in the order sent. */
  resources: string[];
  /** Parameters sent more than once or not as a plain string (RFC 6749 section 3.1: MUST NOT repeat). */
  malformed: AuthorizationParameterName[];
  /**
   * RFC 9126: a pushed request. `requestUri`: the request_uri /oauth/authorize read these parameters from; null at
   * POST /oauth/par, where they are being pushed. Absent: sent directly to /oauth/authorize.
   */
  pushed?: { requestUri: string | null };
  /**
   * RFC 9101: these parameters are a verified signed request object's (request-object.ts), sent here or at PAR, so
   * require_signed_request_object is met. Absent: sent plainly.
   */
  signed?: true;
}

/** The query (GET) or form body (POST) as parsed by the HTTP layer. */
export function readAuthorizationParameters(source: unknown): AuthorizationParameters {
  const values: AuthorizationParameters['values'] = {};
  const malformed: AuthorizationParameterName[] = [];
  const input = typeof source === 'object' && source !== null ? (source as Record<string, unknown>) : {};
  const resource = Object.hasOwn(input, 'resource') ? input.resource : undefined;
  const resources =
    typeof resource === 'string' ? [resource] : Array.isArray(resource) ? resource.filter((item) => typeof item === 'string') : [];
  if (resource !== undefined && resources.length !== (Array.isArray(resource) ? resource.length : 1)) malformed.push('resource');
  for (const name of AUTHORIZATION_PARAMETER_NAMES) {
    if (!Object.hasOwn(input, name) || name === 'resource') continue;
    const value = input[name];
    if (typeof value === 'string') values[name] = value;
    else malformed.push(name);
  }
  return { values, resources, malformed };
}

/**
 * The first parameter whose value holds a NUL, or null. RFC 6749 appendix A leaves NUL out of every parameter's
 * characters, and PostgreSQL text cannot store one: a NUL in a value that is stored with the code (the nonce) made
 * the approval fail with a 500 (SPEC 3: no input does).
 */
export function parameterHoldingNul(parameters: AuthorizationParameters): AuthorizationParameterName | null {
  if (parameters.resources.some((resource) => resource.includes('\u0000'))) return 'resource';
  const found = Object.entries(parameters.values).find(([, value]) => value.includes('\u0000'));
  return found ? (found[0] as AuthorizationParameterName) : null;
}
