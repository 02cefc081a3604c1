import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { halfHash } from '../../src/oauth/openid/id-token.js';
import { retireSigningKey, type SigningKeyDeps } from '../../src/oauth/keys/signing-key-service.js';
import { activeSigningKey } from '../../src/oauth/keys/signing-keys.js';
import { createStores } from '../../src/storage/stores.js';
import { createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { authorize, CALLBACK, codeFlow, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// RFC 6749 section 5.1/5.2 and OpenID Connect Core 3.1.3.3 (12.2 for a refresh): a token response carries the
// access token and its ID token together, or it is an error. Issue 31 item 6: when the ID token could not be signed
// (its key stored under another KEY_ENCRYPTION_KEY) the server answered 500 after storing a live access token the
// client never received, and with the code used up. Signing now fails the request before anything is written.
// The key is made to fail for real: another instance, started with another KEY_ENCRYPTION_KEY, made the key that
// signs now.

const KEK = randomBytes(32).toString('hex');

describe(`RFC 6749 section 5.2 / OpenID Connect Core 3.1.3.3: a token response is all or nothing (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  const instanceWith = (keyEncryptionKey: string): SigningKeyDeps => ({
    stores: createStores(server.testDatabase.database, { keyEncryptionKey }),
    config: server.config,
    now: () => server.clock.now,
  });
  /** Retires the key that signs now, so that an instance with `keyEncryptionKey` makes (and encrypts) its successor. */
  const successorMadeWith = async (keyEncryptionKey: string) => {
    const deps = instanceWith(keyEncryptionKey);
    const current = activeSigningKey(await deps.stores.signingKeys.list(), 'RS256', server.clock.now);
    await retireSigningKey(deps, current!.kid);
    // Past the 5 s for which the server keeps the key list it read.
    server.clock.advance(6);
  };
  /** Runs `work` while the key that signs is one this server cannot decrypt, then makes it a good one again. */
  const whileSigningFails = async <T>(work: () => Promise<T>): Promise<T> => {
    await successorMadeWith(randomBytes(32).toString('hex'));
    try {
      return await work();
    } finally {
      await successorMadeWith(KEK);
    }
  };
  const rows = async (sql: string, values: unknown[]) => server.app.database.sql.query<Record<string, unknown>>(sql, values);

  beforeAll(async () => {
    server = await openIdServer({
      config: { grantFlows: ['authorization_code', 'refresh_token'], skipAuthorization: { whenPreviouslyAuthorized: true } },
      env: { KEY_ENCRYPTION_KEY: KEK },
    });
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  it('a code exchange whose ID token cannot be signed stores no token and leaves the code unused; once fixed, the same code works', async () => {
    const client = await createClient(server.deps);
    const code = await whileSigningFails(async () => {
      const { code, response } = await codeFlow(server, agent, client, { nonce: 'n-1' });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toMatchObject({ error: 'server_error' });
      return code;
    });
    expect(await rows('SELECT id FROM oauth_access_tokens WHERE application_id = $1', [client.application.id])).toEqual([]);
    expect(await rows('SELECT revoked_at FROM oauth_access_grants WHERE application_id = $1', [client.application.id])).toEqual([
      { revoked_at: null },
    ]);
    // No live token means no remembered consent: the next request for this client shows the consent page again.
    const again = await agent.request({
      method: 'GET',
      url: `/oauth/authorize?${new URLSearchParams({ client_id: client.application.uid, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' })}`,
    });
    expect(again.statusCode).toBe(200);

    const retried = await tokenRequest(
      server.app,
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK },
      basic(client.application.uid, client.plainSecret!),
    );
    expect(retried.statusCode).toBe(200);
    expect(await verifiedIdToken(server, retried.json().id_token, client.application.uid)).toMatchObject({ nonce: 'n-1' });
  });

  it('a refresh whose ID token cannot be signed rotates nothing; once fixed, the same refresh token works', async () => {
    const client = await createClient(server.deps);
    const { response } = await codeFlow(server, agent, client);
    expect(response.statusCode).toBe(200);
    const refreshToken = response.json().refresh_token as string;
    const refresh = () =>
      tokenRequest(
        server.app,
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        basic(client.application.uid, client.plainSecret!),
      );

    await whileSigningFails(async () => expect((await refresh()).statusCode).toBe(500));
    const tokens = await rows('SELECT refreshed_at, revoked_at FROM oauth_access_tokens WHERE application_id = $1', [
      client.application.id,
    ]);
    expect(tokens).toEqual([{ refreshed_at: null, revoked_at: null }]);

    const refreshed = await refresh();
    expect(refreshed.statusCode).toBe(200);
    await verifiedIdToken(server, refreshed.json().id_token, client.application.uid);
  });

  it('control: once a token was really issued, the next request skips the consent page (skipAuthorization.whenPreviouslyAuthorized)', async () => {
    const client = await createClient(server.deps);
    const first = await codeFlow(server, agent, client);
    expect(first.response.statusCode).toBe(200);
    const redirect = await authorize(agent, {
      client_id: client.application.uid,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
    });
    // Straight to the client: no consent page this time.
    expect(redirect.statusCode).toBe(302);
  });
});

describe(`reuseAccessToken: the ID token of a reused access token (${backend})`, () => {
  it('goes with the value the response carries (at_hash of the reused token, OpenID Connect Core 3.1.3.6)', async () => {
    const server = await openIdServer({ config: { reuseAccessToken: true, hashTokens: false } });
    try {
      await createUser(server.deps, 'bob');
      const agent = await signedIn(server.app, 'bob');
      const client = await createClient(server.deps);
      const first = (await codeFlow(server, agent, client)).response.json();
      const second = (await codeFlow(server, agent, client, { nonce: 'n-2' })).response.json();
      expect(second.access_token).toBe(first.access_token);
      const claims = await verifiedIdToken(server, second.id_token, client.application.uid);
      expect(claims).toMatchObject({ nonce: 'n-2', at_hash: halfHash(second.access_token, 'RS256') });
    } finally {
      await server.close();
    }
  });
});
