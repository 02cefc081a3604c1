import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl } from '../helpers/end-user.js';
import { openIdProvider, suiteCodeFlow, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-display-page: display=page (Core 3.1.2.1) is accepted; the same pages are shown (display only hints
// at how to show them) and the flow succeeds.

describe('oidcc-display-page', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('display=page shows the consent page and completes the code flow', async () => {
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(suiteRequest(op.client, { display: 'page' })) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Authorize');
    await suiteCodeFlow(op, { display: 'page' });
  });
});
