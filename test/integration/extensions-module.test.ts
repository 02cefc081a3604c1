import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import type { CliIo } from '../../src/cli/io.js';
import { loadExtensions } from '../../src/http/load-extensions.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, tokenInfoRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// SPEC 7: config `extensions` names a JS module, loaded at boot; every hook and the controllers it exports are
// honoured, and a missing module or an unknown export stops the boot with a clear message.

// Written as an operator would: plain ESM, no import of this package (controllers as a function of the
// built-in classes), hooks as named exports.
const MODULE = `
export function beforeTokenResponse(response, context) {
  return { ...response, tenant: 'from-module', grant: context.grantType };
}
export function allowTokenIntrospection(token, authorizedClient) {
  return authorizedClient?.name === 'Trusted resource server';
}
export async function customIntrospectionResponse(token) {
  return { username: 'owner-' + token.resourceOwnerId };
}
export function resourceOwnerFromCredentials(username, password) {
  return username === 'directory-user' && password === 'directory-pass' ? { id: 4242 } : null;
}
export function authenticateAdmin(request) {
  return request.headers['x-admin-key'] === 'module-key';
}
export const controllers = ({ TokenInfoController }, errors) => ({
  token_info: class ModuleTokenInfo extends TokenInfoController {
    async show(request, reply) {
      if (request.headers['x-refuse'] !== undefined) throw new errors.InvalidRequest('Refused by the module.');
      reply.header('x-token-info', 'module');
      return super.show(request, reply);
    }
  },
});
`;

let dir: string;
const write = (name: string, source: string) => {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauth-extensions-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(`an extensions module loaded by loadExtensions and passed to buildServer (${backend})`, () => {
  let server: TestServer;
  let trusted: TestClient;
  let other: TestClient;

  beforeAll(async () => {
    const extensions = await loadExtensions(write('extensions.mjs', MODULE));
    server = await buildTestServer({ config: { grantFlows: ['client_credentials', 'password'] }, extensions });
    trusted = await createClient(server.deps, { name: 'Trusted resource server' });
    other = await createClient(server.deps, { name: 'Other client' });
  });
  afterAll(() => server.close());

  const passwordGrant = (username: string, password: string) =>
    tokenRequest(server.app, { grant_type: 'password', username, password }, basic(other.uid, other.secret!));

  it("beforeTokenResponse and resourceOwnerFromCredentials: the password grant issues a token for the module's user, with its field", async () => {
    const response = await passwordGrant('directory-user', 'directory-pass');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ token_type: 'Bearer', tenant: 'from-module', grant: 'password' });
    expect((await passwordGrant('directory-user', 'wrong')).json().error).toBe('invalid_grant');
  });

  it('allowTokenIntrospection replaces the default rules; customIntrospectionResponse adds its field', async () => {
    const token = (await passwordGrant('directory-user', 'directory-pass')).json().access_token as string;
    // The default rules would let the token's own client see it and refuse the other one.
    const byTrusted = await introspectRequest(server.app, { token }, basic(trusted.uid, trusted.secret!));
    expect(byTrusted.json()).toMatchObject({ active: true, client_id: other.uid, username: 'owner-4242' });
    expect((await introspectRequest(server.app, { token }, basic(other.uid, other.secret!))).json()).toEqual({ active: false });
  });

  it('authenticateAdmin decides who may use the admin UI', async () => {
    expect(
      (await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: { 'x-admin-key': 'module-key' } })).statusCode,
    ).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: { 'x-admin-key': 'guess' } })).statusCode).toBe(
      403,
    );
  });

  it('the token_info subclass from the controllers function serves GET /oauth/token/info', async () => {
    const token = (await passwordGrant('directory-user', 'directory-pass')).json().access_token as string;
    const response = await tokenInfoRequest(server.app, bearer(token));
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-token-info']).toBe('module');
    expect(response.json()).toMatchObject({ resource_owner_id: 4242, application: { uid: other.uid } });
  });

  it("the controllers function receives the service's OAuth errors: one thrown by an action is its answer", async () => {
    const token = (await passwordGrant('directory-user', 'directory-pass')).json().access_token as string;
    const response = await tokenInfoRequest(server.app, { ...bearer(token), 'x-refuse': '1' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'Refused by the module.' },
    });
  });
});

/** `oauth-service serve` in-process, with the signal handlers it installs kept so the test can stop it. */
async function serve(configPath: string, env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const handlers = new Map<string, () => void>();
  const io: CliIo = {
    env,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from([]),
    onSignal: (signal, handler) => void handlers.set(signal, handler),
  };
  const code = await runCli(['serve', '--config', configPath], io);
  return { code, stdout, stderr, stop: () => handlers.get('SIGTERM')?.() };
}

async function stopped(baseUrl: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      await fetch(`${baseUrl}/healthz`);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not stop');
}

