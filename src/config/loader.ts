import { readFileSync } from 'node:fs';
import { withoutByteOrderMark } from './byte-order-mark.js';
import { configErrorLines } from './config-error-lines.js';
import { configValidator } from './config-validator.js';
import { developmentOnlyProblems } from './development-only-settings.js';
import { corsProblems } from './cors-schema.js';
import { ONE_YEAR_SECONDS } from './hsts-schema.js';
import { introspectionSubNotes } from './introspection-schema.js';
import { addressProblems } from './address-problems.js';
import { dataDirProblems } from './data-dir.js';
import { applyEnvOverrides, ENV_PREFIX, problemAt, type UnvalidatedConfig } from './env-overrides.js';
import { firstDuplicateKey } from './duplicate-json-keys.js';
import { jsonSyntaxProblem } from './json-syntax-error.js';
import { OFFLINE_ACCESS, offeredOpenIdScopes } from './openid-scopes.js';
import { passkeysProblems } from './passkeys-schema.js';
import { NESTED_TOO_DEEPLY, nestedTooDeeply } from './json-nesting-limit.js';
import { readSessionSecretFile } from './session-secret-file.js';
import { tokenExchangeProblems } from './token-exchange-schema.js';
import { trustedIssuerProblems } from './trusted-issuers-schema.js';
import { identityProviderProblems, secretsInJsonProblems } from './identity-providers-schema.js';
import type { Config, GrantFlow } from './types.js';

/**
 * A config that failed validation: every problem, each with the JSON path of its key, or with the environment
 * variable that set a wrong value ("environment variable PORT: ..."), so that nobody looks for it in a file.
 */
export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    source: string,
    message = configErrorMessage(problems, source),
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

function configErrorMessage(problems: string[], source: string): string {
  const fromEnv = problems.filter((problem) => problem.startsWith(ENV_PREFIX)).map((problem) => problem.slice(ENV_PREFIX.length));
  const others = problems.filter((problem) => !problem.startsWith(ENV_PREFIX));
  const parts: string[] = [];
  if (others.length > 0) parts.push(`Invalid configuration in ${source}:\n${others.map((p) => `  - ${p}`).join('\n')}`);
  if (fromEnv.length === 1) parts.push(`Invalid environment variable ${fromEnv[0]}`);
  if (fromEnv.length > 1) parts.push(`Invalid environment variables:\n${fromEnv.map((p) => `  - ${p}`).join('\n')}`);
  return parts.join('\n');
}

const validate = await configValidator();

export interface LoadOptions {
  /** Path of config.json; absent means defaults only. */
  path?: string | null;
  /** Already parsed input (tests, buildServer); merged under the environment like a file. */
  input?: unknown;
  env?: Record<string, string | undefined>;
  /**
   * Issue 31 item 7: whether openid.enabled left null ("automatic", the default) turns OpenID Connect on for the quick
   * start, the embedded database outside production. The CLI says yes (`serve` and every command, which must agree
   * on the scopes the server offers); a config loaded without it (buildServer, the tests) reads null as off, so a test
   * means the same on PGlite and on PostgreSQL.
   */
  quickStartOpenId?: boolean;
}

