import { Agent, request as httpRequest } from 'node:http';
import type { ConfigInput } from '../../src/config/types.js';
import { csrfTokenIn, signedIn } from '../helpers/end-user.js';
import { createClient, createCode, createUser, issueToken } from '../helpers/factories.js';
import { basic, postForm } from '../helpers/oauth-requests.js';
import type { TestServer } from '../helpers/test-server.js';
import { ADMIN, buildOpenIdAdminServer } from '../integration/applications-support.js';
import {
  fuzzRequest,
  parseRoutes,
  random,
  type FuzzFixture,
  type FuzzRequest,
  type FuzzRoute,
  type OpenIdFuzzFixture,
} from './fuzz-requests.js';
import { leaksIn, locationIsRegistered, securityServer } from './support.js';

// Runs the fuzz generator against a listening test server over loopback (never anything else), bounded by a
// request count and a deadline. Used by test/security/fuzz.test.ts and scripts/fuzz.ts.

export interface FuzzOptions {
  count: number;
  seconds: number;
  seed: number;
  concurrency?: number;
  onProgress?: (sent: number) => void;
}

export interface FuzzFailure {
  request: FuzzRequest;
  status: number;
  problem: string;
  body: string;
}

export interface FuzzReport {
  sent: number;
  statuses: Record<number, number>;
  routes: FuzzRoute[];
  failures: FuzzFailure[];
}

/** The fuzzed server's settings: the lockout on but far away, so that its code runs without locking the fuzzer out of
 * the valid paths; every grant the templates use; open registration (RFC 7591), without its per-address limit. */
export const FUZZ_CONFIG: ConfigInput = {
  rateLimit: { maxFailures: 1_000_000 },
  grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'],
  registration: { policy: 'open', perAddressPerMinute: 0 },
};

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** The same with every feature a request can reach on that is off by default: OpenID Connect (ID tokens, UserInfo,
 * logout, request objects), the implicit, device and token exchange grants. */
export const FUZZ_CONFIG_FULL: ConfigInput = {
  ...FUZZ_CONFIG,
  grantFlows: [...FUZZ_CONFIG.grantFlows!, 'implicit', DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT],
  openid: { enabled: true },
};

export type FuzzProfile = 'default' | 'full';

/** The fuzzed server: the admin UI on, FUZZ_CONFIG ('default') or FUZZ_CONFIG_FULL ('full'). */
export function fuzzServer(profile: FuzzProfile): Promise<TestServer> {
  return profile === 'full' ? buildOpenIdAdminServer(FUZZ_CONFIG_FULL) : securityServer(FUZZ_CONFIG);
}

/** The known-good material for the generator, on the server's database, through the domain and HTTP. */
export async function fuzzFixture(server: TestServer): Promise<FuzzFixture> {
  const redirectUri = 'https://app.example.com/callback';
  const openid = server.deps.config.openid.enabled;
  // Under the full profile the client may use every grant, so that the device and token exchange grants get past
  // the client's own grant types, and a logout may return to it.
  const openIdFields = openid ? { grantTypes: server.deps.config.grantFlows.join(' '), postLogoutRedirectUri: redirectUri } : {};
  const client = await createClient(server.deps, { redirectUri, ...openIdFields });
  const publicClient = await createClient(server.deps, { redirectUri, confidential: false });
  const scratch = await createClient(server.deps, { name: 'Scratch', redirectUri: 'https://scratch.example/cb' });
  const user = await createUser(server.deps, 'fuzzer', 'fuzzer password');
  const agent = await signedIn(server.app, 'fuzzer', 'fuzzer password');
  const csrfToken = csrfTokenIn((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).body)!;
  const codes: string[] = [];
  const refreshTokens: string[] = [];
  const scopes = openid ? ['openid', 'read'] : ['read'];
  for (let i = 0; i < 20; i += 1) {
    codes.push((await createCode(server.deps, { application: client.application, resourceOwnerId: user.id, redirectUri, scopes })).code);
    refreshTokens.push(
      (await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, withRefreshToken: true })).refreshToken!,
    );
  }
  let turn = 0;
  const openIdMaterial = openid ? await openIdFixture(server, client, codes.pop()!, redirectUri) : undefined;
  return {
    openid: openIdMaterial,
    clientId: client.uid,
    clientSecret: client.secret!,
    publicClientId: publicClient.uid,
    redirectUri,
    accessToken: (await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, scopes })).accessToken,
    bearerToken: (await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, scopes })).accessToken,
    code: () => codes[turn++ % codes.length]!,
    refreshToken: () => refreshTokens[turn++ % refreshTokens.length]!,
    scratchApplicationId: scratch.application.id,
    adminAuthorization: ADMIN.authorization,
    sessionCookie: [...agent.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; '),
    csrfToken,
  };
}

