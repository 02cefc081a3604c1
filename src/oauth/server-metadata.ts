import type { Config } from '../config/types.js';

/**
 * RFC 8414 section 2: what this server supports, derived from the config so it never claims more than it
 * does. The issuer is baseUrl, the same value as the RFC 9207 `iss` of authorization responses.
 */
export function authorizationServerMetadata(config: Readonly<Config>): Record<string, unknown> {
  const base = config.baseUrl.replace(/\/+$/, '');
  const flows = config.grantFlows;
  const redirectFlows = flows.includes('authorization_code') || flows.includes('implicit');
  const clientAuthMethods = ['client_secret_basic', 'client_secret_post', 'none'];
  return {
    issuer: base,
    ...(redirectFlows && { authorization_endpoint: `${base}/oauth/authorize` }),
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    ...(config.openid.enabled && { jwks_uri: `${base}/oauth/jwks` }),
    ...(config.introspection.enabled && { introspection_endpoint: `${base}/oauth/introspect` }),
    scopes_supported: [...config.defaultScopes, ...config.optionalScopes],
    response_types_supported: [...(flows.includes('authorization_code') ? ['code'] : []), ...(flows.includes('implicit') ? ['token'] : [])],
    response_modes_supported: responseModes(flows),
    // RFC 7591 section 2 grant type values, which include "implicit".
    grant_types_supported: [...flows],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    // SPEC 3.3: HTTP Basic or a Bearer access token, nothing else.
    ...(config.introspection.enabled && { introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer'] }),
    ...(redirectFlows && { code_challenge_methods_supported: [...config.pkce.methods] }),
    authorization_response_iss_parameter_supported: redirectFlows,
  };
}

function responseModes(flows: readonly string[]): string[] {
  const modes = new Set<string>();
  if (flows.includes('authorization_code')) ['query', 'fragment', 'form_post'].forEach((mode) => modes.add(mode));
  if (flows.includes('implicit')) ['fragment', 'form_post'].forEach((mode) => modes.add(mode));
  return [...modes];
}
