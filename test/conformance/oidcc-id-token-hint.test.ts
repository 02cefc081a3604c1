import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl } from '../helpers/end-user.js';
import { codeFrom, exchange, openIdProvider, suiteCodeFlow, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-id-token-hint: a second request with prompt=none and the first ID token as id_token_hint (Core
// 3.1.2.1) for the signed-in user succeeds without a page, for the same sub. Consent is remembered as in
// oidcc-prompt-none-logged-in.

describe('oidcc-id-token-hint', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider({ config: { skipAuthorization: { whenPreviouslyAuthorized: true } } })));
  afterAll(() => op.close());

  it('prompt=none with the previous ID token as hint returns a code and an ID token for the same sub', async () => {
    const first = await suiteCodeFlow(op);
    const request = suiteRequest(op.client, { prompt: 'none', id_token_hint: first.tokens.id_token });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    const second = await exchange(op, codeFrom(redirect, request), { nonce: request.nonce });
    expect(second.claims.sub).toBe(first.claims.sub);
  });
});