export function loadConfig({ path = null, input, env = {}, quickStartOpenId = false }: LoadOptions = {}): Readonly<Config> {
  // Without a file or an input, only the environment can have set a wrong value.
  const source = path ?? (input === undefined ? 'the environment' : 'the given config');
  const raw = path ? readConfigFile(path) : structuredClone(input ?? {});
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(['(root): must be a JSON object'], source);
  }
  // No setting nests more than a few levels; deeper, copying and validating the file would overflow the stack. The
  // file's own object is the first level, so its members are the second.
  const tooDeep = Object.entries(raw).flatMap(([key, value]) => (nestedTooDeeply(value, 2) ? [`${key}: is ${NESTED_TOO_DEEPLY}`] : []));
  if (tooDeep.length > 0) throw new ConfigError(tooDeep, source);
  const candidate = raw as UnvalidatedConfig;
  const deprecations = applyRenamedKeys(candidate, source);
  const secretsInJson = secretsInJsonProblems(candidate);
  const inFile = ownProblems(candidate);
  applyEnvOverrides(candidate, env);
  if (!validate(candidate) || inFile.length > 0) {
    // A problem of the file that no variable overrides is found by both validations, in the same words.
    throw new ConfigError([...new Set([...secretsInJson, ...inFile, ...configErrorLines(validate.errors ?? [], env)])], source);
  }
  const config: Config = candidate;
  config.openid.enabled = openIdEnabled(config.openid.enabled, config.databaseUrl, env, quickStartOpenId);
  const password = env.ADMIN_PASSWORD;
  config.admin.password = password !== undefined && password !== '' ? password : null;
  // A secret that only the environment gives (like ADMIN_PASSWORD): a file with it would sit beside the database.
  const keyEncryptionKey = env.KEY_ENCRYPTION_KEY;
  config.keys.encryptionKey = keyEncryptionKey !== undefined && keyEncryptionKey !== '' ? keyEncryptionKey : null;
  // The scraper's credential, like the secrets above: never in a file that could be read with the config.
  const metricsToken = env.METRICS_TOKEN;
  config.metrics.token = metricsToken !== undefined && metricsToken !== '' ? metricsToken : null;
  const problems = [
    ...secretsInJson,
    ...sessionSecretFileProblems(config, env),
    ...dataDirProblems(config, env),
    ...addressProblems(config, env),
    ...crossFieldProblems(config, env),
  ];
  if (problems.length > 0) throw new ConfigError(problems, source);
  if (config.openid.enabled) config.optionalScopes = withOpenIdScopes(config);
  config.registration.allowedScopes = registrationAllowedScopes(config);
  config.deprecations = [...deprecations, ...introspectionSubNotes(config.introspection.response)];
  return deepFreeze(config);
}

/**
 * What is wrong with the file (or input) itself, before the environment replaces any of its values: a wrong type or an
 * unknown key stops the boot even where a variable overrides that key (SPEC 2), named by the key's path. On a copy,
 * because validating fills in the defaults.
 */
function ownProblems(candidate: UnvalidatedConfig): string[] {
  return validate(structuredClone(candidate)) ? [] : configErrorLines(validate.errors ?? [], {});
}

/** openid.enabled as given, or for null (automatic) on exactly for the quick start (LoadOptions.quickStartOpenId). */
function openIdEnabled(
  given: boolean | null,
  databaseUrl: string | null,
  env: Record<string, string | undefined>,
  quickStartOpenId: boolean,
): boolean {
  return given ?? (quickStartOpenId && databaseUrl === null && env.NODE_ENV !== 'production');
}

/**
 * Keys renamed since, still read under their old names: issue 30 gave the DPoP settings the names the guard's
 * options have (proofMaxAgeSeconds, clockToleranceSeconds), so one concept has one name in both places.
 */
const RENAMED_KEYS: Array<{ section: string; old: string; current: string }> = [
  { section: 'dpop', old: 'proofLifetimeSeconds', current: 'proofMaxAgeSeconds' },
  { section: 'dpop', old: 'clockSkewSeconds', current: 'clockToleranceSeconds' },
];

/** Moves each old key's value to its new name; a config that gives both is refused (which one was meant?). */
function applyRenamedKeys(config: UnvalidatedConfig, source: string): string[] {
  const notes: string[] = [];
  for (const { section: name, old, current } of RENAMED_KEYS) {
    const holder = config[name];
    if (typeof holder !== 'object' || holder === null || !(old in holder)) continue;
    const values = holder as UnvalidatedConfig;
    if (current in values)
      throw new ConfigError([`${name}.${old}: renamed to ${name}.${current}, which is given too: keep only ${name}.${current}`], source);
    values[current] = values[old];
    delete values[old];
    notes.push(`${name}.${old} is deprecated: it is now ${name}.${current} (the same value is used; rename it)`);
  }
  return notes;
}

