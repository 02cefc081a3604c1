import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import { TokenInfoController, TokensController } from '../../src/http/controllers/index.js';
import type { Extensions } from '../../src/http/extensions.js';
import { LOCK_FILE } from '../../src/storage/data-dir-lock.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, revokeRequest, tokenInfoRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend, loadMigratedDataDir } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { recordingSubclass } from './extensions-support.js';

// SPEC 7: the controller keys `tokens` and `token_info` replaced by an extension's subclasses.

describe(`controller keys tokens and token_info replaced by subclasses (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  const tokensLog: string[] = [];
  const tokenInfoLog: string[] = [];

  beforeAll(async () => {
    server = await buildTestServer({
      extensions: {
        controllers: {
          tokens: recordingSubclass(TokensController, ['create', 'revoke', 'introspect'], tokensLog),
          token_info: recordingSubclass(TokenInfoController, ['show'], tokenInfoLog),
        },
      },
    });
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  it('the tokens subclass handles POST /oauth/token (create), POST /oauth/introspect (introspect) and POST /oauth/revoke (revoke)', async () => {
    const asClient = basic(client.uid, client.secret!);
    const issued = await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient);
    expect(issued.statusCode).toBe(200);
    const accessToken = issued.json().access_token as string;

    const introspected = await introspectRequest(server.app, { token: accessToken }, asClient);
    expect(introspected.json()).toMatchObject({ active: true, client_id: client.uid });

    const revoked = await revokeRequest(server.app, { token: accessToken }, asClient);
    expect(revoked.statusCode).toBe(200);
    expect((await introspectRequest(server.app, { token: accessToken }, asClient)).json()).toEqual({ active: false });

    expect(tokensLog).toEqual(['create', 'introspect', 'revoke', 'introspect']);
  });

  it('an OAuth error thrown by an inherited action is still rendered as the JSON error', async () => {
    tokensLog.length = 0;
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, 'wrong'));
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
    expect(tokensLog).toEqual(['create']);
  });

  it('the token_info subclass handles GET /oauth/token/info (show); the guard refuses a missing token before the action', async () => {
    const userId = (await createUser(server.deps)).id;
    const issued = await issueToken(server.deps, { application: client.application, resourceOwnerId: userId });
    const response = await tokenInfoRequest(server.app, bearer(issued.accessToken));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ resource_owner_id: userId, application: { uid: client.uid } });
    expect(tokenInfoLog).toEqual(['show']);

    expect((await tokenInfoRequest(server.app)).statusCode).toBe(401);
    expect(tokenInfoLog).toEqual(['show']);
  });
});

/** An extension that overrides one action and inherits the others. */
class HeaderedTokensController extends TokensController {
  override async introspect(request: FastifyRequest, reply: FastifyReply) {
    reply.header('x-introspected-by', 'extension');
    return super.introspect(request, reply);
  }
}

describe(`a tokens subclass overriding introspect, and the beforeTokenResponse hook (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let hookResult: (response: Record<string, unknown>) => Record<string, unknown> | void = () => undefined;
  const contexts: Array<{ grantType: string; applicationUid: string | null; tokenId: number }> = [];

  beforeAll(async () => {
    const extensions: Extensions = {
      controllers: { tokens: HeaderedTokensController },
      beforeTokenResponse: (response, context) => {
        contexts.push({ grantType: context.grantType, applicationUid: context.application?.uid ?? null, tokenId: context.token.id });
        return hookResult(response) as typeof response | void;
      },
    };
    server = await buildTestServer({ extensions });
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  const issue = () => tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!));
  const isActive = async (token: string) =>
    (await introspectRequest(server.app, { token }, basic(client.uid, client.secret!))).json().active;

  it('the overridden introspect adds its header and keeps the RFC 7662 answer; the inherited create is unchanged', async () => {
    const issued = await issue();
    expect(issued.headers['x-introspected-by']).toBeUndefined();
    const response = await introspectRequest(server.app, { token: issued.json().access_token }, basic(client.uid, client.secret!));
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-introspected-by']).toBe('extension');
    expect(response.json()).toMatchObject({ active: true, client_id: client.uid, token_type: 'Bearer' });
  });

  it('beforeTokenResponse adds a field to the token response, and receives the grant type, application and token', async () => {
    contexts.length = 0;
    hookResult = (response) => ({ ...response, tenant: 'acme' });
    const response = await issue();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7200,
      scope: 'read',
      created_at: expect.any(Number),
      tenant: 'acme',
    });
    expect(contexts).toEqual([{ grantType: 'client_credentials', applicationUid: client.uid, tokenId: expect.any(Number) }]);
    expect(await isActive(body.access_token)).toBe(true);
  });

  it('beforeTokenResponse may change the response in place and return nothing', async () => {
    hookResult = (response) => {
      response.issued_by = 'in-place';
    };
    expect((await issue()).json()).toMatchObject({ token_type: 'Bearer', issued_by: 'in-place' });
  });

  it('beforeTokenResponse cannot change access_token or token_type: the issued token is what the client gets', async () => {
    hookResult = (response) => ({ ...response, access_token: 'forged', token_type: 'mac', note: 'kept' });
    const body = (await issue()).json();
    expect(body.access_token).not.toBe('forged');
    expect(body.token_type).toBe('Bearer');
    expect(body.note).toBe('kept');
    expect(await isActive(body.access_token)).toBe(true);
  });
});

describe('a controller that is not a subclass of the built-in one stops the boot', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'oauth-extensions-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // The check comes before the database is opened: these boots open nothing.
  const boot = (controllers: unknown) =>
    buildServer({ config: loadConfig({ input: { dataDir, sessionSecret: 'a'.repeat(40) } }), extensions: { controllers } as Extensions });

  it.each([
    [
      'an unrelated class',
      { tokens: class Unrelated {} },
      'controllers.tokens must be a subclass of TokensController (got class Unrelated)',
    ],
    [
      'the built-in class of another key',
      { token_info: TokensController },
      'controllers.token_info must be a subclass of TokenInfoController (got class TokensController)',
    ],
    ['a plain function', { applications: () => ({}) }, 'controllers.applications must be a subclass of ApplicationsController'],
    [
      'a value that is no class',
      { authorizations: 'AuthorizationsController' },
      'controllers.authorizations must be a subclass of AuthorizationsController (got string)',
    ],
    [
      'an unknown key',
      { token: TokensController },
      "unknown controller key 'token' (known: applications, authorized_applications, authorizations, tokens, token_info)",
    ],
  ])('%s', async (_label, controllers, message) => {
    await expect(boot(controllers)).rejects.toThrow(message);
  });

  // The constructor runs once the database is open: the boot opens the data folder (migrated from the run's template
  // where there is one, else made from nothing, which takes seconds on a busy machine), and must close it again.
  it("a subclass whose constructor fails is named in the boot's error (an extensions audit: only its message was said), and the database it opened is closed", async () => {
    class Failing extends TokensController {
      constructor(...args: ConstructorParameters<typeof TokensController>) {
        super(...args);
        throw new Error('ctor fails');
      }
    }
    await loadMigratedDataDir(dataDir);
    await expect(boot({ tokens: Failing })).rejects.toThrow('extensions: the tokens controller (Failing) could not be made: ctor fails');
    // The folder's lock is gone with the database: a server or CLI command may open the folder now.
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  }, 120_000);

  it('a subclass of another copy of the class is refused with a hint to use the function form', async () => {
    class TokensController {}
    class Copy extends TokensController {}
    await expect(boot({ tokens: Copy })).rejects.toThrow(
      /another copy of TokensController .* export controllers as a function of the built-in classes/,
    );
  });
});