/** An ID token (from a code's exchange, over HTTP) and device codes, for the full profile's templates. */
async function openIdFixture(
  server: TestServer,
  client: { uid: string; secret: string | null },
  code: string,
  redirectUri: string,
): Promise<OpenIdFuzzFixture> {
  const post = async (url: string, payload: Record<string, string>) => {
    const response = await postForm(server.app, url, payload, basic(client.uid, client.secret!));
    if (response.statusCode !== 200) throw new Error(`the fuzz fixture's ${url} answered ${response.statusCode}: ${response.body}`);
    return response.json() as Record<string, string>;
  };
  const { id_token: idToken } = await post('/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  const deviceCodes: string[] = [];
  for (let i = 0; i < 10; i += 1) deviceCodes.push((await post('/oauth/device_authorization', { scope: 'read' })).device_code!);
  let turn = 0;
  return { idToken: idToken!, deviceCode: () => deviceCodes[turn++ % deviceCodes.length]! };
}

function send(
  agent: Agent,
  port: number,
  request: FuzzRequest,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  // Node frames a body without Content-Length only for POST, PUT and PATCH; any other method needs it explicitly.
  const framed =
    request.body === undefined || request.headers['transfer-encoding'] ? {} : { 'content-length': String(Buffer.byteLength(request.body)) };
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      agent,
      method: request.method,
      path: request.path,
      headers: { ...request.headers, ...framed },
      timeout: 10_000,
    };
    const outgoing = httpRequest(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 10 s')));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** What is wrong with an answer, or null: a 5xx, a leak, a framable answer, or a redirect to an unregistered URI. */
function problemWith(
  request: FuzzRequest,
  status: number,
  headers: Record<string, unknown>,
  body: string,
  registered: string[],
): string | null {
  if (status >= 500) return `status ${status}`;
  const leaks = leaksIn(body, `${request.path} ${JSON.stringify(request.headers)} ${request.body ?? ''}`);
  if (leaks.length > 0) return `leaks ${leaks.join(', ')}`;
  // RFC 9700 section 4.16: no answer of the service may be framed.
  if (headers['x-frame-options'] !== 'DENY') return 'no X-Frame-Options: DENY';
  const location = headers.location;
  if (typeof location === 'string' && !/^\/(?![/\\])/.test(location) && !locationIsRegistered(location, registered))
    return `redirects to ${location}`;
  return null;
}

export async function runFuzz(server: TestServer, fixture: FuzzFixture, options: FuzzOptions): Promise<FuzzReport> {
  const address = server.app.server.address();
  if (address === null || typeof address === 'string' || address.address !== '127.0.0.1')
    throw new Error('the fuzzer only runs against a server listening on 127.0.0.1');
  const routes = parseRoutes(server.app.printRoutes({ commonPrefix: false }));
  const r = random(options.seed);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency ?? 8 });
  const deadline = Date.now() + options.seconds * 1000;
  const report: FuzzReport = { sent: 0, statuses: {}, routes, failures: [] };
  const worker = async () => {
    while (report.sent < options.count && Date.now() < deadline) {
      const request = fuzzRequest(r, routes, fixture);
      report.sent += 1;
      if (report.sent % 1000 === 0) options.onProgress?.(report.sent);
      try {
        const { status, headers, body } = await send(agent, address.port, request);
        report.statuses[status] = (report.statuses[status] ?? 0) + 1;
        const problem = problemWith(request, status, headers, body, [fixture.redirectUri]);
        if (problem) report.failures.push({ request, status, problem, body: body.slice(0, 500) });
      } catch (error) {
        report.failures.push({ request, status: 0, problem: `no answer: ${(error as Error).message}`, body: '' });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  agent.destroy();
  return report;
}