/**
 * An OpenID Provider serves `openid`, the scopes of Core 5.4 and offline_access (Core 11) to every client whose
 * own scopes do not say otherwise: they are added to optionalScopes unless the config names them already (then its choice stands).
 */
function withOpenIdScopes(config: Config): string[] {
  const named = new Set([...config.defaultScopes, ...config.optionalScopes]);
  return [...config.optionalScopes, ...offeredOpenIdScopes(config.grantFlows).filter((scope) => !named.has(scope))];
}

/**
 * Issue 29: registration.allowedScopes left null is what a client gets without asking (defaultScopes), and the scopes
 * of OpenID Connect (Core 5.4 and 11) while the service is an OpenID Provider; the frozen config holds the effective list.
 */
function registrationAllowedScopes(config: Config): string[] {
  const explicit: string[] | null = config.registration.allowedScopes;
  if (explicit !== null) return explicit;
  return [...new Set([...config.defaultScopes, ...(config.openid.enabled ? offeredOpenIdScopes(config.grantFlows) : [])])];
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = withoutByteOrderMark(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError([`cannot read the file: ${(error as Error).message}`], path);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const problem = `${jsonSyntaxProblem(text, error as SyntaxError)} (not valid JSON)`;
    throw new ConfigError([problem], path, `${path} ${problem}`);
  }
  const duplicate = duplicateKeyProblem(text);
  if (duplicate !== null) throw new ConfigError([duplicate], path);
  return parsed;
}

// JSON.parse keeps the last of two members with one name: a setting written twice (a merge gone wrong) would leave
// the first one silently unused.
function duplicateKeyProblem(text: string): string | null {
  let at: string | null;
  try {
    at = firstDuplicateKey(text);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return 'nested too deeply to be a config file';
  }
  return at === null
    ? null
    : `${at.replace(/^\$\.?/, '')}: written twice in one object; JSON keeps the last and the first would be ignored: keep one`;
}

/** sessionSecret read from sessionSecretFile when that is set (issue 32); what is wrong with it otherwise. */
function sessionSecretFileProblems(config: Config, env: Record<string, string | undefined>): string[] {
  if (config.sessionSecretFile === null) return [];
  if (config.sessionSecret !== null)
    return [problemAt('sessionSecretFile', 'sessionSecret (SESSION_SECRET) is set too: keep one of them', env)];
  const read = readSessionSecretFile(config.sessionSecretFile);
  if ('problem' in read) return [problemAt('sessionSecretFile', read.problem, env)];
  config.sessionSecret = read.secret;
  return [];
}

// A guessable admin password is the one secret a lockout cannot make safe (it is tried from many addresses).
const MIN_ADMIN_PASSWORD_LENGTH = 12;

