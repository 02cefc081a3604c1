import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createApplication, type ApplicationFields } from '../../src/oauth/clients/applications.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { tokenRequest } from './oauth-requests.js';
import { FORM, form } from './test-server.js';

/** inject() with a cookie jar, as a browser would send the session cookie back. */
export interface UserAgent {
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** GETs a page and returns the value of its first `_csrf` field. */
  csrfFrom(url: string): Promise<string>;
  /** POSTs a form (with the CSRF token of `csrfPage` unless `_csrf` is given). */
  post(url: string, fields: Record<string, string | string[]>, csrfPage?: string): Promise<LightMyRequestResponse>;
  cookies: Map<string, string>;
}

export function userAgent(app: FastifyInstance): UserAgent {
  const cookies = new Map<string, string>();
  const agent: UserAgent = {
    cookies,
    async request(options) {
      const cookie = [...cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
      const response = await app.inject({ ...options, headers: { ...(cookie && { cookie }), ...options.headers } });
      for (const { name, value, maxAge } of response.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
        if (value === '' || maxAge === 0) cookies.delete(name);
        else cookies.set(name, value);
      }
      return response;
    },
    async csrfFrom(url) {
      const page = await agent.request({ method: 'GET', url });
      const token = csrfTokenIn(page.body);
      if (!token) throw new Error(`no _csrf field on ${url} (status ${page.statusCode})`);
      return token;
    },
    async post(url, fields, csrfPage = '/login') {
      const body = '_csrf' in fields ? fields : { ...fields, _csrf: await agent.csrfFrom(csrfPage) };
      return agent.request({ method: 'POST', url, headers: FORM, payload: form(body) });
    },
  };
  return agent;
}

export function csrfTokenIn(html: string): string | null {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? null;
}

/** The hidden fields of the first form whose action is `action` (the consent page's Authorize form). */
export function hiddenFields(html: string, nth = 0): Record<string, string> {
  const forms = html.split('<form').slice(1);
  const fields: Record<string, string> = {};
  for (const match of (forms[nth] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = decodeEntities(match[2]!);
  }
  return fields;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export const PASSWORD = 'correct horse battery staple';

export async function createUser(deps: OAuthDeps, username = 'alice', password = PASSWORD): Promise<UserRecord> {
  return deps.stores.userAdmin.create({ username, passwordHash: await deps.passwords.hash(password) });
}

/** A user agent with a logged-in session. */
export async function signedIn(app: FastifyInstance, username: string, password = PASSWORD): Promise<UserAgent> {
  const agent = userAgent(app);
  const response = await agent.post('/login', { username, password });
  if (response.statusCode !== 303) throw new Error(`login failed: ${response.statusCode} ${response.body.slice(0, 200)}`);
  return agent;
}

/** The redirect URI createClient registers unless told otherwise. */
export const CALLBACK = 'https://client.example.com/callback';

export async function createClient(deps: OAuthDeps, fields: Partial<ApplicationFields> = {}, imported: { uid?: string } = {}) {
  return createApplication(
    deps,
    {
      name: 'Client App',
      redirectUri: CALLBACK,
      scopes: '',
      confidential: true,
      ...fields,
    },
    imported,
  );
}

/** The query (or fragment) parameters of a redirect's Location. */
export function locationParameters(response: LightMyRequestResponse, part: 'search' | 'hash' = 'search'): URLSearchParams {
  const location = String(response.headers.location ?? '');
  const url = new URL(location, 'http://service.invalid');
  return new URLSearchParams(part === 'search' ? url.search : url.hash.slice(1));
}

/**
 * RFC 9700 section 4.11.2: the error for a client no admin vouches for is this server's error page, the way on a link
 * the user may follow: that link's parameters (throws on any other answer).
 */
export function heldErrorParameters(response: LightMyRequestResponse, part: 'search' | 'hash' = 'search'): URLSearchParams {
  const href = /<a id="unreviewed-return-link" href="([^"]*)">/.exec(response.body)?.[1];
  if (href === undefined)
    throw new Error(`not the page of a held error: ${response.statusCode} ${String(response.headers.location ?? '')}`);
  const url = new URL(decodeEntities(href));
  return new URLSearchParams(part === 'search' ? url.search : url.hash.slice(1));
}

/** GET /oauth/authorize with these query parameters. */
export function authorizeUrl(parameters: Record<string, string | string[]>): string {
  return `/oauth/authorize?${form(parameters)}`;
}

/** What a public client sends to /oauth/authorize; response_type=code and the PKCE challenge are added. */
export interface PublicCodeRequest {
  client_id: string;
  redirect_uri: string;
  scope: string;
  state: string;
  /** RFC 8707: the resource the authorization is for (the code exchange then keeps it). */
  resource?: string;
}

/** Each step's answer; `token` is absent when the approval did not redirect with a code. */
export interface PublicCodeFlow {
  consent: LightMyRequestResponse;
  approved: LightMyRequestResponse;
  token?: LightMyRequestResponse;
}

/**
 * A public client's code flow with PKCE (RFC 7636, S256), as a browser and the client drive it: GET /oauth/authorize
 * (the consent page), POST its Authorize form, and, when that redirects with a code, POST /oauth/token with the
 * verifier and no secret. `beforeApproval` runs between the consent page and the click (a change the approval must
 * see). Throws unless the consent page is shown; the test judges the other answers.
 */
export async function publicCodeFlow(
  app: FastifyInstance,
  agent: UserAgent,
  request: PublicCodeRequest,
  beforeApproval?: () => Promise<void>,
): Promise<PublicCodeFlow> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = { response_type: 'code', code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' };
  const consent = await agent.request({ method: 'GET', url: authorizeUrl({ ...request, ...challenge }) });
  if (consent.statusCode !== 200) throw new Error(`no consent page: ${consent.statusCode} ${consent.body.slice(0, 300)}`);
  await beforeApproval?.();
  const approved = await agent.request({
    method: 'POST',
    url: '/oauth/authorize',
    headers: FORM,
    payload: form(hiddenFields(consent.body, 0)),
  });
  const code = locationParameters(approved).get('code');
  if (approved.statusCode !== 303 || !code) return { consent, approved };
  const { client_id, redirect_uri } = request;
  const token = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri, client_id, code_verifier: verifier });
  return { consent, approved, token };
}

/** Rows in a table, for "nothing was issued" assertions. */
export async function countRows(
  server: { app: FastifyInstance },
  table: 'oauth_access_grants' | 'oauth_access_tokens' | 'oauth_device_authorizations',
): Promise<number> {
  const rows = await server.app.database.sql.query<{ count: number | string }>(`SELECT count(*)::int AS count FROM ${table}`);
  return Number(rows[0]!.count);
}

/** A token row for (application, owner, scopes), created at `createdAt`, for consent-skip and listing tests. */
export function liveToken(
  applicationId: number,
  resourceOwnerId: number,
  scopes: string[],
  createdAt: Date,
  expiresIn: number | null = 7200,
) {
  return {
    applicationId,
    resourceOwnerId,
    token: sha256Hex(randomBytes(16).toString('hex')),
    refreshToken: null,
    expiresIn,
    scopes,
    createdAt,
    accessGrantId: null,
    refreshFamily: null,
  };
}
