import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/loader.js';
import { configSchema } from '../../src/config/schema.js';
import type { ConfigInput } from '../../src/config/types.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const root = join(import.meta.dirname, '../..');
const fixture = (name: string) => join(root, 'test/fixtures/config', name);

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

interface SchemaNode {
  type?: unknown;
  description?: unknown;
  properties?: Record<string, SchemaNode>;
  anyOf?: readonly SchemaNode[];
  oneOf?: readonly SchemaNode[];
}

/** Every key of the schema, nested ones too (docs: "config.example.json shows every key"), the example lacks. */
function keysMissingFrom(example: unknown, schema: SchemaNode, path = ''): string[] {
  const node = schema.properties ? schema : [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].find((option) => option.properties);
  if (!node?.properties || example === null || typeof example !== 'object' || Array.isArray(example)) return [];
  return Object.entries(node.properties)
    .filter(([key]) => key !== '$schema')
    .flatMap(([key, child]) => {
      const at = path === '' ? key : `${path}.${key}`;
      return key in example ? keysMissingFrom((example as Record<string, unknown>)[key], child, at) : [at];
    });
}

describe('config loader (SPEC 2, 5)', () => {
  it('loads config.example.json through the real loader, with every key of the schema in it', () => {
    const config = loadConfig({ path: join(root, 'config.example.json') });
    expect(config.baseUrl).toBe('http://127.0.0.1:3000');
    expect(config.optionalScopes).toEqual(['write']);
    const example = JSON.parse(readFileSync(join(root, 'config.example.json'), 'utf8')) as Record<string, unknown>;
    expect(keysMissingFrom(example, configSchema)).toEqual([]);
  });

  it('gives every key its documented default when nothing is configured', () => {
    const config = loadConfig();
    expect(config.accessTokenExpiresIn).toBe(7200);
    expect(config.authorizationCodeExpiresIn).toBe(600);
    expect(config.grantFlows).toEqual(['authorization_code', 'client_credentials', 'refresh_token']);
    expect(config.refreshTokens).toEqual({ expiresIn: null, reuseDetection: true, graceSeconds: 0 });
    expect(config.pkce).toEqual({ required: 'public', methods: ['S256'] });
    expect(config.introspection.allow).toEqual([{ rule: 'sameApplication' }, { rule: 'tokenApplication' }, { rule: 'publicToken' }]);
    expect(config.hashTokens && config.hashApplicationSecrets && config.forceSslInRedirectUri).toBe(true);
  });

  it('stops on a misspelled key, naming its path and the key meant (issue 32), in the message with the file', () => {
    expect(problemsOf(() => loadConfig({ path: fixture('misspelled-key.json') }))).toEqual([
      'acessTokenExpiresIn: unknown key (did you mean `accessTokenExpiresIn`?)',
    ]);
    expect(() => loadConfig({ path: fixture('misspelled-key.json') })).toThrow(
      `Invalid configuration in ${fixture('misspelled-key.json')}:\n  - acessTokenExpiresIn: unknown key`,
    );
    // Nothing close: the reference instead.
    expect(problemsOf(() => loadConfig({ input: { colour: 'blue' } }))).toEqual([
      'colour: unknown key (misspelled? see config.example.json)',
    ]);
    expect(problemsOf(() => loadConfig({ input: { instrospection: {}, baseURL: 'https://a.example' } }))).toEqual([
      'instrospection: unknown key (did you mean `introspection`?)',
      'baseURL: unknown key (did you mean `baseUrl`?)',
    ]);
  });

  it('reports every wrong type at once, each with its JSON path', () => {
    const problems = problemsOf(() => loadConfig({ path: fixture('wrong-types.json') }));
    expect(problems).toContain('port: must be integer');
    expect(problems).toContain('pkce.methods.0: must be one of "S256", "plain"');
    expect(problems.some((p) => p.startsWith('introspection.allow.0:') && p.includes('clientIds'))).toBe(true);
  });

  it('names an unknown key nested inside an object by its full path', () => {
    expect(problemsOf(() => loadConfig({ input: { refreshTokens: { graceSecond: 5 } } }))).toEqual([
      'refreshTokens.graceSecond: unknown key (did you mean `graceSeconds`?)',
    ]);
  });

  it("reads the old DPoP key names under their new ones (the guard's), with a deprecation notice; both at once are refused", () => {
    const renamed = loadConfig({ input: { dpop: { proofLifetimeSeconds: 120, clockSkewSeconds: 2 } } });
    expect(renamed.dpop).toMatchObject({ proofMaxAgeSeconds: 120, clockToleranceSeconds: 2 });
    expect(renamed.deprecations).toEqual([
      'dpop.proofLifetimeSeconds is deprecated: it is now dpop.proofMaxAgeSeconds (the same value is used; rename it)',
      'dpop.clockSkewSeconds is deprecated: it is now dpop.clockToleranceSeconds (the same value is used; rename it)',
    ]);
    expect(loadConfig({ input: { dpop: { proofMaxAgeSeconds: 120 } } }).deprecations).toEqual([]);
    expect(problemsOf(() => loadConfig({ input: { dpop: { clockSkewSeconds: 2, clockToleranceSeconds: 3 } } }))).toEqual([
      'dpop.clockSkewSeconds: renamed to dpop.clockToleranceSeconds, which is given too: keep only dpop.clockToleranceSeconds',
    ]);
  });

  it('says when the file is not JSON, at which line and column (issue 32), or cannot be read', () => {
    expect(problemsOf(() => loadConfig({ path: fixture('not-json.json') }))).toEqual([
      'line 2, column 1: Expected double-quoted property name (not valid JSON)',
    ]);
    expect(() => loadConfig({ path: fixture('not-json.json') })).toThrow(
      /^\/.*\/not-json\.json line 2, column 1: Expected double-quoted property name \(not valid JSON\)$/,
    );
    expect(problemsOf(() => loadConfig({ path: fixture('missing.json') }))[0]).toMatch(/^cannot read the file/);
  });

  it('refuses a file that writes one setting twice in an object, which JSON.parse would read as the last only', () => {
    expect(problemsOf(() => loadConfig({ path: fixture('duplicate-key.json') }))).toEqual([
      'metrics.port: written twice in one object; JSON keeps the last and the first would be ignored: keep one',
    ]);
  });

  it('refuses a file nested thousands deep by the key that holds it (copying it overflowed the stack), and takes 32 levels', () => {
    const folder = temporaryFolder('config-deep');
    const write = (name: string, text: string) => {
      writeFileSync(join(folder, name), text);
      return join(folder, name);
    };
    const deep = write('deep.json', `{"port":${'['.repeat(6000)}${']'.repeat(6000)},"admin":{"x":${'['.repeat(40)}${']'.repeat(40)}}}`);
    expect(problemsOf(() => loadConfig({ path: deep }))).toEqual([
      'port: is nested too deeply (at most 32 levels of objects and arrays)',
      'admin: is nested too deeply (at most 32 levels of objects and arrays)',
    ]);
    // 32 levels with the file's own object: past the nesting check, refused by the schema as any wrong type is.
    const limit = write('limit.json', `{"port":${'['.repeat(31)}${']'.repeat(31)}}`);
    expect(problemsOf(() => loadConfig({ path: limit }))).toEqual([expect.stringMatching(/^port: must be /)]);
  });

  it('takes secrets and listen settings from the environment, which win over the file', () => {
    const config = loadConfig({
      input: { port: 1 },
      env: {
        PORT: '4000',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgresql://u@db/x',
        DATABASE_READ_URL: 'postgresql://u@replica/x',
        SESSION_SECRET: 's'.repeat(32),
        ADMIN_PASSWORD: 'a long admin password',
        TRUST_PROXY: '10.0.0.2,10.0.0.3',
      },
    });
    expect(config.trustProxy).toBe('10.0.0.2,10.0.0.3');
    expect(config.port).toBe(4000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.databaseUrl).toBe('postgresql://u@db/x');
    expect(config.databaseReadUrl).toBe('postgresql://u@replica/x');
    expect(config.admin.password).toBe('a long admin password');
  });

  it('DATABASE_DIRECT_URL and DATABASE_PREPARED_STATEMENTS (a pooler in transaction mode) come from the environment too', () => {
    const config = loadConfig({
      env: {
        DATABASE_URL: 'postgresql://u@pgbouncer/x',
        DATABASE_DIRECT_URL: 'postgresql://u@haproxy/x',
        DATABASE_PREPARED_STATEMENTS: 'false',
      },
    });
    expect(config.databaseDirectUrl).toBe('postgresql://u@haproxy/x');
    expect(config.databasePreparedStatements).toBe(false);
    expect(loadConfig({ env: { DATABASE_PREPARED_STATEMENTS: 'true' } }).databasePreparedStatements).toBe(true);
    expect(() => loadConfig({ env: { DATABASE_PREPARED_STATEMENTS: 'no' } })).toThrow(/DATABASE_PREPARED_STATEMENTS/);
  });

  it('DATABASE_FAILOVER_RETRY_SECONDS sets how long a refused statement is sent again; a wrong value is named', () => {
    expect(loadConfig({}).databaseFailoverRetrySeconds).toBe(10);
    expect(loadConfig({ env: { DATABASE_FAILOVER_RETRY_SECONDS: '0' } }).databaseFailoverRetrySeconds).toBe(0);
    expect(loadConfig({ input: { databaseFailoverRetrySeconds: 20 } }).databaseFailoverRetrySeconds).toBe(20);
    expect(() => loadConfig({ env: { DATABASE_FAILOVER_RETRY_SECONDS: 'soon' } })).toThrow(
      /environment variable DATABASE_FAILOVER_RETRY_SECONDS.*integer/,
    );
    expect(() => loadConfig({ input: { databaseFailoverRetrySeconds: 61 } })).toThrow(/databaseFailoverRetrySeconds.*60/);
  });

  it('OPENID_ENABLED sets openid.enabled (docker-compose.yml turns OpenID Connect on with it)', () => {
    const key = { KEY_ENCRYPTION_KEY: 'a'.repeat(64) };
    expect(loadConfig({ env: { ...key, OPENID_ENABLED: 'true' } }).openid.enabled).toBe(true);
    expect(loadConfig({ env: { OPENID_ENABLED: 'false' } }).openid.enabled).toBe(false);
    expect(() => loadConfig({ env: { OPENID_ENABLED: 'yes' } })).toThrow(/OPENID_ENABLED/);
    expect(() => loadConfig({ env: { OPENID_ENABLED: 'true', NODE_ENV: 'production' } })).toThrow(/KEY_ENCRYPTION_KEY/);
  });

  it('TRUST_PROXY takes true, false, a hop count or addresses', () => {
    expect(loadConfig({ env: { TRUST_PROXY: 'true' } }).trustProxy).toBe(true);
    expect(loadConfig({ env: { TRUST_PROXY: 'false' } }).trustProxy).toBe(false);
    expect(loadConfig({ env: { TRUST_PROXY: '2' } }).trustProxy).toBe(2);
    expect(loadConfig({ env: { TRUST_PROXY: '10.0.0.0/8' } }).trustProxy).toBe('10.0.0.0/8');
    expect(() => loadConfig({ env: { TRUST_PROXY: 'evil.example' } })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ env: { TRUST_PROXY: '10.0.0.1, fd00::/8' } }).trustProxy).toBe('10.0.0.1, fd00::/8');
    // A range name beside addresses, as the error message itself suggests (a config audit: it was refused).
    expect(loadConfig({ env: { TRUST_PROXY: 'loopback,10.0.0.0/8' } }).trustProxy).toBe('loopback,10.0.0.0/8');
    expect(loadConfig({ input: { trustProxy: '10.0.0.1, uniquelocal' } }).trustProxy).toBe('10.0.0.1, uniquelocal');
    expect(() => loadConfig({ input: { trustProxy: ',' } })).toThrow(/trustProxy/);
    expect(() => loadConfig({ env: { TRUST_PROXY: 'loopback,,10.0.0.1' } })).toThrow(/TRUST_PROXY/);
  });

  it('what the patterns let through but the boot would stop on is said under its key or variable, the URL of a database never', () => {
    const password = 's3cret';
    expect(
      problemsOf(() =>
        loadConfig({
          input: { baseUrl: 'http://auth.example.com:99999', trustProxy: ['10.0.0.300', '10.0.0.1/99', '::1/64'], metrics: { port: 3000 } },
          env: { DATABASE_URL: `postgresql://u:${password}@db:notaport/x` },
        }),
      ),
    ).toEqual([
      'baseUrl: is not a URL that parses (a port above 65535?)',
      'environment variable DATABASE_URL: is not a URL that parses: check its port, and that @ : / in the password are percent-encoded',
      'trustProxy: 10.0.0.300 is not an IP address or CIDR range',
      'trustProxy: 10.0.0.1/99 is not an IP address or CIDR range',
      "metrics.port: is the service's own port (3000): give the metrics listener another, or null for none",
    ]);
    expect(problemsOf(() => loadConfig({ input: { baseUrl: 'https://user:pw@auth.example.com/a/../b' } }))).toEqual([
      'baseUrl: holds a user name or password, which every token and document would publish: remove them',
      'baseUrl: has a "." or ".." path segment: write the path without it',
    ]);
    for (const baseUrl of ['https://auth.example.com/./x', 'https://auth.example.com/tenant/%2E%2E', 'https://auth.example.com/..'])
      expect(problemsOf(() => loadConfig({ input: { baseUrl } }))).toEqual([
        'baseUrl: has a "." or ".." path segment: write the path without it',
      ]);
    for (const baseUrl of ['https://auth.example.com/a.b/..c/...', 'https://auth.example.com/', 'https://auth.example.com'])
      expect(() => loadConfig({ input: { baseUrl } })).not.toThrow();
    expect(problemsOf(() => loadConfig({ env: { BASE_URL: 'http://h:99999', TRUST_PROXY: '10.0.0.300' } }))).toEqual([
      'environment variable BASE_URL: is not a URL that parses (a port above 65535?)',
      'environment variable TRUST_PROXY: 10.0.0.300 is not an IP address or CIDR range',
    ]);
    // Another interface may share the port number.
    expect(loadConfig({ input: { host: '10.1.2.3', metrics: { host: '127.0.0.1', port: 3000 } } }).metrics.port).toBe(3000);
  });

  it('openid.enabled needs KEY_ENCRYPTION_KEY on PostgreSQL and in production; only a development server on the embedded database may go without', () => {
    const problem =
      'environment variable KEY_ENCRYPTION_KEY: needed while openid.enabled is true, to encrypt the signing keys (32 random bytes: openssl rand -hex 32)';
    const input = { openid: { enabled: true } };
    expect(problemsOf(() => loadConfig({ input, env: { DATABASE_URL: 'postgresql://u@db/x' } }))).toEqual([problem]);
    expect(problemsOf(() => loadConfig({ input, env: { NODE_ENV: 'production' } }))).toEqual([problem]);
    expect(loadConfig({ input }).openid.enabled).toBe(true);
    expect(loadConfig({ input, env: { DATABASE_URL: 'postgresql://u@db/x', KEY_ENCRYPTION_KEY: 'k'.repeat(64) } }).keys.encryptionKey).toBe(
      'k'.repeat(64),
    );
  });

  it('refuses an ADMIN_PASSWORD shorter than 12 characters, and says what to do instead (finding 9)', () => {
    expect(problemsOf(() => loadConfig({ env: { ADMIN_PASSWORD: 'short' } }))).toEqual([
      'environment variable ADMIN_PASSWORD: must be at least 12 characters (or set ADMIN_PASSWORD_HASH to an argon2id hash: oauth-service admin hash-password)',
    ]);
  });

  it('blames the environment variable when its value is wrong, not the defaults or the file', () => {
    expect(problemsOf(() => loadConfig({ env: { PORT: 'http' } }))).toEqual(['environment variable PORT: must be integer (it sets port)']);
    expect(() => loadConfig({ env: { PORT: 'abc' } })).toThrow(/^Invalid environment variable PORT: must be integer \(it sets port\)$/);
    expect(() => loadConfig({ env: { PORT: 'abc' } })).not.toThrow(/defaults/);
  });

  it('METRICS_PORT=null turns the metrics listener off, OPENID_ENABLED=null leaves OpenID Connect automatic (both keys take null)', () => {
    expect(loadConfig({ input: { openid: { enabled: true } }, env: { METRICS_PORT: 'null', OPENID_ENABLED: 'null' } })).toMatchObject({
      metrics: { port: null },
      openid: { enabled: false },
    });
    expect(problemsOf(() => loadConfig({ env: { METRICS_PORT: 'none' } }))).toEqual([
      'environment variable METRICS_PORT: must be integer or null (it sets metrics.port)',
    ]);
  });

  it('checks the file on its own: a wrong value in it stops the boot even where an environment variable overrides the key', () => {
    expect(problemsOf(() => loadConfig({ input: { port: '39122', metrics: { port: null } }, env: { PORT: '39122' } }))).toEqual([
      'port: must be integer',
    ]);
    expect(problemsOf(() => loadConfig({ input: { host: 5 }, env: { HOST: '127.0.0.1' } }))).toEqual(['host: must be string']);
    // A section that is no object: the file's problem, not a crash on the variable that writes into it.
    expect(problemsOf(() => loadConfig({ input: { metrics: 5 }, env: { METRICS_PORT: '9000' } }))).toEqual(['metrics: must be object']);
    // Both wrong: each named where it is.
    expect(problemsOf(() => loadConfig({ input: { port: 'x' }, env: { PORT: 'y' } }))).toEqual([
      'port: must be integer',
      'environment variable PORT: must be integer (it sets port)',
    ]);
  });

  it('says a number out of range is out of range, and a value that is no URL in one line', () => {
    expect(problemsOf(() => loadConfig({ env: { PORT: '-1' } }))).toEqual(['environment variable PORT: must be >= 0 (it sets port)']);
    expect(problemsOf(() => loadConfig({ env: { BASE_URL: 'notaurl' } }))).toEqual([
      'environment variable BASE_URL: has the wrong format (must match ^https?://[^?#]+$) (it sets baseUrl)',
    ]);
  });

  it('names every introspection rule the schema has when a rule is unknown', () => {
    const rules = configSchema.properties.introspection.properties.allow.items.oneOf.map((rule) =>
      JSON.stringify(rule.properties.rule.const),
    );
    expect(rules).toContain('"audience"');
    expect(problemsOf(() => loadConfig({ input: { introspection: { allow: [{ rule: 'nope' }] } } }))).toEqual([
      `introspection.allow.0: rule must be one of ${rules.join(', ')}`,
    ]);
  });

  it('refuses a dataDir that is a file, named by DATA_DIR or by the key that set it; not with DATABASE_URL', () => {
    const file = fixture('misspelled-key.json');
    expect(problemsOf(() => loadConfig({ env: { DATA_DIR: file } }))).toEqual([
      `environment variable DATA_DIR: ${file} is a file, not a folder`,
    ]);
    expect(problemsOf(() => loadConfig({ input: { dataDir: join(file, 'data') } }))).toEqual([
      `dataDir: ${join(file, 'data')} cannot be a folder: ${file} is a file`,
    ]);
    expect(loadConfig({ env: { DATA_DIR: file, DATABASE_URL: 'postgresql://u@db/x' } }).dataDir).toBe(file);
  });

  it('names every wrong environment variable, and keeps the problems of the file apart from them', () => {
    expect(() => loadConfig({ env: { PORT: 'abc', LOG_LEVEL: 'loud' } })).toThrow(
      /^Invalid environment variables:\n {2}- PORT: must be integer \(it sets port\)\n {2}- LOG_LEVEL: must be one of .*\(it sets log\.level\)$/,
    );
    expect(() => loadConfig({ input: { accessTokenExpiresIn: 'soon' }, env: { PORT: 'abc' } })).toThrow(
      /^Invalid configuration in the given config:\n {2}- accessTokenExpiresIn: must be .*\nInvalid environment variable PORT: must be integer \(it sets port\)$/,
    );
  });

  it('refuses combinations that cannot work', () => {
    expect(problemsOf(() => loadConfig({ input: { reuseAccessToken: true } }))[0]).toMatch(/^reuseAccessToken: needs hashTokens false/);
    expect(problemsOf(() => loadConfig({ input: { scopeDescriptions: { admin: 'x' } } }))).toEqual([
      'scopeDescriptions.admin: not one of defaultScopes or optionalScopes',
    ]);
    expect(problemsOf(() => loadConfig({ input: { databaseReadUrl: 'postgresql://u@replica/x' } }))).toEqual([
      'databaseReadUrl: needs databaseUrl (DATABASE_URL): the embedded database has no replicas',
    ]);
    // Set by the environment, the problem is the environment's, not the file's (a config audit).
    const fromEnv = (() => {
      try {
        loadConfig({ env: { DATABASE_READ_URL: 'postgresql://u:pw@replica/x' } });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(fromEnv).toBe(
      'Invalid environment variable DATABASE_READ_URL: needs databaseUrl (DATABASE_URL): the embedded database has no replicas',
    );
  });

  it("scopeDescriptions per language: accepted with defaultLocale's text, refused without it or with an unknown language", () => {
    const read = { en: 'Read your data', de: 'Ihre Daten lesen' };
    expect(loadConfig({ input: { scopeDescriptions: { read } } }).scopeDescriptions.read).toEqual(read);
    expect(problemsOf(() => loadConfig({ input: { defaultLocale: 'fr', scopeDescriptions: { read } } }))).toEqual([
      'scopeDescriptions.read: has no "fr" text (defaultLocale), which the other languages fall back to',
    ]);
    // The unknown language is named, in one line (not beside a second "property name must be valid").
    expect(problemsOf(() => loadConfig({ input: { scopeDescriptions: { read: { en: 'Read', se: 'Läs' } } } }))).toEqual([
      'scopeDescriptions.read: the key "se" must be one of "en", "de", "fr", "es", "ja"',
    ]);
    expect(problemsOf(() => loadConfig({ input: { defaultLocale: 'se' } })).join('\n')).toMatch(/defaultLocale/);
  });

  it('OpenID Connect Core 1.0 section 11: offline_access is offered only while grantFlows includes refresh_token', () => {
    const openid = { openid: { enabled: true } };
    const withoutRefresh = loadConfig({ input: { ...openid, grantFlows: ['authorization_code'] } });
    expect(withoutRefresh.optionalScopes).toEqual(['openid', 'profile', 'email', 'address', 'phone']);
    expect(withoutRefresh.registration.allowedScopes).not.toContain('offline_access');
    expect(loadConfig({ input: openid }).optionalScopes).toContain('offline_access');
    const registration = { allowedScopes: ['read', 'offline_access'] };
    expect(problemsOf(() => loadConfig({ input: { ...openid, grantFlows: ['authorization_code'], registration } }))).toEqual([
      'registration.allowedScopes: offline_access needs refresh_token in grantFlows (no refresh token could be issued)',
    ]);
  });

  it('refuses the development-only private-address settings when NODE_ENV is production, each named', () => {
    const input = {
      openid: { backchannelLogout: { privateAddresses: 'all' } },
      registration: { clientIdMetadataDocuments: { allowPrivateAddresses: true } },
    } as ConfigInput;
    expect(problemsOf(() => loadConfig({ input, env: { NODE_ENV: 'production', KEY_ENCRYPTION_KEY: 'k'.repeat(64) } }))).toEqual([
      'openid.backchannelLogout.privateAddresses: "all" is for development only (NODE_ENV is production): a self-registered client could aim logout POSTs at internal addresses; use "adminClients" (the default) or "none"',
      'registration.clientIdMetadataDocuments.allowPrivateAddresses: true is for development only (NODE_ENV is production): a client could make this server fetch its metadata document or sector_identifier_uri from internal addresses; set it to false',
    ]);
    const development = loadConfig({ input });
    expect(development.openid.backchannelLogout.privateAddresses).toBe('all');
    expect(development.registration.clientIdMetadataDocuments.allowPrivateAddresses).toBe(true);
    const defaults = loadConfig({ env: { NODE_ENV: 'production' } });
    expect(defaults.openid.backchannelLogout.privateAddresses).toBe('adminClients');
  });

  it('returns a deeply frozen config', () => {
    const config = loadConfig();
    expect(Object.isFrozen(config) && Object.isFrozen(config.refreshTokens) && Object.isFrozen(config.grantFlows)).toBe(true);
  });
});
