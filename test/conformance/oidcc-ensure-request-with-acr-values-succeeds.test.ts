import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-ensure-request-with-acr-values-succeeds: acr_values (Core 3.1.2.1) is a voluntary request; an OP without
// authentication context classes ignores it, so the flow succeeds (an acr claim, if any, would be a string).

describe('oidcc-ensure-request-with-acr-values-succeeds', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('acr_values="1 2" completes the code flow', async () => {
    const { claims } = await suiteCodeFlow(op, { acr_values: '1 2' });
    if (claims.acr !== undefined) expect(typeof claims.acr).toBe('string');
  });
});
