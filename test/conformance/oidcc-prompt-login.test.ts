import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '../helpers/openid.js';
import { codeFrom, exchange, openIdProvider, signInWhenAsked, suiteCodeFlow, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-prompt-login: prompt=login (Core 3.1.2.1) makes the OP authenticate the user again although a session
// exists; the second ID token's auth_time is newer than the first's.

describe('oidcc-prompt-login', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('with a session, prompt=login asks for the password again, and auth_time moves forward', async () => {
    const first = await suiteCodeFlow(op);
    op.server.clock.advance(2);
    const request = suiteRequest(op.client, { prompt: 'login' });
    const redirect = await signInWhenAsked(op, op.agent, await authorize(op.agent, request));
    const second = await exchange(op, codeFrom(redirect, request), { nonce: request.nonce });
    expect(second.claims.sub).toBe(first.claims.sub);
    expect(second.claims.auth_time).toBeGreaterThan(first.claims.auth_time as number);
  });
});
