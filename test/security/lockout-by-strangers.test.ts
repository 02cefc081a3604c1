import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApplicationDisabled } from '../../src/oauth/clients/application-approval.js';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// SPEC 5 rateLimit with the shipped defaults: a request with valid client credentials is never refused because
// of other requests' failures. An API behind a NAT, a Kubernetes node or a proxy shares its address with
// strangers, and its client id is public; failures only lock the failing pair out.

describe(`failed authentications by strangers never stop a valid client (${backend})`, () => {
  let server: TestServer;
  let api: TestClient;
  let other: TestClient;
  let token: string;

  beforeAll(async () => {
    server = await buildTestServer();
    api = await createClient(server.deps, { name: 'Resource server' });
    other = await createClient(server.deps, { name: 'Another client' });
    token = (await issueToken(server.deps, { application: api.application })).accessToken;
  });
  afterAll(() => server.close());

  const send = (url: string, id: string, secret: string, remoteAddress: string, payload: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url,
      remoteAddress,
      headers: { ...FORM, authorization: basicAuth(id, secret) },
      payload: form(payload),
    });

  it('a flood of failures from one address while a valid client introspects from the same address: every valid request succeeds', async () => {
    const shared = '203.0.113.77';
    const failures = Array.from({ length: 150 }, (_, i) => {
      const kind = i % 3;
      if (kind === 0) return send('/oauth/introspect', `unknown-${i}`, 'guess', shared, { token });
      if (kind === 1) return send('/oauth/token', other.uid, `wrong-${i}`, shared, { grant_type: 'client_credentials' });
      return send('/oauth/revoke', `unknown-${i}`, 'guess', shared, { token: 'x' });
    });
    const valid = Array.from({ length: 60 }, () => send('/oauth/introspect', api.uid, api.secret!, shared, { token }));
    const [failed, answered] = await Promise.all([Promise.all(failures), Promise.all(valid)]);
    expect(new Set(failed.map((response) => response.statusCode))).toEqual(new Set([401, 429]));
    expect(answered.map((response) => response.statusCode)).toEqual(valid.map(() => 200));
    expect(answered.every((response) => response.json().active === true)).toBe(true);
  });

  it('wrong secrets naming the client, from many addresses, do not stop it from its own address', async () => {
    for (let host = 1; host <= 12; host += 1) {
      for (let i = 0; i < 10; i += 1)
        await send('/oauth/token', api.uid, 'wrong', `198.51.100.${host}`, { grant_type: 'client_credentials' });
    }
    const response = await send('/oauth/introspect', api.uid, api.secret!, '192.0.2.200', { token });
    expect(response.statusCode).toBe(200);
    expect(response.json().active).toBe(true);
    // The pairs that failed are locked: guessing a weak (imported) secret stays slow.
    expect((await send('/oauth/token', api.uid, api.secret!, '198.51.100.1', { grant_type: 'client_credentials' })).statusCode).toBe(429);
  });

  // A races audit: an admin disabling a busy client and enabling it again locked it out for lockoutSeconds, its own
  // requests meanwhile (with the right secret) having been counted as failures.
  it('a disabled client is refused with its right secret without a count: enabled again, it gets tokens at once', async () => {
    const busy = await createClient(server.deps, { name: 'Busy client', scopes: 'read' });
    const address = '192.0.2.31';
    await setApplicationDisabled(server.deps, busy.application.id, true);
    for (let i = 0; i < 15; i += 1) {
      const refused = await send('/oauth/token', busy.uid, busy.secret!, address, { grant_type: 'client_credentials' });
      expect([refused.statusCode, refused.json().error]).toEqual([401, 'invalid_client']);
    }
    await setApplicationDisabled(server.deps, busy.application.id, false);
    expect((await send('/oauth/token', busy.uid, busy.secret!, address, { grant_type: 'client_credentials' })).statusCode).toBe(200);
  });
});
