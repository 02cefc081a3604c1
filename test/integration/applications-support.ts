import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import type { ConfigInput } from '../../src/config/types.js';
import { openIdServer } from '../helpers/openid.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// Shared by the admin sections' tests (applications-*, resources-pages, users-*): an admin server, a browser-like
// admin session, and what every section's pages have in common.

export const ADMIN_PASSWORD = 'correct horse battery staple';
/** RFC 7617 Basic credentials as browsers send them (not form-encoded like OAuth client credentials). */
export function adminBasic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
export const ADMIN = { authorization: adminBasic('admin', ADMIN_PASSWORD) };
/** A script calling the JSON API: Basic credentials, JSON in and out, no cookies. */
export const JSON_API = { ...ADMIN, accept: 'application/json' };
/** The same script sending a JSON body. */
export const JSON_BODY = { ...JSON_API, 'content-type': 'application/json' };

let passwordHash: Promise<string> | undefined;

/** The admin config with ADMIN_PASSWORD stored as an argon2id hash, as in production (hashed once per file). */
async function withAdmin(config: ConfigInput & Record<string, unknown>): Promise<ConfigInput & Record<string, unknown>> {
  passwordHash ??= argon2Hasher.hash(ADMIN_PASSWORD);
  return { ...config, admin: { passwordHash: await passwordHash } };
}

/** The JSON API's create (`base` fields first) and update of an application, as a script calls them. */
export function applicationJsonApi(app: FastifyInstance, base: Record<string, unknown>) {
  return {
    post: (payload: object) =>
      app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: { ...base, ...payload } }),
    patch: (id: number, payload: object) => app.inject({ method: 'PATCH', url: `/oauth/applications/${id}`, headers: JSON_BODY, payload }),
  };
}

/** A create the JSON API refuses: 422 with exactly these messages, and no application stored. */
export async function expectCreateRefused(server: TestServer, create: () => Promise<LightMyRequestResponse>, errors: string[]) {
  const before = (await server.deps.stores.applicationAdmin.list()).length;
  const response = await create();
  expect(response.statusCode).toBe(422);
  expect(response.json()).toEqual({ errors });
  expect((await server.deps.stores.applicationAdmin.list()).length).toBe(before);
}

/** A server whose admin password is ADMIN_PASSWORD. */
export async function buildAdminServer(
  config: ConfigInput & Record<string, unknown> = {},
  testDatabase?: TestDatabase,
): Promise<TestServer> {
  return buildTestServer({ config: await withAdmin(config), testDatabase });
}

/** The same with openid.enabled (and so signing keys: JWT access tokens and ID tokens). */
export async function buildOpenIdAdminServer(config: ConfigInput & Record<string, unknown> = {}): Promise<TestServer> {
  return openIdServer({ config: await withAdmin(config) });
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

  /** Opens a section's new-record form (/oauth/users/new) and submits it to the section (/oauth/users) with these fields. */
  async submitNew(section: string, fields: Record<string, string | string[]>): Promise<LightMyRequestResponse> {
    await this.get(`${section}/new`);
    return this.submit(section, fields);
  }

  /** Submits a section's create form (POST /oauth/users): a 302 to the new record's page, which it follows. */
  async createThroughForm(
    section: 'applications' | 'resources' | 'users',
    fields: Record<string, string | string[]>,
  ): Promise<{ id: number; show: LightMyRequestResponse }> {
    const created = await this.submit(`/oauth/${section}`, fields);
    expect(created.statusCode).toBe(302);
    const id = recordIdFrom(section, created.headers.location);
    return { id, show: await this.follow(created) };
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

/** A form sent back to be corrected: 422 with the banner above the messages beside the fields. */
export function expectFormWithErrors(page: LightMyRequestResponse): void {
  expect(page.statusCode).toBe(422);
  expect(page.body).toContain('Whoops! Check your form for possible errors');
}

/** The text of the element with this id in a page (whatever markup is inside it). */
export function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</(?:code|p|div|td|span)>`).exec(html);
  return match?.[1]?.replace(/<[^>]+>/g, '').trim();
}

/** The id in a redirect to a record's page, such as /oauth/users/12 after a create. */
export function recordIdFrom(section: 'applications' | 'resources' | 'users', location: unknown): number {
  const id = new RegExp(`^/oauth/${section}/(\\d+)$`).exec(String(location))?.[1];
  if (id === undefined) throw new Error(`not a page of /oauth/${section}/:id: ${String(location)}`);
  return Number(id);
}

export const applicationIdFrom = (location: unknown) => recordIdFrom('applications', location);

/**
 * What every admin section owes: 401 without the admin's credentials (pages and JSON alike), a link in the
 * navigation of the other sections, marked as the current page on its own, and never cached. Returns the index
 * page for the section's own checks.
 */
export async function expectAdminSection(app: FastifyInstance, path: string, label: string): Promise<LightMyRequestResponse> {
  expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(401);
  expect((await app.inject({ method: 'GET', url: path, headers: { accept: 'application/json' } })).statusCode).toBe(401);
  const applications = await new AdminSession(app).get('/oauth/applications');
  expect(applications.body).toContain(`<a href="${path}">${label}</a>`);
  const index = await new AdminSession(app).get(path);
  expect(index.statusCode).toBe(200);
  expect(index.body).toContain(`<a href="${path}" aria-current="page">${label}</a>`);
  expect(index.headers['cache-control']).toBe('no-store');
  return index;
}

/** Each of these pages is a 404 page with the section's message (an unknown id, or one that is not a number). */
export async function expectNotFoundPages(admin: AdminSession, urls: string[], message: string): Promise<void> {
  for (const url of urls) {
    const page = await admin.get(url);
    expect(page.statusCode, url).toBe(404);
    expect(page.headers['content-type'], url).toContain('text/html');
    expect(page.body, url).toContain(message);
  }
}
