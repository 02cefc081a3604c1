import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl } from '../helpers/end-user.js';
import { codeFrom, exchange, openIdProvider, suiteCodeFlow, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-prompt-none-logged-in: after a first authorization (login and consent), prompt=none in the same browser
// returns a code without any page (Core 3.1.2.1), for the same sub. The consent is remembered through
// skipAuthorization.whenPreviouslyAuthorized: the confidential client holds a live token for these scopes.

describe('oidcc-prompt-none-logged-in', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider({ config: { skipAuthorization: { whenPreviouslyAuthorized: true } } })));
  afterAll(() => op.close());

  it('prompt=none with a session and a previous consent redirects a code straight away', async () => {
    const first = await suiteCodeFlow(op);
    const request = suiteRequest(op.client, { prompt: 'none' });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    const second = await exchange(op, codeFrom(redirect, request), { nonce: request.nonce });
    expect(second.claims.sub).toBe(first.claims.sub);
    expect(second.claims.auth_time).toBe(first.claims.auth_time);
  });
});
