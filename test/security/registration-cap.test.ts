import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { createUser, publicCodeFlow, signedIn } from '../helpers/end-user.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';
import { pkceAuthorizeUrl } from '../helpers/client-metadata-document-server.js';
import { tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 29 item 5: with 100 source addresses a stranger filled the open-registration cap in a minute, and every later
// registration was refused. A self-registered client that never completed an authorization (no token) and that no
// admin approved now holds its place for registration.unusedClientLifetimeSeconds (1 hour by default) only: then it
// is an unknown client, no longer counted, and deleted at the next registrations. The operator sees the cap filling:
// a warn line when it crosses 80%, and the gauges oauth_self_registered_clients and oauth_registration_cap_ratio.

const CAP = 5;
const CALLBACK = 'https://rp.example/cb';
const JSON_HEADERS = { 'content-type': 'application/json' };
const CLIENT = { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', client_name: 'Stranger', scope: 'read' };

describe(`issue 29 item 5: unused self-registered clients stop holding the open-registration cap (${backend})`, () => {
  const log = capturedLogLines();
  let server: TestServer;

  beforeAll(async () => {
    server = await buildTestServer({
      config: { log: { level: 'warn', format: 'json' }, registration: { policy: 'open', maxOpenRegistrations: CAP } },
      logStream: log.stream,
    });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server?.close());

  // Each from its own address, so the per-address limit (registration.perAddressPerMinute) does not stop them.
  let address = 0;
  const register = () =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: CLIENT,
      remoteAddress: `198.51.100.${++address}`,
    });
  /** The token endpoint's answer to a made-up code: invalid_grant while the client exists, invalid_client once it does not. */
  const codeExchangeError = async (clientId: string) =>
    (
      await tokenRequest(server.app, {
        grant_type: 'authorization_code',
        code: 'made-up',
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      })
    ).json().error;
  const gauge = (metrics: string, name: string) =>
    Number(new RegExp(`^${name}\\{registered_by="dynamic"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
  const storedDynamicClients = () => server.deps.stores.registrations.countLiveClients('dynamic', new Date(0));

  it('issue 29 item 5 (RFC 7591 section 3): clients that never completed an authorization stop holding the cap after unusedClientLifetimeSeconds, and registration works again', async () => {
    expect(server.config.registration.unusedClientLifetimeSeconds).toBe(3600);
    // One client completes the code flow (its token marks it used), one is approved by an admin: both keep their place.
    const used = (await register()).json();
    const agent = await signedIn(server.app, 'alice');
    const flow = await publicCodeFlow(server.app, agent, { client_id: used.client_id, redirect_uri: CALLBACK, scope: 'read', state: 's' });
    expect(flow.token?.statusCode).toBe(200);
    const approved = (await register()).json();
    const approvedRow = await server.deps.stores.applications.findByUid(approved.client_id);
    await approveApplication(server.deps, approvedRow!.id);
    const strangers: string[] = [];
    const managementTokens: string[] = [];
    for (let i = 2; i < CAP; i += 1) {
      const registered = (await register()).json();
      strangers.push(registered.client_id);
      managementTokens.push(registered.registration_access_token);
    }

    const full = await register();
    expect(full.statusCode).toBe(400);
    expect(full.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: 'Open registration is full' });
    const whenFull = await scrapeMetrics(server.app);
    expect(gauge(whenFull, 'oauth_self_registered_clients')).toBe(CAP);
    expect(gauge(whenFull, 'oauth_registration_cap_ratio')).toBe(1);
    // Once per crossing of 80% (4 of 5), not at every registration after it.
    const nearlyFull = log.lines.filter((line) => line.event === 'registration.cap_nearly_full');
    expect(nearlyFull).toEqual([expect.objectContaining({ level: 40, registeredBy: 'dynamic', live: 4, cap: CAP })]);
    expect(await codeExchangeError(strangers[0]!)).toBe('invalid_grant');

    server.clock.advance(3601);
    // An expired unused client is unknown: at the token endpoint, and at /oauth/authorize with a page that says why.
    expect(await codeExchangeError(strangers[0]!)).toBe('invalid_client');
    const page = await server.app.inject({ method: 'GET', url: pkceAuthorizeUrl({ client_id: strangers[1]!, redirect_uri: CALLBACK }) });
    expect(page.statusCode).toBe(401);
    expect(page.body).toContain('did not complete an authorization in time, so its registration has expired');
    // RFC 7592 section 2: nor can its registration be read or updated any more (its token is no longer valid).
    const read = await server.app.inject({
      method: 'GET',
      url: `/oauth/register/${strangers[2]}`,
      headers: { authorization: `Bearer ${managementTokens[2]}` },
    });
    expect(read.statusCode).toBe(401);
    expect(read.json()).toMatchObject({ error: 'invalid_token' });
    // The used and the approved client still work.
    expect(await codeExchangeError(used.client_id)).toBe('invalid_grant');
    expect(await codeExchangeError(approved.client_id)).toBe('invalid_grant');

    const again = await register();
    expect(again.statusCode).toBe(201);
    // The expired ones were deleted under the registration lock; the used, the approved and the new one are left.
    expect(await storedDynamicClients()).toBe(3);
    const after = await scrapeMetrics(server.app);
    expect(gauge(after, 'oauth_self_registered_clients')).toBe(3);
    expect(gauge(after, 'oauth_registration_cap_ratio')).toBe(3 / CAP);
    expect(await codeExchangeError(again.json().client_id)).toBe('invalid_grant');
  });
});