function crossFieldProblems(config: Config, env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  // Only a development server on the embedded database may make its own key (cli/serve.ts, with a warning).
  if (config.openid.enabled && !config.keys.encryptionKey && (config.databaseUrl !== null || env.NODE_ENV === 'production')) {
    problems.push(
      // A variable only the environment gives: its problem is the environment's, never the file's (docs/operations.md).
      `${ENV_PREFIX}KEY_ENCRYPTION_KEY: needed while openid.enabled is true, to encrypt the signing keys (32 random bytes: openssl rand -hex 32)`,
    );
  }
  problems.push(...developmentOnlyProblems(config, env));
  // A nonce from one instance must be good on the others: they derive it from the shared session secret.
  if (config.dpop.nonce.required && config.sessionSecret === null) {
    problems.push(
      problemAt('dpop.nonce.required', 'needs sessionSecret (SESSION_SECRET), which every instance derives the nonces from', env),
    );
  }
  const adminPassword = config.admin.password;
  if (typeof adminPassword === 'string' && [...adminPassword].length < MIN_ADMIN_PASSWORD_LENGTH) {
    problems.push(
      `${ENV_PREFIX}ADMIN_PASSWORD: must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters (or set ADMIN_PASSWORD_HASH to an argon2id hash: oauth-service admin hash-password)`,
    );
  }
  problems.push(...metricsAndHstsProblems(config, env));
  problems.push(...corsProblems(config.cors.allowedOrigins));
  problems.push(...passkeysProblems(config));
  if (config.databaseReadUrl !== null && config.databaseUrl === null) {
    problems.push(problemAt('databaseReadUrl', 'needs databaseUrl (DATABASE_URL): the embedded database has no replicas', env));
  }
  const serverScopes = new Set([...config.defaultScopes, ...config.optionalScopes]);
  for (const [scope, text] of Object.entries(config.scopeDescriptions)) {
    if (!serverScopes.has(scope)) problems.push(`scopeDescriptions.${scope}: not one of defaultScopes or optionalScopes`);
    // The languages without their own text fall back to defaultLocale's, so that one must be there.
    else if (typeof text !== 'string' && text[config.defaultLocale] === undefined) {
      problems.push(
        `scopeDescriptions.${scope}: has no "${config.defaultLocale}" text (defaultLocale), which the other languages fall back to`,
      );
    }
  }
  // Issue 29: a self-registered client is never allowed a scope the server does not offer (the OpenID scopes are
  // offered while openid.enabled, withOpenIdScopes).
  const offered = new Set([...serverScopes, ...(config.openid.enabled ? offeredOpenIdScopes(config.grantFlows) : [])]);
  for (const scope of config.registration.allowedScopes ?? []) {
    if (scope === OFFLINE_ACCESS && config.openid.enabled && !offered.has(scope))
      problems.push('registration.allowedScopes: offline_access needs refresh_token in grantFlows (no refresh token could be issued)');
    else if (!offered.has(scope))
      problems.push(
        `registration.allowedScopes: ${scope} is not one of defaultScopes or optionalScopes${config.openid.enabled ? ' (nor an OpenID Connect scope)' : ''}`,
      );
  }
  problems.push(...trustedIssuerProblems(config.trustedIssuers, offered, config.baseUrl));
  problems.push(...identityProviderProblems(config.identityProviders, config.authentication.localPasswords, env));
  problems.push(...tokenExchangeProblems(config.tokenExchange, config.openid.enabled, config.baseUrl));
  if (config.reuseAccessToken && config.hashTokens) {
    problems.push(problemAt('reuseAccessToken', 'needs hashTokens false (a hashed token cannot be returned again)', env));
  }
  // behaviour.md 3.15: the grant with no issuer to trust could redeem nothing, yet would be advertised.
  if (config.grantFlows.includes(JWT_BEARER_FLOW) && config.trustedIssuers.length === 0) {
    problems.push(
      problemAt('grantFlows', `${JWT_BEARER_FLOW} needs at least one trustedIssuers entry (no assertion could be redeemed)`, env),
    );
  }
  if (config.grantFlows.includes('implicit') && config.pkce.required === 'all') {
    problems.push(problemAt('grantFlows', 'implicit cannot be enabled while pkce.required is "all"', env));
  }
  return problems;
}

const JWT_BEARER_FLOW: GrantFlow = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

// A Bearer token is the only thing between a stranger and /metrics on the public port: as long as a session
// secret, and in the b64token syntax a scraper can send (RFC 6750 section 2.1).
const METRICS_TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]{32,}=*$/;

function metricsAndHstsProblems({ metrics, hsts }: Config, env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if (typeof metrics.token === 'string' && !METRICS_TOKEN_SYNTAX.test(metrics.token)) {
    problems.push(`${ENV_PREFIX}METRICS_TOKEN: must be at least 32 characters of A-Z, a-z, 0-9 and -._~+/ (openssl rand -hex 32)`);
  }
  // hstspreload.org's submission requirements: a preload directive without them would be refused, and a list
  // entry is hard to take back, so the two are asked for explicitly.
  if (hsts.preload && (!hsts.includeSubDomains || (hsts.maxAgeSeconds ?? 0) < ONE_YEAR_SECONDS)) {
    problems.push(
      problemAt('hsts.preload', `needs hsts.includeSubDomains true and hsts.maxAgeSeconds of at least ${ONE_YEAR_SECONDS}`, env),
    );
  }
  return problems;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
