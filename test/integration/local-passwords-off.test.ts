import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { createUser, PASSWORD, userAgent } from '../helpers/end-user.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 37 item 2: authentication.localPasswords false makes the identity providers the only way in: /login shows their
// buttons and no password form, and a password posted anyway is refused with a page that says so.

describe('authentication.localPasswords false', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await buildTestServer({
      config: {
        authentication: { localPasswords: false },
        identityProviders: [
          { id: 'corp', name: 'Corp SSO', issuer: 'https://idp.corp.example', clientId: 'x' },
        ] as IdentityProviderConfig[],
      },
    });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  it('GET /login shows the provider button and no password form', async () => {
    const page = await userAgent(server.app).request({ method: 'GET', url: '/login' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/login/upstream/corp"');
    expect(page.body).not.toContain('name="password"');
    expect(page.body).toContain('Sign-in with a password is turned off here');
  });

  it('POST /login with a right password is refused (403), nobody signed in', async () => {
    const agent = userAgent(server.app);
    const response = await agent.post('/login', { username: 'alice', password: PASSWORD });
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('Sign-in with a password is turned off here');
    expect(
      await server.deps.stores.loginSessions.listOfUser((await server.deps.stores.users.findByUsername('alice'))!.id, new Date(0)),
    ).toEqual([]);
  });
});
