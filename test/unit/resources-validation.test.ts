import { describe, expect, it } from 'vitest';
import { JWT_NEEDS_KEYS } from '../../src/oauth/tokens/access-token-format.js';
import { openIdSettingsErrors, storedOpenIdSettings } from '../../src/oauth/clients/application-openid-settings.js';
import {
  firstFailure,
  LIFETIME_RULES,
  NAME_RULES,
  resourceFieldErrors,
  SCOPE_RULES,
  SERVER_CLIENT_ID_RULES,
  TOKEN_FORMAT_RULES,
  URI_RULES,
  type ResourceFields,
  type ResourceRule,
} from '../../src/oauth/resources/resource-validation.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';

// The rules of a registered resource (issue 17, RFC 8707), each by name: the first failing rule of a field decides.

type Config = OAuthDeps['config'];
const config = (overrides: Partial<Config> = {}) =>
  ({
    forceSslInRedirectUri: true,
    defaultScopes: ['read'],
    optionalScopes: ['write', 'admin'],
    openid: { enabled: false, idTokenExpiresIn: 3600 },
    ...overrides,
  }) as Config;

const failing = (rules: ResourceRule[], value: string, settings = config()) => firstFailure(rules, value, settings)?.name ?? null;
const VALID: ResourceFields = {
  uri: 'https://api.example.com',
  name: 'API',
  scopes: 'read write',
  tokenFormat: 'opaque',
  accessTokenLifetime: '900',
  serverClientId: '',
};

describe('resource URI rules', () => {
  it('accept absolute URIs: https with a path, query or port, loopback http, a URN', () => {
    for (const uri of [
      'https://api.example.com',
      'https://api.example.com/v1/',
      'https://api.example.com:8443/v1?tenant=a',
      'http://127.0.0.1:8080/api',
      'http://[::1]/api',
      'urn:example:billing-api',
    ]) {
      expect(failing(URI_RULES, uri), uri).toBeNull();
    }
  });

  it('name the first rule each bad URI breaks', () => {
    const cases: Array<[string, string]> = [
      ['', 'present'],
      [`https://api.example.com/${'a'.repeat(2000)}`, 'not too long'],
      ['https://api.example.com/<v1>', 'URI characters'],
      ['https://api.example.com/ä', 'URI characters'],
      ['api.example.com', 'absolute'],
      ['/v1', 'absolute'],
      ['//api.example.com/v1', 'absolute'],
      ['javascript:alert(1)', 'no script scheme'],
      ['data:text/html,x', 'no script scheme'],
      ['https://api.example.com/#', 'no fragment'],
      ['https://api.example.com/v1#x', 'no fragment'],
      ['https:///v1', 'http has a host'],
      ['https:api', 'http has a host'],
      ['http://api.example.com', 'https unless loopback'],
      ['http://localhost:3000', 'https unless loopback'],
    ];
    for (const [uri, rule] of cases) expect(failing(URI_RULES, uri), uri).toBe(rule);
  });

  it('allow http anywhere when forceSslInRedirectUri is false, like redirect URIs', () => {
    const relaxed = config({ forceSslInRedirectUri: false });
    expect(failing(URI_RULES, 'http://api.internal', relaxed)).toBeNull();
    expect(failing(URI_RULES, 'http://localhost:3000', relaxed)).toBeNull();
  });

  it('accept exactly 2,000 characters', () => {
    const uri = `https://api.example.com/${'a'.repeat(2000 - 24)}`;
    expect(uri).toHaveLength(2000);
    expect(failing(URI_RULES, uri)).toBeNull();
    expect(failing(URI_RULES, `${uri}a`)).toBe('not too long');
  });
});

describe('resource scope rules', () => {
  it('take server scopes separated by spaces (defaultScopes and optionalScopes)', () => {
    expect(failing(SCOPE_RULES, 'read')).toBeNull();
    expect(failing(SCOPE_RULES, '  write   admin read ')).toBeNull();
  });

  it('refuse no scope, a malformed scope token, and a scope the server does not have', () => {
    expect(failing(SCOPE_RULES, '')).toBe('present');
    expect(failing(SCOPE_RULES, '   ')).toBe('present');
    expect(failing(SCOPE_RULES, 'read "write"')).toBe('scope tokens');
    expect(failing(SCOPE_RULES, 'read wr\\ite')).toBe('scope tokens');
    expect(failing(SCOPE_RULES, 'léger')).toBe('scope tokens');
    expect(failing(SCOPE_RULES, 'read delete')).toBe('server scopes');
  });

  it('name the unknown scopes and the server scopes in the message', () => {
    expect(resourceFieldErrors({ ...VALID, scopes: 'read delete purge' }, config()).scopes).toEqual([
      'Scopes has "delete", "purge", which are not scopes of this server (defaultScopes and optionalScopes: read write admin)',
    ]);
    expect(resourceFieldErrors({ ...VALID, scopes: 'delete' }, config()).scopes).toEqual([
      'Scopes has "delete", which is not a scope of this server (defaultScopes and optionalScopes: read write admin)',
    ]);
  });
});

