import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMfaPolicy } from '../../src/oauth/second-factor/second-factors.js';
import { createClient, createUser, PASSWORD, signedIn } from '../helpers/end-user.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { enrolFromAccount } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// behaviour.md 3.19: a user whose sign-in asks for a second factor (their policy, their authenticator app, the server's
// requireSecondFactor for the client) is not signed in by the password grant, which cannot ask for it: a stolen
// password alone got tokens there while /login asked for the second step.

type Client = Awaited<ReturnType<typeof createClient>>;

const SECOND_FACTOR_DUE = {
  error: 'invalid_grant',
  error_description:
    'This user signs in with a second factor, which the password grant cannot ask for: sign in through the authorization endpoint.',
};

describe(`the password grant and the second factor (${backend})`, () => {
  let server: TestServer;
  let client: Client;
  let strict: Client;
  beforeAll(async () => {
    server = await openIdServer({
      config: { grantFlows: ['authorization_code', 'refresh_token', 'password'], authentication: { requireSecondFactor: ['strict-app'] } },
      env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    });
    client = await createClient(server.deps);
    strict = await createClient(server.deps, {}, { uid: 'strict-app' });
  });
  afterAll(() => server.close());

  const grant = (username: string, as = client) =>
    tokenRequest(server.app, { grant_type: 'password', username, password: PASSWORD }, basic(as.application.uid, as.plainSecret!));
  const refused = async (username: string, as = client) => {
    const response = await grant(username, as);
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: SECOND_FACTOR_DUE });
  };

  it('a user whose policy requires it, or who set up an authenticator app, is refused; nothing is issued', async () => {
    const required = await createUser(server.deps, 'required');
    await setMfaPolicy(server.deps, required, 'required');
    await refused('required');
    await createUser(server.deps, 'with-app');
    await enrolFromAccount(await signedIn(server.app, 'with-app'), server.clock.now);
    await refused('with-app');
    const [row] = await server.app.database.sql.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM oauth_access_tokens WHERE resource_owner_id IN (SELECT id FROM users WHERE username IN ($1, $2))',
      ['required', 'with-app'],
    );
    expect(row!.count).toBe(0);
  });

  it("the server's requireSecondFactor naming the client refuses it for every user; another client's grant works", async () => {
    await createUser(server.deps, 'plain');
    await refused('plain', strict);
    const granted = await grant('plain');
    expect(granted.statusCode, granted.body).toBe(200);
  });
});
