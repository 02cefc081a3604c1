import { afterAll, beforeAll, describe, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-ensure-request-with-unknown-parameter-succeeds: Core 3.1.2.1 (and RFC 6749 section 3.1): the OP MUST
// ignore parameters it does not understand.

describe('oidcc-ensure-request-with-unknown-parameter-succeeds', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('an unknown parameter (extra=foobar) is ignored and the code flow completes', async () => {
    await suiteCodeFlow(op, { extra: 'foobar' });
  });
});