describe('token format, lifetime, name and server client rules', () => {
  it('opaque always; jwt only with signing keys (openid.enabled); blank means opaque', () => {
    expect(failing(TOKEN_FORMAT_RULES, 'opaque')).toBeNull();
    expect(failing(TOKEN_FORMAT_RULES, '')).toBeNull();
    expect(failing(TOKEN_FORMAT_RULES, 'jwt')).toBe('opaque or jwt, with signing keys');
    expect(failing(TOKEN_FORMAT_RULES, 'jwt', config({ openid: { ...config().openid, enabled: true } }))).toBeNull();
    expect(resourceFieldErrors({ ...VALID, tokenFormat: 'jwt' }, config()).token_format).toEqual([JWT_NEEDS_KEYS]);
    expect(resourceFieldErrors({ ...VALID, tokenFormat: 'JWT' }, config()).token_format).toEqual([
      'Token format must be opaque or jwt, not "JWT"',
    ]);
  });

  it('a lifetime is 60 to 86400 whole seconds, or empty for the server default', () => {
    for (const lifetime of ['', '60', '900', '86400']) expect(failing(LIFETIME_RULES, lifetime), lifetime).toBeNull();
    for (const lifetime of ['59', '86401', '0', '-60', '1.5', '9e2', '15m', '0x3c', '1000000']) {
      expect(failing(LIFETIME_RULES, lifetime), lifetime).toBe('seconds in range, or empty');
    }
  });

  it('a name is optional, at most 255 characters, without NUL', () => {
    expect(failing(NAME_RULES, '')).toBeNull();
    expect(failing(NAME_RULES, '<script>alert(1)</script>')).toBeNull();
    expect(failing(NAME_RULES, 'a'.repeat(256))).toBe('not too long');
    expect(failing(NAME_RULES, 'a\u0000b')).toBe('no NUL');
  });

  it('a server client ID is empty or has the form of a client_id (whether it exists is asked of the store)', () => {
    expect(failing(SERVER_CLIENT_ID_RULES, '')).toBeNull();
    expect(failing(SERVER_CLIENT_ID_RULES, 'abc_DEF-123')).toBeNull();
    expect(failing(SERVER_CLIENT_ID_RULES, 'has space')).toBe('a client_id');
    expect(failing(SERVER_CLIENT_ID_RULES, 'x'.repeat(256))).toBe('a client_id');
  });
});

describe('resourceFieldErrors', () => {
  it('is empty for valid fields and reports one message per field, in form order, surrounding spaces ignored', () => {
    expect(resourceFieldErrors(VALID, config())).toEqual({});
    expect(resourceFieldErrors({ ...VALID, uri: '  https://api.example.com  ', tokenFormat: ' opaque ' }, config())).toEqual({});
    const errors = resourceFieldErrors(
      { uri: 'http://api.example.com#x', name: '', scopes: '', tokenFormat: 'xml', accessTokenLifetime: '5', serverClientId: 'a b' },
      config(),
    );
    expect(Object.keys(errors)).toEqual(['uri', 'scopes', 'token_format', 'access_token_lifetime', 'server_client_id']);
    expect(errors.uri).toEqual(['URI cannot contain a fragment.']);
  });
});

describe("applications' access token format", () => {
  const formatErrors = (accessTokenFormat: string | undefined, openidEnabled?: boolean) =>
    openIdSettingsErrors({ accessTokenFormat }, { forceSsl: true, ...(openidEnabled !== undefined && { openidEnabled }) });

  it('opaque or blank always; jwt with openid.enabled; not given is not checked', () => {
    expect(formatErrors('opaque')).toEqual([]);
    expect(formatErrors('')).toEqual([]);
    expect(formatErrors(undefined)).toEqual([]);
    expect(formatErrors('jwt', true)).toEqual([]);
  });

  it('jwt without signing keys, and anything else, are refused with the reason', () => {
    expect(formatErrors('jwt', false)).toEqual([['access_token_format', JWT_NEEDS_KEYS]]);
    expect(formatErrors('jwt')).toEqual([['access_token_format', JWT_NEEDS_KEYS]]);
    expect(formatErrors('paseto', true)).toEqual([['access_token_format', 'Access token format must be opaque or jwt, not "paseto"']]);
  });

  it('is stored only when given; blank stores opaque', () => {
    expect(storedOpenIdSettings({})).not.toHaveProperty('accessTokenFormat');
    expect(storedOpenIdSettings({ accessTokenFormat: 'jwt' })).toEqual({ accessTokenFormat: 'jwt' });
    expect(storedOpenIdSettings({ accessTokenFormat: '' })).toEqual({ accessTokenFormat: 'opaque' });
  });
});
