import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CALLBACK, createClient, createUser, PASSWORD, signedIn, userAgent } from '../helpers/end-user.js';
import { codeFlow, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// OpenID Connect Core 3.1.2.1: an id_token_hint names the user the client expects. When the sign-in it leads to gives
// another user, the server "SHOULD return an error, such as login_required", not a code for someone the client did not
// ask for. The way back from /login no longer carries the hint in its URL: who it named is kept for that way back.

describe(`id_token_hint and the sign-in it asks for (${backend})`, () => {
  let server: TestServer;
  let client: Awaited<ReturnType<typeof createClient>>;
  let bobsIdToken: string;
  beforeAll(async () => {
    server = await openIdServer();
    client = await createClient(server.deps);
    await createUser(server.deps, 'hinted-bob');
    await createUser(server.deps, 'hinted-alice');
    const { response } = await codeFlow(server, await signedIn(server.app, 'hinted-bob'), client);
    bobsIdToken = response.json().id_token;
  });
  afterAll(() => server.close());

  /** A browser without a session asks with bob's ID token as hint, then signs in as `username`; where it ends. */
  async function signInFor(username: string): Promise<URL> {
    const agent = userAgent(server.app);
    const url = authorizeUrl({
      client_id: client.application.uid,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 'hinted',
      id_token_hint: bobsIdToken,
    });
    expect((await agent.request({ method: 'GET', url })).headers.location).toBe('/login');
    const back = (await agent.post('/login', { username, password: PASSWORD })).headers.location as string;
    expect(back).not.toContain('id_token_hint');
    // Bob authorized the client at his first sign-in: no consent page now, the answer goes straight to the client.
    const answer = await agent.request({ method: 'GET', url: back });
    expect(answer.statusCode).toBe(302);
    return new URL(String(answer.headers.location));
  }

  it('another user signing in: login_required to the client, with the state, and no code', async () => {
    const answer = await signInFor('hinted-alice');
    expect(answer.origin + answer.pathname).toBe(CALLBACK);
    expect(Object.fromEntries(answer.searchParams)).toMatchObject({
      error: 'login_required',
      error_description: 'The user who signed in is not the one the id_token_hint names (OpenID Connect Core 3.1.2.1).',
      state: 'hinted',
    });
    expect(answer.searchParams.has('code')).toBe(false);
  });

  it('the user the hint names signing in: a code', async () => {
    const answer = await signInFor('hinted-bob');
    expect(answer.searchParams.has('code')).toBe(true);
  });
});
