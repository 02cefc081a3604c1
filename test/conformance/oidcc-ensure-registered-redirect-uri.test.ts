import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl } from '../helpers/end-user.js';
import { CALLBACK, openIdProvider, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-ensure-registered-redirect-uri: a redirect_uri that is not registered (Core 3.1.2.1: exact match) must
// not be redirected to, not even with an error (Core 3.1.2.6, RFC 6749 section 4.1.2.1): the OP shows an error
// page instead.

describe('oidcc-ensure-registered-redirect-uri', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('an unregistered redirect_uri gets an error page, never a redirect', async () => {
    for (const redirectUri of [`${CALLBACK}/wrong`, `${CALLBACK}?extra=1`, 'https://attacker.example/callback']) {
      const response = await op.agent.request({ method: 'GET', url: authorizeUrl(suiteRequest(op.client, { redirect_uri: redirectUri })) });
      expect(response.statusCode, redirectUri).toBe(400);
      expect(response.headers.location, redirectUri).toBeUndefined();
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).not.toContain('attacker.example');
    }
  });
});