describe(`oauth-service serve with config extensions (${backend})`, () => {
  let testDatabase: TestDatabase | null = null;
  beforeAll(async () => {
    if (backend === 'postgresql') {
      testDatabase = await createTestDatabase({ migrated: false });
      await testDatabase.database.close();
    }
  });
  afterAll(async () => {
    if (testDatabase) await testDatabase.drop().catch(() => undefined);
  });

  const config = (extensions: string) =>
    write(
      `config-${Math.random().toString(36).slice(2)}.json`,
      JSON.stringify({
        extensions,
        host: '127.0.0.1',
        port: 0,
        metrics: { port: 0 },
        dataDir: 'memory://',
        sessionSecret: 'a'.repeat(40),
        log: { level: 'silent' },
      }),
    );
  const env = () => ({ DATABASE_URL: testDatabase?.url ?? undefined });

  it('loads the module named in the config: its admin hook, token hook and controller take effect', async () => {
    const service = await serve(config(write('serve-extensions.mjs', MODULE)), env());
    expect(service.code).toBeNull();
    const baseUrl = /listening on (http:\/\/[^)\s]+)/.exec(service.stderr)?.[1];
    expect(baseUrl).toBeDefined();
    try {
      const created = await fetch(`${baseUrl}/oauth/applications`, {
        method: 'POST',
        headers: { 'x-admin-key': 'module-key', 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ name: 'Served', redirect_uri: 'https://app.example.com/cb' }),
      });
      expect(created.status).toBe(201);
      const { uid, secret } = (await created.json()) as { uid: string; secret: string };
      const issued = await fetch(`${baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: uid, client_secret: secret }),
      });
      const body = (await issued.json()) as { access_token: string; tenant: string };
      expect(body.tenant).toBe('from-module');
      const info = await fetch(`${baseUrl}/oauth/token/info`, { headers: { authorization: `Bearer ${body.access_token}` } });
      expect(info.status).toBe(200);
      expect(info.headers.get('x-token-info')).toBe('module');
    } finally {
      service.stop();
      await stopped(baseUrl!);
    }
  });

  it('a missing module stops the boot, naming the path (exit code 1, nothing opened)', async () => {
    const missing = join(dir, 'no-such-extensions.mjs');
    const service = await serve(config(missing), env());
    expect(service.code).toBe(1);
    expect(service.stderr).toMatch(
      new RegExp(`^oauth-service: extensions: cannot load ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
  });

  it('an unknown export stops the boot, naming it and the known names', async () => {
    const path = write('typo.mjs', 'export function beforeTokenRespons() {}\nexport const authenticateAdmin = () => true;\n');
    const service = await serve(config(path), env());
    expect(service.code).toBe(1);
    expect(service.stderr).toBe(
      `oauth-service: extensions: ${path} exports unknown names: beforeTokenRespons (known: beforeTokenResponse, allowTokenIntrospection, customIntrospectionResponse, resourceOwnerFromCredentials, authenticateAdmin, controllers)\n`,
    );
  });
});

describe('loadExtensions refuses a module it cannot use, with a clear message', () => {
  it.each([
    ['a missing module', null, /^extensions: cannot load .*absent\.mjs: /],
    ['a syntax error', 'export const = 1;', /^extensions: cannot load .*broken\.mjs: /],
    ['an unknown export', 'export const controler = {};', /exports unknown names: controler \(known: /],
    [
      'a hook that is not a function',
      'export const beforeTokenResponse = { tenant: 1 };',
      /^extensions: beforeTokenResponse in .* must be a function$/,
    ],
    ['an unknown controller key', 'export const controllers = { token: class {} };', /unknown controller key 'token'/],
    [
      'a controller that is not a subclass',
      'export const controllers = { tokens: class Mine {} };',
      /controllers.tokens must be a subclass of TokensController \(got class Mine\)/,
    ],
    [
      'an async controllers function (its classes would come too late: every endpoint kept its built-in controller)',
      'export const controllers = async ({ TokensController }) => ({ tokens: class extends TokensController {} });',
      /^extensions \(.*\): the controllers function returned a Promise: it must return the classes themselves \(not be async\)$/,
    ],
    [
      'a controllers function that throws, named with its module',
      "export const controllers = () => { throw new Error('ctrl factory failed'); };",
      /^extensions \(.*refused-\w+\.mjs\): the controllers function failed: ctrl factory failed$/,
    ],
    [
      'a default export that is not an object',
      'export default function () {}',
      /the default export of .* must be an object of hooks and controllers/,
    ],
    [
      'a default export beside named exports',
      'export default {};\nexport const authenticateAdmin = () => true;',
      /has both a default export and named exports \(authenticateAdmin\)/,
    ],
  ])('%s', async (label, source, message) => {
    const name =
      label === 'a missing module'
        ? 'absent.mjs'
        : label === 'a syntax error'
          ? 'broken.mjs'
          : `refused-${Math.random().toString(36).slice(2)}.mjs`;
    const path = source === null ? join(dir, name) : write(name, source);
    await expect(loadExtensions(path)).rejects.toThrow(message);
  });

  it('accepts one object as the default export', async () => {
    const path = write('default.mjs', 'export default { authenticateAdmin: () => true };');
    const extensions = await loadExtensions(path);
    expect(typeof extensions.authenticateAdmin).toBe('function');
  });
});
