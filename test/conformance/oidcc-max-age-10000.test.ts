import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-max-age-10000: max_age=10000 with a recent sign-in: no new login; the ID token carries auth_time (Core
// 2: required when max_age was requested), the time of that sign-in.

describe('oidcc-max-age-10000', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('a sign-in younger than max_age is reused, and auth_time is its time', async () => {
    const first = await suiteCodeFlow(op);
    op.server.clock.advance(2);
    const { claims } = await suiteCodeFlow(op, { max_age: '10000' });
    expect(claims.auth_time).toEqual(expect.any(Number));
    expect(claims.auth_time).toBe(first.claims.auth_time);
  });
});
