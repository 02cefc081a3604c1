import { readFileSync } from 'node:fs';
import type { ClientAuthenticationFields } from '../oauth/clients/client-authentication-setting.js';
import { UsageError } from './io.js';

// The apps options of client authentication (issue 34): --token-endpoint-auth-method, and a private_key_jwt
// client's public keys, --jwks-uri URL or --jwks-file PATH (a JWK Set in a file, read here; "" clears either).

export const CLIENT_AUTHENTICATION_OPTIONS = {
  'token-endpoint-auth-method': { type: 'string' },
  'jwks-uri': { type: 'string' },
  'jwks-file': { type: 'string' },
} as const;

export const CLIENT_AUTHENTICATION_HELP = `Client authentication options (RFC 7591 section 2; "" clears one):
  --token-endpoint-auth-method client_secret_basic|client_secret_post|private_key_jwt|client_secret_jwt|none
      how the client proves itself at the token, revocation and introspection endpoints (default: the secret,
      Basic or in the body; none for --public). private_key_jwt (a JWT signed with the client's key, RFC 7523)
      needs --jwks-uri or --jwks-file and has no secret (none is issued; switching back to a secret method issues
      one); client_secret_jwt (HS256 with the secret) needs hashApplicationSecrets false. A client set to a JWT
      method cannot use its secret directly.
  --jwks-uri URL            where the client's public keys (a JWK Set) are fetched, https
  --jwks-file PATH          a file holding the client's public keys (a JWK Set, JSON), stored with the client
`;

/** The options given as the domain's fields; one not given stays undefined (create: none; update: unchanged). */
export function clientAuthenticationSettings(values: {
  'token-endpoint-auth-method'?: string | undefined;
  'jwks-uri'?: string | undefined;
  'jwks-file'?: string | undefined;
}): ClientAuthenticationFields {
  return {
    tokenEndpointAuthMethod: values['token-endpoint-auth-method'],
    jwksUri: values['jwks-uri'],
    jwks: jwksFrom(values['jwks-file']),
  };
}

function jwksFrom(path: string | undefined): string | undefined {
  if (path === undefined || path === '') return path;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--jwks-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
