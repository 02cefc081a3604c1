import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, authorizeUrl, hiddenFields, userAgent } from '../helpers/end-user.js';
import { codeFrom, exchange, openIdProvider, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-login-hint: login_hint (Core 3.1.2.1) is accepted; without a session the login form is pre-filled with
// it, and the flow completes.

describe('oidcc-login-hint', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('the login page pre-fills the hinted user name, and the flow completes after the sign-in', async () => {
    const agent = userAgent(op.server.app);
    const request = suiteRequest(op.client, { login_hint: op.user.username });
    const toLogin = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(toLogin.headers.location).toBe('/login');
    const page = await agent.request({ method: 'GET', url: '/login' });
    expect(page.body).toContain(`name="username" value="${op.user.username}"`);
    const loggedIn = await agent.post('/login', { username: op.user.username, password: PASSWORD });
    const consent = await agent.request({ method: 'GET', url: String(loggedIn.headers.location) });
    const redirect = await agent.post('/oauth/authorize', hiddenFields(consent.body));
    await exchange(op, codeFrom(redirect, request), { nonce: request.nonce });
  });
});
