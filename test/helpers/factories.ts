import { createApplication, type ApplicationFields } from '../../src/oauth/clients/applications.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { generateSecret, storedForm } from '../../src/oauth/secrets.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { issueAccessToken, type IssuedToken, type TokenRequest } from '../../src/oauth/tokens/token-issuer.js';

// Small factories for test data, all through the domain so rows look exactly like production's.

let counter = 0;

export interface TestClient {
  application: ApplicationRecord;
  /** The plain secret; null for a public client. */
  secret: string | null;
  uid: string;
}

export async function createClient(deps: OAuthDeps, fields: Partial<ApplicationFields> = {}): Promise<TestClient> {
  counter += 1;
  const { application, plainSecret } = await createApplication(deps, {
    name: `Application ${counter}`,
    redirectUri: 'https://app.example.com/callback',
    scopes: '',
    confidential: true,
    ...fields,
  });
  return { application, secret: plainSecret, uid: application.uid };
}

/**
 * The settings an application has until someone chooses others (createApplication's defaults on the default config),
 * as the admin JSON API and `apps show --json` print them.
 */
export const DEFAULT_APPLICATION_SETTINGS_JSON = {
  post_logout_redirect_uris: [],
  backchannel_logout_uri: null,
  backchannel_logout_session_required: false,
  id_token_signed_response_alg: null,
  userinfo_signed_response_alg: null,
  access_token_format: 'opaque',
  dpop_bound_access_tokens: false,
  require_pushed_authorization_requests: false,
  require_signed_request_object: false,
  request_object_signing_alg: null,
  authorization_signed_response_alg: null,
  profile: 'none',
  subject_type: 'public',
  sector_identifier_uri: null,
  refresh_tokens: 'always',
  grant_types: [],
  token_endpoint_auth_signing_alg: null,
};

export async function createUser(
  deps: OAuthDeps,
  username = `user${++counter}`,
  password = 'correct horse battery',
): Promise<UserRecord & { password: string }> {
  const user = await deps.stores.userAdmin.create({ username, passwordHash: await deps.passwords.hash(password) });
  return { ...user, password };
}

export async function issueToken(
  deps: OAuthDeps,
  request: Partial<TokenRequest> & { application: ApplicationRecord | null },
): Promise<IssuedToken> {
  return issueAccessToken(deps, {
    resourceOwnerId: null,
    scopes: ['read'],
    grantType: 'client_credentials',
    withRefreshToken: false,
    ...request,
  });
}

/**
 * An access token made outside the issuer (a JWT the test signed, random bytes) stored as the issuer stores one:
 * 900 s, scope read, no resource owner, held for these resources (the audience introspection answers as aud).
 */
export function storeAccessToken(deps: OAuthDeps, application: ApplicationRecord, token: string, audience: string[]) {
  return deps.stores.accessTokens.create({
    applicationId: application.id,
    resourceOwnerId: null,
    token: storedForm(token, deps.config.hashTokens),
    refreshToken: null,
    expiresIn: 900,
    scopes: ['read'],
    createdAt: deps.now(),
    accessGrantId: null,
    refreshFamily: null,
    audience,
  });
}

export interface TestGrant {
  code: string;
  redirectUri: string;
}

/** An authorization code as the authorize endpoint would issue it. */
export async function createCode(
  deps: OAuthDeps,
  options: {
    application: ApplicationRecord;
    resourceOwnerId: number;
    scopes?: string[];
    redirectUri?: string;
    codeChallenge?: string | null;
    codeChallengeMethod?: string | null;
    createdAt?: Date;
  },
): Promise<TestGrant> {
  const code = generateSecret();
  const redirectUri = options.redirectUri ?? options.application.redirectUris[0]!;
  await deps.stores.accessGrants.create({
    applicationId: options.application.id,
    resourceOwnerId: options.resourceOwnerId,
    token: storedForm(code, deps.config.hashTokens),
    expiresIn: deps.config.authorizationCodeExpiresIn,
    redirectUri,
    scopes: options.scopes ?? ['read'],
    createdAt: options.createdAt ?? deps.now(),
    codeChallenge: options.codeChallenge ?? null,
    codeChallengeMethod: options.codeChallengeMethod ?? null,
  });
  return { code, redirectUri };
}
