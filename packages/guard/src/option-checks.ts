// What every mode's options must be before any of them is read: a known mode, no option the guard does not have (a
// typo such as `requird` would silently leave DPoP optional), booleans that are booleans (the text "false" from an
// environment variable is truthy) and functions that are functions; the values themselves (URLs, numbers) are the
// settings' to check. Each mistake fails the registration, named, instead of every request later (a 503 or a 500).

const MODES = ['local', 'remote', 'jwt'] as const;
const COMMON = [
  'mode',
  'realm',
  'resolveResourceOwner',
  'exposeResourceOwnerToViews',
  'serviceUnauthorizedRenderOptions',
  'serviceForbiddenRenderOptions',
  'now',
  'logger',
  'dpop',
  'requireAuthentication',
  'resource',
  'authorizationServers',
  'scopesSupported',
  'resourceName',
  'resourceDocumentation',
  'acceptTokensWithoutAudience',
  // Fastify's own register options reach the plugin with the others.
  'prefix',
  'logLevel',
  'logSerializers',
];
const INTROSPECTION = [
  'introspectionUrl',
  'clientId',
  'clientSecret',
  'cacheTtlSeconds',
  'negativeCacheTtlSeconds',
  'cacheMaxEntries',
  'timeoutMs',
  'acceptMissingTokenType',
];
const JWT = ['issuer', 'jwksUri', 'algorithms', 'clockToleranceSeconds', 'jwksCooldownSeconds', 'jwksMaxAgeSeconds', 'introspect'];
export const OPTIONS_OF: Record<(typeof MODES)[number], readonly string[]> = {
  local: [...COMMON, 'introspect'],
  remote: [...COMMON, ...INTROSPECTION],
  jwt: [...COMMON, ...INTROSPECTION, ...JWT],
};
export const DPOP_OPTIONS = [
  'algorithms',
  'required',
  'proofMaxAgeSeconds',
  'clockToleranceSeconds',
  'publicUrl',
  'nonce',
  'replayCacheMaxEntries',
  'announce',
];
const NONCE = ['required', 'secret', 'rotateSeconds'];

const BOOLEANS = ['exposeResourceOwnerToViews', 'acceptTokensWithoutAudience', 'acceptMissingTokenType'];
const FUNCTIONS = ['resolveResourceOwner', 'serviceUnauthorizedRenderOptions', 'serviceForbiddenRenderOptions', 'now'];

const fail = (message: string): never => {
  throw new TypeError(`serviceGuard: ${message}`);
};

/** Throws a TypeError naming the first mistake in `options` (as given to the plugin, not yet typed). */
export function checkGuardOptions(options: unknown): void {
  if (options === null || typeof options !== 'object') fail('the options must be an object');
  const given = options as Record<string, unknown>;
  const mode = given.mode ?? 'local';
  if (!(MODES as readonly unknown[]).includes(mode)) fail(`mode must be 'local', 'remote' or 'jwt', got ${JSON.stringify(mode)}`);
  for (const name of Object.keys(given).filter((key) => given[key] !== undefined)) {
    const modes = MODES.filter((other) => OPTIONS_OF[other].includes(name));
    if (modes.length > 0 && !modes.includes(mode as (typeof MODES)[number]))
      fail(`${name} is an option of mode ${modes.map((other) => `'${other}'`).join(' and ')}, not of mode '${String(mode)}'`);
  }
  knownOptions('', given, OPTIONS_OF[mode as (typeof MODES)[number]]);
  for (const name of BOOLEANS) booleanOption(name, given[name]);
  for (const name of FUNCTIONS) if (given[name] !== undefined && typeof given[name] !== 'function') fail(`${name} must be a function`);
  if (mode === 'local' && given.introspect !== undefined && typeof given.introspect !== 'function') fail('introspect must be a function');
  if (mode === 'jwt' && given.issuer === undefined)
    fail("jwt mode needs issuer, the authorization server's issuer identifier (its metadata's issuer)");
  if (given.dpop !== null && typeof given.dpop === 'object') {
    const dpop = given.dpop as Record<string, unknown>;
    knownOptions('dpop.', dpop, DPOP_OPTIONS);
    booleanOption('dpop.required', dpop.required);
    booleanOption('dpop.announce', dpop.announce);
    if (dpop.nonce !== undefined) {
      if (dpop.nonce === null || typeof dpop.nonce !== 'object') fail('dpop.nonce must be an object');
      knownOptions('dpop.nonce.', dpop.nonce as Record<string, unknown>, NONCE);
      booleanOption('dpop.nonce.required', (dpop.nonce as Record<string, unknown>).required);
    }
  }
}

function knownOptions(prefix: string, given: Record<string, unknown>, known: readonly string[]): void {
  for (const [name, value] of Object.entries(given)) {
    if (known.includes(name) || value === undefined) continue;
    const meant = known.find((option) => option.toLowerCase() === name.toLowerCase());
    fail(`unknown option ${prefix}${name}${meant ? ` (did you mean ${prefix}${meant}?)` : ''}`);
  }
}

function booleanOption(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') fail(`${name} must be true or false, got ${JSON.stringify(value)}`);
}
