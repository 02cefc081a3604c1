import { afterAll, beforeAll, describe, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-ui-locales: ui_locales (Core 3.1.2.1) is a preference the OP may ignore; the request must not fail.

describe('oidcc-ui-locales', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('ui_locales=se completes the code flow', async () => {
    await suiteCodeFlow(op, { ui_locales: 'se' });
  });
});
