import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import type { ConfigInput } from '../../src/config/types.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// Shared by test/integration/applications-*.test.ts: an admin server and a browser-like admin session.

export const ADMIN_PASSWORD = 'correct horse battery staple';
/** RFC 7617 Basic credentials as browsers send them (not form-encoded like OAuth client credentials). */
export function adminBasic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
export const ADMIN = { authorization: adminBasic('admin', ADMIN_PASSWORD) };
/** A script calling the JSON API: Basic credentials, JSON in and out, no cookies. */
export const JSON_API = { ...ADMIN, accept: 'application/json' };

let passwordHash: Promise<string> | undefined;

/** A server whose admin password is ADMIN_PASSWORD (stored as an argon2id hash, as in production). */
export async function buildAdminServer(
  config: ConfigInput & Record<string, unknown> = {},
  testDatabase?: TestDatabase,
): Promise<TestServer> {
  passwordHash ??= argon2Hasher.hash(ADMIN_PASSWORD);
  return buildTestServer({ config: { ...config, admin: { passwordHash: await passwordHash } }, testDatabase });
}

/**
 * What a browser does with the admin pages: Basic credentials on every request, the session cookie kept,
 * the CSRF token taken from the last form, and every response body kept for "never shown" assertions.
 */
export class AdminSession {
  cookie: string | undefined;
  csrfToken: string | undefined;
  readonly bodies: string[] = [];

  constructor(private readonly app: FastifyInstance) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.#record(await this.app.inject({ method: 'GET', url, headers: this.#headers() }));
  }

  /** Posts a form as the page's HTML form would, with the CSRF token of the last page shown. */
  async submit(url: string, fields: Record<string, string | string[]>): Promise<LightMyRequestResponse> {
    if (this.csrfToken === undefined) await this.get('/oauth/applications/new');
    const payload = form({ _csrf: this.csrfToken!, ...fields });
    return this.#record(await this.app.inject({ method: 'POST', url, headers: { ...this.#headers(), ...FORM }, payload }));
  }

  /** Follows a redirect answer to the next page. */
  async follow(response: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    const location = response.headers.location;
    if (typeof location !== 'string') throw new Error(`expected a redirect, got ${response.statusCode}: ${response.body.slice(0, 200)}`);
    return this.get(location);
  }

  #headers(): Record<string, string> {
    return { ...ADMIN, ...(this.cookie !== undefined && { cookie: this.cookie }) };
  }

  #record(response: LightMyRequestResponse): LightMyRequestResponse {
    const setCookie = [response.headers['set-cookie'] ?? []].flat();
    const session = setCookie.find((cookie) => cookie.startsWith('oauth_session='));
    if (session) this.cookie = session.split(';', 1)[0];
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token !== undefined) this.csrfToken = token;
    this.bodies.push(response.body);
    return response;
  }
}

/** The text of the element with this id in a page (whatever markup is inside it). */
export function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</(?:code|p|div|td|span)>`).exec(html);
  return match?.[1]?.replace(/<[^>]+>/g, '').trim();
}

export function applicationIdFrom(location: string | string[] | number | undefined): number {
  const id = /^\/oauth\/applications\/(\d+)$/.exec(String(location))?.[1];
  if (id === undefined) throw new Error(`not an application page: ${String(location)}`);
  return Number(id);
}
