import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

// A provider that cannot be set up when its button is clicked (issue 37 item 5): its privateKeyJwt key file, read at
// boot, gone since; the failure page ("Sign-in with {name} failed") and the log line, never a JSON 500. A type oauth2
// provider on this machine over plain http (its endpoints, not its issuer) gets its redirect, not openid-client's
// "only requests to HTTPS are allowed" as a 500.

describe('an upstream identity provider that fails at its setup', () => {
  let server: TestServer;
  const logs = capturedLogLines();
  const keyFile = join(temporaryFolder('idp-key'), 'key.pem');
  writeFileSync(keyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));

  beforeAll(async () => {
    server = await buildTestServer({
      config: {
        log: { level: 'info', format: 'json' },
        identityProviders: [
          { id: 'keyed', name: 'Keyed SSO', issuer: 'http://127.0.0.1:1', clientId: 'c', privateKeyJwt: { keyFile, alg: 'ES256' } },
          {
            id: 'plain',
            name: 'Plain OAuth',
            type: 'oauth2',
            issuer: 'https://plain.example.com',
            clientId: 'c',
            authorizationEndpoint: 'http://127.0.0.1:1/auth',
            tokenEndpoint: 'http://127.0.0.1:1/token',
            userinfoEndpoint: 'http://127.0.0.1:1/me',
          },
        ] as unknown as IdentityProviderConfig[],
      },
      logStream: logs.stream,
    });
  });
  afterAll(() => server?.close());

  it('a provider with no client authentication (a public client with PKCE) is said at boot, by one info line', () => {
    const said = logs.lines.filter((line) => line.event === 'config.upstream_public_client');
    expect(said).toEqual([
      expect.objectContaining({ provider: 'plain', level: 30, msg: expect.stringContaining('IDP_PLAIN_CLIENT_SECRET') }),
    ]);
  });

  it('a privateKeyJwt key file gone since the boot: the failure page and the log line, not a 500', async () => {
    rmSync(keyFile);
    const response = await server.app.inject({ method: 'GET', url: '/login/upstream/keyed' });
    expect(response.statusCode).toBe(502);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('Sign-in with Keyed SSO failed');
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        event: 'login.upstream_failed',
        provider: 'keyed',
        reason: 'misconfigured',
        detail: expect.stringMatching(/ENOENT/),
      }),
    );
  });

  it('type oauth2 with plain-http endpoints on this machine: redirected to its authorization endpoint', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/login/upstream/plain' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:1\/auth\?/);
  });
});
