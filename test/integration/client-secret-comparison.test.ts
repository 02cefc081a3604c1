import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { basic, expectOAuthError, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 2.3.1 and SPEC 4: a client secret is right only when it is exactly the registered one, whether
// the stored form is its SHA-256 (hashApplicationSecrets, the default) or the secret itself.

const CLIENT_CREDENTIALS = { grant_type: 'client_credentials' };
const otherLastCharacter = (value: string) => `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe.each([true, false])(`POST /oauth/token client authentication, hashApplicationSecrets %s, on ${backend}`, (hashed) => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await buildTestServer({ config: { hashApplicationSecrets: hashed }, testDatabase: database });
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  it('stores the secret in the configured form', () => {
    expect(client.application.secret).toBe(hashed ? sha256Hex(client.secret!) : client.secret);
  });

  it('issues a token for the registered secret', async () => {
    const response = await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, client.secret!));
    expect(response.statusCode).toBe(200);
  });

  it('refuses a secret that differs in one character, a prefix, a longer one and the stored form', async () => {
    const secret = client.secret!;
    const wrong = [otherLastCharacter(secret), secret.slice(0, -1), `${secret}A`];
    // Under hashing, the stored hash is not a credential: presenting it must fail too.
    if (hashed) wrong.push(client.application.secret!);
    for (const candidate of wrong) {
      const response = await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, candidate));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
    }
  });
});
