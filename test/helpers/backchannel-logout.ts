import type { ConfigInput } from '../../src/config/types.js';
import type { BackchannelLogoutConfig } from '../../src/config/backchannel-logout-schema.js';
import type { LogoutDeliveryRecord } from '../../src/oauth/openid/backchannel-logout/logout-delivery-store.js';
import { Prisma } from '../../src/storage/generated/client.js';
import { selectList } from '../../src/storage/rows.js';
import { createClient, signedIn, type UserAgent } from './end-user.js';
import { codeFlow, openIdServer } from './openid.js';
import type { TestDatabase } from './test-database.js';
import type { TestServer, TestServerOptions } from './test-server.js';

// Back-Channel Logout tests: an OpenID Provider with the delivery settings a test needs, a user signed in to a
// relying party, and the rows of oauth_logout_deliveries.

/** An OpenID Provider (inject) with openid.backchannelLogout settings, on `testDatabase` when given. */
export function backchannelServer(
  settings: Partial<BackchannelLogoutConfig> = {},
  options: TestServerOptions & { config?: ConfigInput & Record<string, unknown>; testDatabase?: TestDatabase } = {},
): Promise<TestServer> {
  return openIdServer({
    ...options,
    // The loader fills in the settings left out.
    config: { ...options.config, openid: { enabled: true, backchannelLogout: settings } } as ConfigInput,
  });
}

/** A confidential client whose back-channel logout URI is `uri`. */
export function relyingParty(server: TestServer, uri: string, fields: Parameters<typeof createClient>[1] = {}) {
  return createClient(server.deps, { name: 'Relying Party', backchannelLogoutUri: uri, ...fields });
}

/** `username` signed in, with an ID token from the code flow at `client`: the browser and the token response. */
export async function signedInAt(
  server: TestServer,
  username: string,
  client: Awaited<ReturnType<typeof createClient>>,
  agent?: UserAgent,
): Promise<{ agent: UserAgent; idToken: string }> {
  const browser = agent ?? (await signedIn(server.app, username));
  const { response } = await codeFlow(server, browser, client);
  if (response.statusCode !== 200) throw new Error(`code exchange: ${response.statusCode} ${response.body}`);
  return { agent: browser, idToken: (response.json() as { id_token: string }).id_token };
}

/** The rows of oauth_logout_deliveries, oldest first. */
export async function deliveryRows(server: { app: TestServer['app'] }): Promise<LogoutDeliveryRecord[]> {
  const rows = await server.app.database.sql.query<LogoutDeliveryRecord>(
    `SELECT ${selectList(Prisma.OauthLogoutDeliveryScalarFieldEnum)} FROM oauth_logout_deliveries ORDER BY id`,
  );
  return rows.map((row) => ({ ...row, id: Number(row.id), applicationId: Number(row.applicationId) }));
}

/** Polls `check` until it returns something other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
