import type { OAuthDeps } from './deps.js';
import { InvalidClientMetadata, InvalidRegistrationRedirectUri } from './client-registration-errors.js';
import { registrationErrors } from './redirect-uri.js';
import { isWellFormedScopeParam, parseScopes } from './scopes.js';

// RFC 7591 section 2: the client metadata this server understands. Anything else is ignored (section 2: the
// server MUST ignore metadata it does not understand).

export const REGISTRABLE_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;

export interface ClientMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method: (typeof AUTH_METHODS)[number];
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  scope?: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** RFC 8252 and RFC 9700 section 2.1: https, loopback http (any port), or a reverse-domain private-use scheme. */
function redirectUriProblem(uri: string): string | null {
  const [problem] = registrationErrors(uri, { forceSsl: false });
  if (problem !== undefined) return `${uri}: ${problem}`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri}: not an absolute URI`;
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return null;
  if (scheme === 'http') return LOOPBACK_HOSTS.has(url.hostname) ? null : `${uri}: http is for loopback only`;
  // RFC 8252 section 7.1: a private-use scheme is a reverse domain name (it contains a period).
  return scheme.includes('.') ? null : `${uri}: a private-use scheme must be a reverse domain name`;
}

const stringList = (value: unknown, name: string): string[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new InvalidClientMetadata(`${name} must be an array of strings.`);
  return value as string[];
};

const optionalString = (value: unknown, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidClientMetadata(`${name} must be a string.`);
  return value;
};

/** Validates the request's metadata, first failing rule deciding (RFC 7591 section 3.2.2), and fills defaults. */
export function validateClientMetadata(body: Record<string, unknown>, config: OAuthDeps['config']): ClientMetadata {
  const grantTypes = stringList(body.grant_types, 'grant_types') ?? ['authorization_code'];
  const responseTypes = stringList(body.response_types, 'response_types') ?? (grantTypes.includes('authorization_code') ? ['code'] : []);
  const authMethod = optionalString(body.token_endpoint_auth_method, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  const redirectUris = stringList(body.redirect_uris, 'redirect_uris') ?? [];
  const clientName = optionalString(body.client_name, 'client_name');
  const scope = optionalString(body.scope, 'scope');

  for (const grant of grantTypes) {
    if (!(REGISTRABLE_GRANT_TYPES as readonly string[]).includes(grant))
      throw new InvalidClientMetadata(`grant_types: ${grant} is not supported.`);
    if (grant !== 'refresh_token' && !(config.grantFlows as readonly string[]).includes(grant))
      throw new InvalidClientMetadata(`grant_types: ${grant} is not enabled on this server.`);
  }
  for (const type of responseTypes) if (type !== 'code') throw new InvalidClientMetadata(`response_types: ${type} is not supported.`);
  // RFC 7591 section 2.1: the code response type goes with the authorization_code grant, and only with it.
  if (responseTypes.includes('code') !== grantTypes.includes('authorization_code'))
    throw new InvalidClientMetadata('grant_types and response_types are inconsistent: code goes with authorization_code.');
  if (!(AUTH_METHODS as readonly string[]).includes(authMethod))
    throw new InvalidClientMetadata(`token_endpoint_auth_method: ${authMethod} is not supported.`);
  // RFC 6749 section 4.4: the client credentials grant is for confidential clients only.
  if (authMethod === 'none' && grantTypes.includes('client_credentials'))
    throw new InvalidClientMetadata('client_credentials needs a confidential client (token_endpoint_auth_method other than none).');

  if (grantTypes.includes('authorization_code') && redirectUris.length === 0)
    throw new InvalidRegistrationRedirectUri('redirect_uris is required for the authorization_code grant.');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw new InvalidRegistrationRedirectUri(problem);
  }

  if (clientName !== undefined) {
    if (clientName.length > 255) throw new InvalidClientMetadata('client_name is too long (maximum is 255 characters).');
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(clientName) || clientName.trim() === '')
      throw new InvalidClientMetadata('client_name must not be blank or hold control characters.');
  }
  if (scope !== undefined && scope !== '') {
    const serverScopes = new Set([...config.defaultScopes, ...config.optionalScopes]);
    if (!isWellFormedScopeParam(scope) || !parseScopes(scope).every((s) => serverScopes.has(s)))
      throw new InvalidClientMetadata('scope holds a scope this server does not offer.');
  }
  return {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: authMethod as ClientMetadata['token_endpoint_auth_method'],
    grant_types: grantTypes,
    response_types: responseTypes,
    ...(clientName !== undefined && { client_name: clientName }),
    ...(scope !== undefined && scope !== '' && { scope }),
  };
}
