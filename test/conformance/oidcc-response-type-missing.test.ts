import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl } from '../helpers/end-user.js';
import { openIdProvider, redirectedError, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-response-type-missing: an authorization request without response_type. The client and redirect URI are
// valid, so the error goes back to the client (Core 3.1.2.6, RFC 6749 section 4.1.2.1) with the request's
// state, and no code is issued.

describe('oidcc-response-type-missing', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('redirects invalid_request (or unsupported_response_type) to the client, without a code', async () => {
    const request = suiteRequest(op.client, { response_type: undefined });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(['invalid_request', 'unsupported_response_type']).toContain(redirectedError(redirect, request));
  });
});
