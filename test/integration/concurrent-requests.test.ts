import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from '../../src/oauth/secrets.js';
import { dpopProofRepository } from '../../src/storage/dpop-proof-repository.js';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, introspectRequest, revokeRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Concurrent requests share statements (src/storage/coalesced-token-reads.ts, coalesced-token-writes.ts,
// coalesced-replay-records.ts): each introspection must still be answered for its own token, in the state that token
// had when its request arrived, each token issued must name its own committed row, and each replay record (a DPoP
// proof's, a client assertion's jti) must be fresh exactly once.

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

  it('takes each of 30 simultaneous replay records once: the first of a hash is fresh, a repeat or an earlier one not', async () => {
    const { dpopProofs } = server.deps.stores;
    const until = new Date(server.deps.now().getTime() + 300_000);
    expect(await dpopProofs.remember('replay-earlier', until)).toBe(true);
    const hashes = [
      ...Array.from({ length: 20 }, (_, i) => `replay-${i}`),
      ...Array.from({ length: 9 }, (_, i) => `replay-${i % 3}`),
      'replay-earlier',
    ];
    const fresh = await Promise.all(hashes.map((hash) => dpopProofs.remember(hash, until)));
    const freshTimes = (hash: string) => hashes.filter((other, i) => other === hash && fresh[i]).length;
    for (const hash of new Set(hashes)) expect(freshTimes(hash), hash).toBe(hash === 'replay-earlier' ? 0 : 1);
    const asked = [...hashes, 'replay-never', 'replay-never-2'];
    expect(await Promise.all(asked.map((hash) => dpopProofs.seen(hash)))).toEqual(asked.map((hash) => !hash.startsWith('replay-never')));
  });

  it('records a batch of replay records in one statement each way, a hash twice in it fresh only the first time', async () => {
    const repository = dpopProofRepository(server.testDatabase.database.sql);
    const expiresAt = new Date(server.deps.now().getTime() + 300_000);
    expect(await repository.remember('batch-earlier', expiresAt)).toBe(true);
    const records = ['batch-a', 'batch-b', 'batch-a', 'batch-earlier', 'batch-c', 'batch-b'].map((proofHash) => ({ proofHash, expiresAt }));
    expect(await repository.rememberMany(records)).toEqual([true, true, false, false, true, false]);
    expect(await repository.rememberMany(records.slice(0, 2))).toEqual([false, false]);
    expect(await repository.seenMany(['batch-c', 'batch-never', 'batch-a', 'batch-c'])).toEqual([true, false, true, true]);
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
