// The fuzz generator shared by test/security/fuzz.test.ts (shortened) and scripts/fuzz.ts (full): random and
// mutated valid requests over the service's real route list. Seeded, so a failure is reproduced by its seed.

export interface FuzzRoute {
  path: string;
  methods: string[];
}

/** The known-good material a mutated request starts from (made by fuzz-run.ts on a fresh database). */
export interface FuzzFixture {
  clientId: string;
  clientSecret: string;
  publicClientId: string;
  redirectUri: string;
  /** Revoked by a template early in a run: introspected and revoked from then on as a token no longer active. */
  accessToken: string;
  /** Another of the same, which no template revokes: the bearer credentials of UserInfo, a token exchange's subject. */
  bearerToken: string;
  refreshToken: () => string;
  code: () => string;
  /** An application the fuzzer may update, rotate or delete (never the one above). */
  scratchApplicationId: number;
  adminAuthorization: string;
  sessionCookie: string;
  csrfToken: string;
  /** The full profile's (OpenID Connect, the device grant): an ID token of the client, and its device codes. */
  openid?: OpenIdFuzzFixture;
}

export interface OpenIdFuzzFixture {
  idToken: string;
  deviceCode: () => string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** mulberry32: a small seeded PRNG, enough to replay a run. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]!, chance: (p: number) => next() < p };
}
export type Random = ReturnType<typeof random>;

/** Routes from Fastify's printRoutes({ commonPrefix: false }) tree: each line a segment under its parent. */
export function parseRoutes(tree: string): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│├└─\s]*)(\S.*?)(?: \(([^)]*)\))?$/.exec(line.trimEnd());
    if (!match || match[2] === undefined) continue;
    const depth = Math.floor(match[1]!.length / 4);
    stack.length = depth;
    stack.push(match[2]);
    if (match[3]) routes.push({ path: stack.join(''), methods: match[3].split(',').map((method) => method.trim()) });
  }
  return routes;
}

export const HOSTILE = [
  '',
  ' ',
  "'",
  "' OR '1'='1",
  '1; DROP TABLE oauth_access_tokens --',
  '"',
  '\\',
  '%',
  '%00',
  '%ZZ',
  '\u0000',
  '\r\n',
  '\t',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '<%= it %>',
  '${7*7}',
  '../../etc/passwd',
  '..;/',
  '__proto__',
  'constructor',
  '{"$ne":null}',
  '[]',
  'null',
  'true',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  '\u{1F600}',
  '日本語',
  '\ud800',
  '\u202e',
  'x'.repeat(3000),
  // JSON nested thousands deep: it parses, but JSON.stringify of it overflows the stack (authorization_details, claims).
  `${'['.repeat(6000)}${']'.repeat(6000)}`,
  'read '.repeat(300),
  'javascript:alert(1)',
  'https://evil.example/',
  '//evil.example',
  'S256',
  'plain',
];

/** Percent-encoding that never throws (a lone surrogate becomes U+FFFD, as browsers send it). */
const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/x-www-form-urlencoded-evil',
  '*/*',
  'garbage',
];

type Credentials = 'client' | 'admin' | 'session' | 'bearer' | 'none';
type Template = [string, string, Record<string, string>, Credentials];

const REGISTER = '/oauth/register';

function templates(f: FuzzFixture): Template[] {
  const authorize = { client_id: f.clientId, redirect_uri: f.redirectUri, response_type: 'code', state: 's', scope: 'read' };
  return [
    ['POST', '/oauth/token', { grant_type: 'client_credentials', scope: 'read' }, 'client'],
    ['POST', '/oauth/token', { grant_type: 'authorization_code', code: f.code(), redirect_uri: f.redirectUri }, 'client'],
    ['POST', '/oauth/token', { grant_type: 'refresh_token', refresh_token: f.refreshToken() }, 'client'],
    ['POST', '/oauth/token', { grant_type: 'password', username: 'fuzzer', password: 'fuzzer password' }, 'client'],
    ['POST', '/oauth/revoke', { token: f.accessToken, token_type_hint: 'access_token' }, 'client'],
    ['POST', '/oauth/introspect', { token: f.accessToken, token_type_hint: 'refresh_token' }, 'client'],
    ['GET', '/oauth/authorize', authorize, 'session'],
    [
      'GET',
      '/oauth/authorize',
      {
        ...authorize,
        response_mode: 'form_post',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      },
      'session',
    ],
    ['POST', '/oauth/authorize', { ...authorize, _csrf: f.csrfToken }, 'session'],
    ['POST', '/oauth/authorize', { ...authorize, client_id: f.publicClientId, _method: 'delete', _csrf: f.csrfToken }, 'session'],
    ['POST', '/login', { username: 'fuzzer', password: 'wrong', _csrf: f.csrfToken }, 'session'],
    [
      'POST',
      '/oauth/applications',
      { name: 'Fuzzed', redirect_uri: 'https://fuzz.example/cb', scopes: 'read', confidential: '1' },
      'admin',
    ],
    ['POST', `/oauth/applications/${f.scratchApplicationId}`, { _method: 'patch', name: 'Fuzzed', _csrf: f.csrfToken }, 'admin'],
    ['POST', `/oauth/authorized_applications/${f.scratchApplicationId}`, { _method: 'delete', _csrf: f.csrfToken }, 'session'],
    // RFC 7591: sent mostly as JSON (fuzzRequest), whose members arrive as any JSON type, not only as text (body).
    [
      'POST',
      REGISTER,
      {
        redirect_uris: 'https://fuzz.example/cb',
        client_name: 'Fuzzed',
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: 'authorization_code',
        application_type: 'web',
        scope: 'read',
      },
      'none',
    ],
    ...(f.openid === undefined ? [] : openIdTemplates(f, f.openid, authorize)),
  ];
}

