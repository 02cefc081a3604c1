import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-ensure-request-without-nonce-succeeds-for-code-flow: nonce is OPTIONAL for the code flow (Core
// 3.1.2.1); the request succeeds and the ID token has no nonce claim (Core 2: only when the request had one).

describe('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('a code request without nonce gets a code and a valid ID token without nonce', async () => {
    const { claims } = await suiteCodeFlow(op, { nonce: undefined });
    expect(claims).not.toHaveProperty('nonce');
  });
});
