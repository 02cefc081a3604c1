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

describe(`client secrets stored before hashApplicationSecrets changed keep working (${backend})`, () => {
  // Each server on the shared database in turn: the client is made under one setting and used under the other.
  const madeUnder = async (hashed: boolean) => {
    const server = await buildTestServer({ config: { hashApplicationSecrets: hashed }, testDatabase: database });
    try {
      return await createClient(server.deps);
    } finally {
      await server.close();
    }
  };
  const usedUnder = async (hashed: boolean, work: (server: TestServer) => Promise<void>) => {
    const server = await buildTestServer({ config: { hashApplicationSecrets: hashed }, testDatabase: database });
    try {
      await work(server);
    } finally {
      await server.close();
    }
  };

  it.each([
    ['stored as it is, then hashing turned on', false],
    ['stored as its SHA-256, then hashing turned off', true],
  ])('%s: the secret authenticates, a wrong one does not', async (_, hashedFirst) => {
    const client = await madeUnder(hashedFirst);
    expect(client.application.secret).toBe(hashedFirst ? sha256Hex(client.secret!) : client.secret);
    await usedUnder(!hashedFirst, async (server) => {
      expect((await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, client.secret!))).statusCode).toBe(200);
      const wrong = await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, otherLastCharacter(client.secret!)));
      expectOAuthError(wrong, 401, 'invalid_client', TEXT.invalidClient);
    });
  });

  it('under hashing, a stored value of a SHA-256 form is never a credential as it is, whenever it was stored', async () => {
    const client = await madeUnder(false);
    await usedUnder(false, async (server) => {
      // An imported secret that happens to look like a SHA-256 (64 hex characters), stored as it is while hashing was off.
      const lookalike = sha256Hex('imported');
      await server.deps.stores.applicationAdmin.update(client.application.id, { secret: lookalike });
      expect((await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, lookalike))).statusCode).toBe(200);
    });
    await usedUnder(true, async (server) => {
      const response = await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, sha256Hex('imported')));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      // It is read as a SHA-256: of "imported", which passes. Such a client's secret is rotated (or set again) once.
      expect((await tokenRequest(server.app, CLIENT_CREDENTIALS, basic(client.uid, 'imported'))).statusCode).toBe(200);
    });
  });
});
