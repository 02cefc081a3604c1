import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableUser, enableUser, revokeUserTokens } from '../../src/oauth/users/users.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { DEVICE_FLOW_CONFIG, decideAtDevicePage, deviceAuthorization, deviceClient, pollDevice } from '../helpers/device-flow.js';
import { countRows, createUser, csrfTokenIn, signedIn, type UserAgent } from '../helpers/end-user.js';
import type { TestClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Audit h finding 1: a device authorization the user approved but the device has not yet polled is the device grant's
// unused code. "Revoke all tokens", Disable and the user's own Revoke of the application end it: the next poll is
// access_denied (RFC 8628 section 3.5) and never tokens, also after the user is enabled again.

describe(`revoking a user's authorizations ends their approved device codes (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let other: TestClient;
  let carol: UserRecord;
  let agent: UserAgent;
  beforeAll(async () => {
    server = await buildTestServer({ config: DEVICE_FLOW_CONFIG });
    client = await deviceClient(server.deps);
    other = await deviceClient(server.deps);
    carol = await createUser(server.deps, 'carol');
    agent = await signedIn(server.app, 'carol');
  });
  afterAll(() => server.close());

  const approved = async (device: TestClient) => {
    const started = await deviceAuthorization(server.app, device);
    expect((await decideAtDevicePage(agent, started.user_code, true)).body).toContain('Device connected');
    return started.device_code;
  };
  const pollError = async (device: TestClient, deviceCode: string) => {
    const polled = await pollDevice(server.app, device, deviceCode);
    return { status: polled.statusCode, error: (polled.json() as { error?: string }).error };
  };

  it('"Revoke all tokens": the next poll is access_denied, no token is issued, and the approval counts as a grant', async () => {
    const deviceCode = await approved(client);
    const tokens = await countRows(server, 'oauth_access_tokens');
    expect(await revokeUserTokens(server.deps, carol)).toEqual({ tokens: 0, grants: 1 });
    expect(await pollError(client, deviceCode)).toEqual({ status: 400, error: 'access_denied' });
    expect(await countRows(server, 'oauth_access_tokens')).toBe(tokens);
  });

  it('Disable then Enable: the same device code stays refused (access_denied), never tokens', async () => {
    const deviceCode = await approved(client);
    const tokens = await countRows(server, 'oauth_access_tokens');
    await disableUser(server.deps, carol);
    await enableUser(server.deps, (await server.deps.stores.users.findById(carol.id))!);
    expect(await pollError(client, deviceCode)).toEqual({ status: 400, error: 'access_denied' });
    expect(await countRows(server, 'oauth_access_tokens')).toBe(tokens);
    agent = await signedIn(server.app, 'carol');
  });

  it("the user's Revoke of one application ends that application's approvals only", async () => {
    const revokedCode = await approved(client);
    const keptCode = await approved(other);
    const csrf = csrfTokenIn((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).body)!;
    const revoke = await agent.request({
      method: 'DELETE',
      url: `/oauth/authorized_applications/${client.application.id}`,
      headers: { accept: 'application/json', 'x-csrf-token': csrf },
    });
    expect(revoke.statusCode).toBe(204);
    expect(await pollError(client, revokedCode)).toEqual({ status: 400, error: 'access_denied' });
    expect((await pollDevice(server.app, other, keptCode)).statusCode).toBe(200);
  });
});
