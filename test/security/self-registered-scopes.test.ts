import { createLocalJWKSet, jwtVerify } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/types.js';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { documentFixture, json, type DocumentFixture } from '../helpers/client-metadata-document-server.js';
import { authorizeUrl, createUser, heldErrorParameters, publicCodeFlow, signedIn, type UserAgent } from '../helpers/end-user.js';
import { basic, expectOAuthError, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { jwksOf, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 29 item 1: a client that registered itself (RFC 7591, or a Client ID Metadata Document) holds only what it
// registered within what the operator allows (registration.allowedScopes / allowedGrantTypes, an initial access
// token's extras, an admin's approval for client_credentials), at /oauth/authorize and at the token endpoint alike.
// Registering more is invalid_client_metadata naming the value (RFC 7591 section 3.2.2), never a silent widening.
// The server is set up as the attacker found it: OpenID Connect on, open registration, write and admin offered.

const ITEM = 'issue 29 item 1 (RFC 7591 section 3.2.2)';
const CALLBACK = 'http://127.0.0.1:8123/cb';
const API = 'https://notes-api.example.com';
const SCOPES = { defaultScopes: ['read'], optionalScopes: ['write', 'admin'] };
const OPEN = { policy: 'open' as const, perAddressPerMinute: 0 };
const notAllowed = (value: string) => `${value} is not allowed for clients that register themselves here.`;

function register(server: TestServer, payload: object, initialToken?: string): Promise<LightMyRequestResponse> {
  return server.app.inject({
    method: 'POST',
    url: '/oauth/register',
    headers: { 'content-type': 'application/json', ...(initialToken !== undefined && { authorization: `Bearer ${initialToken}` }) },
    payload,
  });
}

async function registered(server: TestServer, payload: object, initialToken?: string): Promise<Record<string, string>> {
  const response = await register(server, payload, initialToken);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const clientCredentials = (server: TestServer, client: Record<string, string>, scope?: string) =>
  tokenRequest(
    server.app,
    { grant_type: 'client_credentials', ...(scope !== undefined && { scope }) },
    basic(client.client_id!, client.client_secret!),
  );

function expectRefusedMetadata(response: LightMyRequestResponse, description: string): void {
  expectOAuthError(response, 400, 'invalid_client_metadata', description);
}

describe(`self-registered clients hold only what the operator allowed (${backend})`, () => {
  let server: TestServer;
  /** Another instance on the same database whose operator allows write and client_credentials. */
  let wider: TestServer;
  let agent: UserAgent;
  beforeAll(async () => {
    server = await openIdServer({ config: { ...SCOPES, registration: OPEN, rateLimit: { enabled: false } } });
    const allowedGrantTypes = ['authorization_code' as const, 'refresh_token' as const, 'client_credentials' as const];
    wider = await buildTestServer({
      testDatabase: server.testDatabase,
      config: { ...SCOPES, registration: { ...OPEN, allowedScopes: ['read', 'write'], allowedGrantTypes } },
    });
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
    await server.deps.stores.resources.create({
      uri: API,
      name: 'Notes API',
      scopes: ['read', 'write'],
      tokenFormat: 'jwt',
      accessTokenLifetime: null,
      serverClientId: null,
    });
  });
  afterAll(async () => {
    await wider?.close();
    await server?.close();
  });

  const publicClient = (extra: object = {}) =>
    registered(server, {
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...extra,
    });

  it(`${ITEM}: the attack, registering without scope and asking client_credentials for admin write read, gets no token`, async () => {
    expectRefusedMetadata(
      await register(server, { grant_types: ['client_credentials'] }),
      `grant_types: ${notAllowed('client_credentials')}`,
    );
    // A confidential client that registered the code flow (no scope): client_credentials is not among its grants.
    const client = await registered(server, { redirect_uris: [CALLBACK] });
    expectOAuthError(await clientCredentials(server, client, 'admin write read'), 400, 'unauthorized_client', TEXT.unauthorizedClient);
    expectOAuthError(await clientCredentials(server, client), 400, 'unauthorized_client', TEXT.unauthorizedClient);
  });

  it(`${ITEM}: a client that registered no scope gets only the default scopes in the code flow, and write or admin at /oauth/authorize is invalid_scope`, async () => {
    const client = await publicClient();
    const flow = await publicCodeFlow(server.app, agent, { client_id: client.client_id!, redirect_uri: CALLBACK, scope: '', state: 's' });
    expect(flow.token?.json()).toMatchObject({ scope: 'read', refresh_token: expect.any(String) });
    for (const scope of ['read write', 'admin', 'openid read']) {
      const response = await agent.request({
        method: 'GET',
        url: authorizeUrl({ client_id: client.client_id!, redirect_uri: CALLBACK, response_type: 'code', scope, state: 's' }),
      });
      // RFC 6749 section 4.1.2.1: once client and redirect URI are verified, the error goes to the client; by the
      // user's hand, as no admin vouches for this one (RFC 9700 section 4.11.2).
      expect({ scope, status: response.statusCode, error: heldErrorParameters(response).get('error') }).toEqual({
        scope,
        status: 400,
        error: 'invalid_scope',
      });
    }
  });

  it(`${ITEM}: registering admin (or a scope the server does not offer) is invalid_client_metadata naming it; the OpenID scopes are allowed`, async () => {
    expectRefusedMetadata(await register(server, { redirect_uris: [CALLBACK], scope: 'read admin' }), `scope: ${notAllowed('admin')}`);
    expectRefusedMetadata(await register(server, { redirect_uris: [CALLBACK], scope: 'write' }), `scope: ${notAllowed('write')}`);
    expectRefusedMetadata(
      await register(server, { redirect_uris: [CALLBACK], scope: 'read delete' }),
      'scope: delete is not a scope this server offers.',
    );
    const client = await publicClient({ scope: 'openid read' });
    expect(client.scope).toBe('openid read');
    const flow = await publicCodeFlow(server.app, agent, {
      client_id: client.client_id!,
      redirect_uri: CALLBACK,
      scope: 'openid read',
      state: 's',
    });
    expect(flow.token?.json()).toMatchObject({ scope: 'openid read', id_token: expect.any(String) });
  });

  it(`${ITEM}: a JWT access token for a resource= that accepts read and write carries read only, and a refresh cannot widen it`, async () => {
    const client = await publicClient();
    const refused = await agent.request({
      method: 'GET',
      url: authorizeUrl({
        client_id: client.client_id!,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'read write',
        resource: API,
      }),
    });
    expect(heldErrorParameters(refused).get('error')).toBe('invalid_scope');
    // The resource is named at the authorization (RFC 8707 section 2.2: a refresh may only narrow what was granted).
    const request = { client_id: client.client_id!, redirect_uri: CALLBACK, scope: '', state: 's', resource: API };
    const flow = await publicCodeFlow(server.app, agent, request);
    expect(flow.token?.statusCode).toBe(200);
    const refreshed = await tokenRequest(server.app, {
      grant_type: 'refresh_token',
      refresh_token: flow.token!.json().refresh_token,
      client_id: client.client_id!,
      resource: API,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const { payload } = await jwtVerify(refreshed.json().access_token, createLocalJWKSet(await jwksOf(server)), {
      issuer: server.config.baseUrl.replace(/\/+$/, ''),
      audience: API,
    });
    expect(payload.scope).toBe('read');
    const widened = await tokenRequest(server.app, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.json().refresh_token,
      client_id: client.client_id!,
      scope: 'read write',
    });
    expectOAuthError(widened, 400, 'invalid_scope', TEXT.invalidScope);
  });

  it(`${ITEM}: what a client holds follows the policy: once allowedScopes no longer has write, its refresh carries read only`, async () => {
    const client = await registered(wider, {
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read write',
    });
    const flow = await publicCodeFlow(wider.app, await signedIn(wider.app, 'alice'), {
      client_id: client.client_id!,
      redirect_uri: CALLBACK,
      scope: 'read write',
      state: 's',
    });
    expect(flow.token?.json().scope).toBe('read write');
    // The same client on the server as configured by default: write is no longer the operator's to give.
    const refreshed = await tokenRequest(server.app, {
      grant_type: 'refresh_token',
      refresh_token: flow.token!.json().refresh_token,
      client_id: client.client_id!,
    });
    expect(refreshed.json().scope).toBe('read');
  });

  it(`${ITEM}: an approved client that adds client_credentials by an RFC 7592 update awaits approval again`, async () => {
    const client = await registered(wider, { redirect_uris: [CALLBACK] });
    const stored = async () => (await wider.deps.stores.applications.findByUid(client.client_id!))!;
    await approveApplication(wider.deps, (await stored()).id);
    const updated = await wider.app.inject({
      method: 'PUT',
      url: `/oauth/register/${client.client_id}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.registration_access_token}` },
      payload: { client_id: client.client_id, redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'client_credentials'] },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect((await stored()).approvedAt).toBeNull();
    expectOAuthError(await clientCredentials(wider, client), 400, 'unauthorized_client', TEXT.unauthorizedClient);
  });

  it(`${ITEM}: an approved client_credentials client that widens its scope by an RFC 7592 update awaits approval again`, async () => {
    const client = await registered(wider, { grant_types: ['client_credentials'], scope: 'read' });
    const stored = async () => (await wider.deps.stores.applications.findByUid(client.client_id!))!;
    await approveApplication(wider.deps, (await stored()).id);
    expect((await clientCredentials(wider, client, 'read')).statusCode).toBe(200);
    expectOAuthError(await clientCredentials(wider, client, 'write'), 400, 'invalid_scope', TEXT.invalidScope);
    const updated = await wider.app.inject({
      method: 'PUT',
      url: `/oauth/register/${client.client_id}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.registration_access_token}` },
      payload: { client_id: client.client_id, grant_types: ['client_credentials'], scope: 'read write' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect((await stored()).approvedAt).toBeNull();
    expectOAuthError(await clientCredentials(wider, client, 'write'), 400, 'unauthorized_client', TEXT.unauthorizedClient);
  });

  it(`${ITEM} (RFC 6749 section 4.2.2.1): the implicit flow is no way around the grant types a client registered: response_type=token is unauthorized_client`, async () => {
    const implicit = await buildTestServer({
      testDatabase: server.testDatabase,
      config: { ...SCOPES, grantFlows: ['authorization_code', 'implicit', 'refresh_token'], registration: OPEN },
    });
    try {
      const client = await registered(implicit, { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' });
      const userAgent = await signedIn(implicit.app, 'alice');
      const response = await userAgent.request({
        method: 'GET',
        url: authorizeUrl({ client_id: client.client_id!, redirect_uri: CALLBACK, response_type: 'token', scope: 'read', state: 's' }),
      });
      const fragment = heldErrorParameters(response, 'hash');
      expect({ error: fragment.get('error'), token: fragment.get('access_token'), state: fragment.get('state') }).toEqual({
        error: 'unauthorized_client',
        token: null,
        state: 's',
      });
      // The same client's code flow is what it registered, and works.
      const flow = await publicCodeFlow(implicit.app, userAgent, {
        client_id: client.client_id!,
        redirect_uri: CALLBACK,
        scope: 'read',
        state: 's',
      });
      expect(flow.token?.json()).toMatchObject({ scope: 'read', access_token: expect.any(String) });
    } finally {
      await implicit.close();
    }
  });
});

/** The CLI as an operator runs it and the service on its database, as test/integration/cli-apps-self-registered does. */
async function onService<T>(cli: CliHarness, config: ConfigInput, work: (server: TestServer) => Promise<T>): Promise<T> {
  return cli.withDeps(async (_deps, database) => {
    const server = await buildTestServer({ testDatabase: { database, url: null, drop: async () => undefined }, config });
    try {
      return await work(server);
    } finally {
      await server.close();
    }
  });
}

describe(`client_credentials for a self-registered client needs the operator (${backend})`, { timeout: 120_000 }, () => {
  it(`${ITEM}: registration-tokens create --grant-types client_credentials --scopes "read write": its clients register and use them, others not`, async () => {
    const config = { ...SCOPES, registration: { policy: 'initialAccessToken' as const, perAddressPerMinute: 0 } };
    const cli = await createCliHarness(config);
    try {
      const run = async (argv: string[]) => JSON.parse((await cli.run([...argv, '--json'])).stdout);
      const machine = await run(['registration-tokens', 'create', '--grant-types', 'client_credentials', '--scopes', 'read write']);
      expect(machine).toMatchObject({ grant_types: ['client_credentials'], scopes: ['read', 'write'], uses_remaining: null });
      const plain = await run(['registration-tokens', 'create']);
      const listed = await run(['registration-tokens', 'list']);
      expect(listed.map((token: { grant_types: string[]; scopes: string[] }) => [token.grant_types, token.scopes])).toEqual([
        [['client_credentials'], ['read', 'write']],
        [[], []],
      ]);
      expect(usageErrorLine(await cli.run(['registration-tokens', 'create', '--scopes', 'read delete']))).toBe(
        'oauth-service: scope delete is not one of defaultScopes or optionalScopes',
      );
      expect(usageErrorLine(await cli.run(['registration-tokens', 'create', '--grant-types', 'password']))).toBe(
        'oauth-service: grant type password cannot be registered (one of authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code)',
      );

      const client = await onService(cli, config, async (server) => {
        const payload = { grant_types: ['client_credentials'], scope: 'read write' };
        expectRefusedMetadata(await register(server, payload, plain.token), `grant_types: ${notAllowed('client_credentials')}`);
        expectRefusedMetadata(await register(server, { ...payload, scope: 'read admin' }, machine.token), `scope: ${notAllowed('admin')}`);
        const made = await registered(server, payload, machine.token);
        expect((await clientCredentials(server, made, 'read write')).json()).toMatchObject({ scope: 'read write' });
        expect((await clientCredentials(server, made)).json()).toMatchObject({ scope: 'read' });
        expectOAuthError(await clientCredentials(server, made, 'admin'), 400, 'invalid_scope', TEXT.invalidScope);
        return made;
      });
      expect((await cli.run(['apps', 'show', client.client_id!])).stdout).toContain('  token allowed:  client_credentials read write');
    } finally {
      await cli.close();
    }
  });

  it(`${ITEM}: a client that registered client_credentials under the open policy gets unauthorized_client until apps approve`, async () => {
    const config = {
      ...SCOPES,
      registration: { ...OPEN, allowedGrantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] },
    };
    const cli = await createCliHarness(config as ConfigInput);
    try {
      const client = await onService(cli, config as ConfigInput, async (server) => {
        const made = await registered(server, { grant_types: ['client_credentials'] });
        expectOAuthError(await clientCredentials(server, made), 400, 'unauthorized_client', TEXT.unauthorizedClient);
        return made;
      });
      const approved = await cli.run(['apps', 'approve', client.client_id!]);
      expect(approved.stdout).toContain('and it may now use the client_credentials grant it registered');
      await onService(cli, config as ConfigInput, async (server) => {
        // Approved, it holds what a client that registered no scope holds: the default scopes the policy allows.
        expect((await clientCredentials(server, client)).json()).toMatchObject({ scope: 'read' });
        for (const scope of ['write', 'admin write read'])
          expectOAuthError(await clientCredentials(server, client, scope), 400, 'invalid_scope', TEXT.invalidScope);
      });
    } finally {
      await cli.close();
    }
  });
});

describe(`Client ID Metadata Documents are self-registered clients too (${backend})`, () => {
  let cimd: DocumentFixture;
  beforeAll(async () => {
    cimd = await documentFixture({ config: SCOPES });
  });
  afterAll(() => cimd?.close());

  it(`${ITEM}: a metadata document asking for admin is refused, with the reason in the log and on the error page`, async () => {
    const clientId = cimd.urlOf('/admin-client.json');
    cimd.documents.serve('/admin-client.json', json(cimd.document('/admin-client.json', { scope: 'read admin' })));
    const page = await cimd.server.app.inject({
      method: 'GET',
      url: authorizeUrl({ client_id: clientId, redirect_uri: 'https://client.example.com/callback', response_type: 'code' }),
    });
    expect(page.statusCode).toBe(401);
    expect(page.body).toContain(
      `The application&#39;s metadata document at ${clientId} could not be used: scope: admin is not allowed for clients that register themselves here.`,
    );
    expect(cimd.log.lines.find((line) => line.event === 'client_metadata_document.refused' && line.clientId === clientId)).toMatchObject({
      reason: 'scope: admin is not allowed for clients that register themselves here',
    });
    expect(await cimd.server.deps.stores.applications.findByUid(clientId)).toBeNull();

    const readOnly = cimd.urlOf('/read-client.json');
    cimd.documents.serve('/read-client.json', json(cimd.document('/read-client.json', { scope: 'read' })));
    expect(await cimd.known(readOnly)).toBe(true);
  });
});
