import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '../helpers/openid.js';
import { codeFrom, exchange, openIdProvider, signInWhenAsked, suiteCodeFlow, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-max-age-1: max_age=1 (Core 3.1.2.1) with a sign-in two seconds old: the OP must authenticate the user
// again, and the ID token then has an auth_time (required when max_age was sent, Core 2) newer than before.

describe('oidcc-max-age-1', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('a sign-in older than max_age sends the user to /login, and auth_time is the new sign-in', async () => {
    const first = await suiteCodeFlow(op);
    op.server.clock.advance(2);
    const request = suiteRequest(op.client, { max_age: '1' });
    const redirect = await signInWhenAsked(op, op.agent, await authorize(op.agent, request));
    const { claims } = await exchange(op, codeFrom(redirect, request), { nonce: request.nonce });
    expect(claims.auth_time).toEqual(expect.any(Number));
    expect(claims.auth_time).toBeGreaterThan(first.claims.auth_time as number);
    expect(claims.auth_time).toBeGreaterThanOrEqual(Math.floor(op.server.clock.now.getTime() / 1000) - 1);
  });
});