// The full profile's: OpenID Connect's requests, pushed authorization requests, the device and token exchange grants.
// Not the logout's confirmation: it would end the session the other templates use.
function openIdTemplates(f: FuzzFixture, { idToken, deviceCode }: OpenIdFuzzFixture, authorize: Record<string, string>): Template[] {
  const openid = { ...authorize, scope: 'openid read', nonce: 'n' };
  const accessToken = 'urn:ietf:params:oauth:token-type:access_token';
  return [
    ['GET', '/oauth/authorize', { ...openid, prompt: 'consent', max_age: '60', claims: '{"id_token":{"email":null}}' }, 'session'],
    ['GET', '/oauth/authorize', { ...openid, response_type: 'id_token token', response_mode: 'fragment' }, 'session'],
    ['GET', '/oauth/authorize', { ...openid, id_token_hint: idToken, prompt: 'none' }, 'session'],
    [
      'POST',
      '/oauth/par',
      { ...openid, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' },
      'client',
    ],
    ['GET', '/oauth/userinfo', {}, 'bearer'],
    ['POST', '/oauth/userinfo', {}, 'bearer'],
    ['GET', '/oauth/end_session', { id_token_hint: idToken, post_logout_redirect_uri: f.redirectUri, state: 's' }, 'session'],
    ['POST', '/oauth/device_authorization', { scope: 'read' }, 'client'],
    ['POST', '/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode() }, 'client'],
    ['POST', '/device', { user_code: 'BCDF-GHJK', _csrf: f.csrfToken }, 'session'],
    [
      'POST',
      '/oauth/token',
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: f.bearerToken,
        subject_token_type: accessToken,
        actor_token: f.accessToken,
        actor_token_type: accessToken,
        scope: 'read',
      },
      'client',
    ],
  ];
}

function mutate(r: Random, params: Record<string, string>): Array<[string, string]> {
  let pairs = Object.entries(params);
  const rounds = r.int(4);
  for (let i = 0; i < rounds; i += 1) {
    const index = r.int(Math.max(pairs.length, 1));
    const [name = 'x', value = ''] = pairs[index] ?? [];
    switch (r.int(7)) {
      case 0:
        pairs = pairs.filter((_, k) => k !== index);
        break;
      case 1:
        pairs.push([name, r.chance(0.5) ? value : r.pick(HOSTILE)]);
        break;
      case 2:
        pairs[index] = [name, r.pick(HOSTILE)];
        break;
      case 3:
        pairs[index] = [`${name}${r.pick(['[]', '[x]', '[0][a]', '.x'])}`, value];
        break;
      case 4:
        pairs.push([
          r.pick([
            'client_id',
            'client_secret',
            'scope',
            'code_verifier',
            '_method',
            '__proto__',
            'authorization_details',
            'claims',
            'resource',
            // Registration metadata (RFC 7591, OpenID Connect Registration), which JSON bodies send typed.
            r.pick(['jwks', 'jwks_uri', 'profile', 'subject_type', 'refresh_tokens', 'contacts', 'post_logout_redirect_uris']),
            r.pick(HOSTILE),
          ]),
          r.pick(HOSTILE),
        ]);
        break;
      case 5:
        pairs[index] = [name, value.slice(0, r.int(value.length + 1))];
        break;
      default:
        pairs[index] = [name, `${value}${r.pick(HOSTILE)}`];
    }
  }
  return pairs;
}

// Members a JSON body may hold besides text. DEEP stands for an array nested thousands deep, written in afterwards:
// it parses, but JSON.stringify or String() of it overflows the stack (a refusal that quoted it was a 500).
const DEEP = '\u0000deep';
const TYPED = [
  null,
  1,
  true,
  [],
  {},
  ['a', 'b'],
  { a: { b: 'c' } },
  ['https://fuzz.example/cb'],
  ['x'.repeat(3000)],
  DEEP,
  [DEEP],
  { keys: [DEEP] },
];

function body(r: Random, pairs: Array<[string, string]>, contentType: string, url?: string): string {
  if (contentType.includes('json') && r.chance(0.8)) {
    const object: Record<string, unknown> = Object.fromEntries(pairs);
    // A registration's lists are JSON arrays (RFC 7591 section 2), mostly sent right so that the fuzzing gets past them.
    if (url === REGISTER && typeof object.redirect_uris === 'string' && r.chance(0.8)) object.redirect_uris = [object.redirect_uris];
    const typedMembers = url === REGISTER ? r.int(3) : r.chance(0.3) ? 1 : 0;
    for (let i = 0; i < typedMembers; i += 1) object[r.pick(pairs)?.[0] ?? 'x'] = r.pick(TYPED);
    const text = JSON.stringify(object).replaceAll(JSON.stringify(DEEP), `${'['.repeat(6000)}${']'.repeat(6000)}`);
    return r.chance(0.1) ? text.slice(0, -1) : text;
  }
  const encoded = new URLSearchParams(pairs).toString();
  return r.pick([encoded, encoded, encoded, `${encoded}&%ZZ=%`, `${encoded}&&=&a=b=c`, '', '&', r.pick(HOSTILE)]);
}

function path(r: Random, routes: readonly FuzzRoute[], f: FuzzFixture): string {
  const route = r
    .pick(routes)
    .path.replace(/:id/g, () =>
      encode(r.pick([String(f.scratchApplicationId), '0', '999999', '1e3', '-1', "1' OR '1'='1", 'abc', '1'.repeat(40), '%2F'])),
    );
  return r.pick([
    route,
    route,
    route,
    `${route}/`,
    `${route}/extra`,
    route.toUpperCase(),
    `/${route}`,
    `${route}/..`,
    `${route}%2F..%2F`,
    `${route}?${new URLSearchParams([[r.pick(['client_id', 'client_secret', 'code', 'x']), r.pick(HOSTILE)]]).toString()}`,
    `/nothing/${encode(r.pick(HOSTILE))}`,
    `${route}%00`,
    `${route};jsessionid=1`,
  ]);
}

function headers(r: Random, f: FuzzFixture, contentType: string | null, credentials?: Credentials): Record<string, string> {
  const result: Record<string, string> = {};
  if (contentType !== null) result['content-type'] = contentType;
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  // A mutated valid request mostly keeps the credentials its endpoint needs, so the fuzzing reaches the handlers.
  const right = credentials !== undefined && r.chance(0.7);
  if (right && credentials === 'client') result.authorization = basic(f.clientId, f.clientSecret);
  else if (right && credentials === 'bearer') result.authorization = `Bearer ${f.bearerToken}`;
  else if (right && credentials === 'admin') result.authorization = f.adminAuthorization;
  else if (r.chance(0.6)) {
    result.authorization = r.pick([
      basic(f.clientId, f.clientSecret),
      f.adminAuthorization,
      `Bearer ${f.accessToken}`,
      basic(f.clientId, 'wrong'),
      basic(r.pick(HOSTILE).replace(/[\r\n]/g, ''), 'x'),
      `Bearer ${encode(r.pick(HOSTILE))}`,
      'Basic',
      'Basic !!!',
      'Bearer',
      'Digest x',
      `Basic ${'QUFB'.repeat(r.int(400))}`,
      basic(f.publicClientId, ''),
    ]);
  }
  if ((right && credentials !== 'client') || r.chance(0.3)) {
    result.cookie = right ? f.sessionCookie : r.pick([f.sessionCookie, 'oauth_session=garbage', `oauth_session=${'a'.repeat(300)}`]);
  }
  if (r.chance(0.3)) result['x-csrf-token'] = r.pick([f.csrfToken, 'forged']);
  if (r.chance(0.4)) result.accept = r.pick(['application/json', 'text/html', '*/*', 'application/xml', 'garbage']);
  if (r.chance(0.1)) result['x-forwarded-for'] = r.pick(['1.2.3.4', 'garbage', '::1, 127.0.0.1']);
  if (r.chance(0.1)) result['transfer-encoding'] = 'chunked';
  return result;
}

/** One request: a mutated valid request (60%) or a random one over the route list. */
export function fuzzRequest(r: Random, routes: readonly FuzzRoute[], f: FuzzFixture): FuzzRequest {
  if (r.chance(0.6)) {
    const [method, url, params, credentials] = r.pick(templates(f));
    const pairs = mutate(r, params);
    const usual = url === REGISTER ? 'application/json' : CONTENT_TYPES[0]!;
    const contentType = r.chance(0.8) ? usual : r.pick([...CONTENT_TYPES, null]);
    if (method === 'GET')
      return { method, path: `${url}?${new URLSearchParams(pairs).toString()}`, headers: headers(r, f, null, credentials) };
    return {
      method: r.chance(0.9) ? method : r.pick(METHODS),
      path: url,
      headers: headers(r, f, contentType, credentials),
      body: body(r, pairs, contentType ?? '', url),
    };
  }
  const route = r.pick(routes);
  const method = r.chance(0.7) ? r.pick(route.methods) : r.pick(METHODS);
  const contentType = r.pick([...CONTENT_TYPES, null]);
  const pairs = mutate(r, { [r.pick(['token', 'name', 'grant_type', 'client_id', 'x'])]: r.pick(HOSTILE) });
  const withBody = method !== 'GET' && method !== 'HEAD' && r.chance(0.8);
  return {
    method,
    path: path(r, routes, f),
    headers: headers(r, f, withBody ? contentType : null),
    body: withBody ? body(r, pairs, contentType ?? '') : undefined,
  };
}
