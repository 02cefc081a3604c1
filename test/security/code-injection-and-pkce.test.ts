import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import { basic, expectOAuthError, missing, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { securityServer } from './support.js';

// RFC 9700 section 4.5 (authorization code injection) and 4.8 (PKCE downgrade), RFC 7636 sections 4.1 and 4.6.
// Replay, a confidential client's code used by another confidential client, a missing verifier and a verifier
// for a code without challenge are in test/integration/rfc6749-authorization-code.test.ts.

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe(`RFC 9700 sections 4.5 and 4.8: code injection and PKCE downgrade at POST /oauth/token (${backend})`, () => {
  let db: TestDatabase;
  let server: TestServer;
  let plainEnabled: TestServer;
  let confidential: TestClient;
  let publicClient: TestClient;
  let otherPublic: TestClient;
  let userId: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await securityServer({}, db);
    plainEnabled = await securityServer({ pkce: { required: 'public', methods: ['S256', 'plain'] } }, db);
    confidential = await createClient(server.deps);
    publicClient = await createClient(server.deps, { confidential: false });
    otherPublic = await createClient(server.deps, { confidential: false });
    userId = (await createUser(server.deps)).id;
  });
  afterAll(async () => {
    await server.close();
    await plainEnabled.close();
    await db.drop();
  });

  const codeFor = (client: TestClient, verifier = VERIFIER, method = 'S256') =>
    createCode(server.deps, {
      application: client.application,
      resourceOwnerId: userId,
      codeChallenge: method === 'S256' ? s256Challenge(verifier) : verifier,
      codeChallengeMethod: method,
    });
  const exchange = (
    target: TestServer,
    code: { code: string; redirectUri: string },
    extra: Record<string, string>,
    headers?: Record<string, string>,
  ) => tokenRequest(target.app, { grant_type: 'authorization_code', code: code.code, redirect_uri: code.redirectUri, ...extra }, headers);

  it("RFC 9700 section 4.5: a public client's code injected by another public client (even with the right verifier) is invalid_grant and stays usable", async () => {
    const code = await codeFor(publicClient);
    expectOAuthError(
      await exchange(server, code, { client_id: otherPublic.uid, code_verifier: VERIFIER }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    );
    expect((await exchange(server, code, { client_id: publicClient.uid, code_verifier: VERIFIER })).statusCode).toBe(200);
  });

  it("RFC 9700 section 4.5: a public client's code injected by a confidential client is invalid_grant", async () => {
    const code = await codeFor(publicClient);
    const response = await exchange(server, code, { code_verifier: VERIFIER }, basic(confidential.uid, confidential.secret!));
    expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('RFC 9700 section 4.8.2: with plain enabled, an S256 code is not redeemed by sending its challenge as a plain verifier', async () => {
    const code = await codeFor(publicClient);
    const response = await exchange(plainEnabled, code, {
      client_id: publicClient.uid,
      code_verifier: s256Challenge(VERIFIER),
      code_challenge_method: 'plain',
    });
    expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('RFC 7636 section 4.2: a plain code is refused once plain is no longer enabled, even with the matching verifier', async () => {
    const code = await codeFor(publicClient, VERIFIER, 'plain');
    expectOAuthError(
      await exchange(server, code, { client_id: publicClient.uid, code_verifier: VERIFIER }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    );
    expect((await exchange(plainEnabled, code, { client_id: publicClient.uid, code_verifier: VERIFIER })).statusCode).toBe(200);
  });

  it.each([
    ['42 characters (too short)', 'a'.repeat(42)],
    ['129 characters (too long)', 'a'.repeat(129)],
    ['"+" (not unreserved)', `${'a'.repeat(42)}+`],
    ['"/" (not unreserved)', `${'a'.repeat(42)}/`],
    ['"=" padding', `${'a'.repeat(42)}=`],
    ['a space', `${'a'.repeat(21)} ${'a'.repeat(21)}`],
    ['a non-ASCII letter', `${'a'.repeat(42)}é`],
    ['a percent-encoded byte', `${'a'.repeat(40)}%41`],
  ])(
    'RFC 7636 section 4.1: a verifier with %s is invalid_grant even though it hashes to the stored challenge',
    async (_label, verifier) => {
      const code = await codeFor(publicClient, verifier);
      expectOAuthError(
        await exchange(server, code, { client_id: publicClient.uid, code_verifier: verifier }),
        400,
        'invalid_grant',
        TEXT.invalidGrant,
      );
    },
  );

  it('RFC 7636 section 4.5: a blank or repeated code_verifier does not pass for the verifier', async () => {
    const code = await codeFor(publicClient);
    expectOAuthError(
      await exchange(server, code, { client_id: publicClient.uid, code_verifier: '' }),
      400,
      'invalid_request',
      missing('code_verifier'),
    );
    const twice = await tokenRequest(server.app, {
      grant_type: 'authorization_code',
      code: code.code,
      redirect_uri: code.redirectUri,
      client_id: publicClient.uid,
      code_verifier: [VERIFIER, VERIFIER],
    });
    expectOAuthError(twice, 400, 'invalid_request', 'The parameter code_verifier was sent more than once.');
  });
});
