import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, introspectRequest, revokeRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Concurrent introspections share lookup statements (src/storage/coalesced-token-reads.ts): each must still be
// answered for its own token, in the state that token had when its request arrived.

describe(`concurrent POST /oauth/introspect on ${backend}`, () => {
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
});
