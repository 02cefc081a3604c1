import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, userAgent } from '../helpers/end-user.js';
import { openIdProvider, redirectedError, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-prompt-none-not-logged-in: prompt=none without a session must not show any page; the OP answers
// login_required to the client (Core 3.1.2.6), with the request's state.

describe('oidcc-prompt-none-not-logged-in', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('a browser without a session gets login_required redirected to the client, no page', async () => {
    const request = suiteRequest(op.client, { prompt: 'none' });
    const redirect = await userAgent(op.server.app).request({ method: 'GET', url: authorizeUrl(request) });
    expect(redirectedError(redirect, request)).toBe('login_required');
  });
});
