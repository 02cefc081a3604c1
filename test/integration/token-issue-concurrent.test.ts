import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from '../../src/oauth/secrets.js';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, introspectRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Concurrent token issues share multi-row INSERTs (src/storage/coalesced-token-writes.ts): each response must
// name its own committed row.

describe(`concurrent token issue on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  it('answers 30 simultaneous client_credentials requests with 30 distinct tokens, each active at once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!))),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(30).fill(200));
    const tokens = responses.map((response) => response.json().access_token as string);
    expect(new Set(tokens).size).toBe(30);
    const answers = await Promise.all(tokens.map((token) => introspectRequest(server.app, { token }, basic(client.uid, client.secret!))));
    for (const answer of answers) expect(answer.json()).toMatchObject({ active: true, client_id: client.uid });
  });

  it('gives each token issued together the id of its own row', async () => {
    const issued = await Promise.all(Array.from({ length: 20 }, () => issueToken(server.deps, { application: client.application })));
    for (const token of issued) {
      const row = await server.deps.stores.tokenReads.findByToken(storedForm(token.accessToken, server.deps.config.hashTokens));
      expect(row?.id).toBe(token.record.id);
      expect(row).toEqual(token.record);
    }
  });
});
