import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-server-client-secret-post: the code exchange authenticated by client_id and client_secret in the form
// body (Core 9, RFC 6749 section 2.3.1), which discovery advertises.

describe('oidcc-server-client-secret-post', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('client_secret_post is advertised and the exchange with it returns a valid ID token', async () => {
    expect((await discover(op.server)).token_endpoint_auth_methods_supported).toContain('client_secret_post');
    await suiteCodeFlow(op, {}, { method: 'client_secret_post' });
  });
});
