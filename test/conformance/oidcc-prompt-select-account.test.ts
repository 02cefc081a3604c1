import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, PASSWORD } from '../helpers/end-user.js';
import { authorize } from '../helpers/openid.js';
import { CALLBACK, codeFrom, openIdProvider, suiteCodeFlow, suiteRequest, tokenEndpoint, type OpenIdProvider } from './support.js';

// prompt=select_account (Core 3.1.2.1): the OP asks which account to use. One account is signed in per browser here,
// so the answer is the login page, even with a session: the user goes on as the same account or signs in as another.

describe('prompt=select_account', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('with a session, shows the login page; signing in as another user answers for that user', async () => {
    const first = await suiteCodeFlow(op);
    const other = await createUser(op.server.deps, 'selected');
    const request = suiteRequest(op.client, { prompt: 'select_account' });
    const asked = await authorize(op.agent, request);
    expect(asked.statusCode, asked.body.slice(0, 300)).toBe(302);
    expect(asked.headers.location).toBe('/login');
    const loggedIn = await op.agent.post('/login', { username: other.username, password: PASSWORD });
    expect(loggedIn.statusCode, loggedIn.body.slice(0, 300)).toBe(303);
    // Back at the authorization request, without the prompt that sent the user to sign in: no second login page.
    const back = await authorize(op.agent, { ...Object.fromEntries(new URL(String(loggedIn.headers.location), 'http://x').searchParams) });
    const response = await tokenEndpoint(op, { grant_type: 'authorization_code', code: codeFrom(back, request), redirect_uri: CALLBACK });
    expect(response.statusCode, response.body).toBe(200);
    const claims = decodeJwt(response.json().id_token as string);
    expect(claims.sub).not.toBe(first.claims.sub);
    expect(claims.sub).toBe(other.subject);
  });
});
