import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from '../../src/oauth/secrets.js';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, introspectRequest, revokeRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Concurrent requests share statements (src/storage/coalesced-token-reads.ts, coalesced-token-writes.ts): each
// introspection must still be answered for its own token, in the state that token had when its request arrived,
// and each token issued must name its own committed row.

describe(`concurrent introspection and token issue on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  const introspect = (token: string) => introspectRequest(server.app, { token }, basic(client.uid, client.secret!));

  it('answers each of 40 simultaneous requests for its own token: live, revoked, unknown and repeated ones', async () => {
    const issued = await Promise.all(Array.from({ length: 30 }, () => issueToken(server.deps, { application: client.application })));
    const revoked = new Set(issued.filter((_, i) => i % 3 === 0).map((token) => token.accessToken));
    for (const token of revoked) {
      expect((await revokeRequest(server.app, { token }, basic(client.uid, client.secret!))).statusCode).toBe(200);
    }
    const asked = [...issued.map((token) => token.accessToken), ...Array.from({ length: 5 }, (_, i) => `unknown-${i}`)];
    asked.push(...asked.slice(0, 5));

    const answers = await Promise.all(asked.map(async (token) => ({ token, body: (await introspect(token)).json() })));

    for (const { token, body } of answers) {
      const live = !token.startsWith('unknown-') && !revoked.has(token);
      expect(body.active, token).toBe(live);
      if (live) expect(body.client_id).toBe(client.uid);
    }
  });

  it('sees a revocation answered before the introspection was sent, with other introspections in flight', async () => {
    const [target, ...others] = await Promise.all(
      Array.from({ length: 10 }, () => issueToken(server.deps, { application: client.application })),
    );
    const inFlight = others.map((token) => introspect(token.accessToken));
    expect((await revokeRequest(server.app, { token: target!.accessToken }, basic(client.uid, client.secret!))).statusCode).toBe(200);
    const [answer, ...rest] = await Promise.all([introspect(target!.accessToken), ...inFlight]);
    expect(answer!.json()).toEqual({ active: false });
    expect(rest.every((response) => response.json().active === true)).toBe(true);
  });

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
