import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locationParameters } from '../helpers/end-user.js';
import { authorize } from '../helpers/openid.js';
import { codeFrom, discover, exchange, openIdProvider, redirectedError, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported: request_uri pointing at an unsigned Request Object (Core 6.2). Discovery
// says request_uri_parameter_supported is false, and Core 6.2: "Should an OP not support this parameter and an RP uses
// it, the OP MUST return the request_uri_not_supported error." Processing it correctly would also pass: the
// ID token then carries the nonce that only the Request Object holds.

describe('oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('discovery says the parameter is not supported', async () => {
    expect((await discover(op.server)).request_uri_parameter_supported).toBe(false);
  });

  // Known failure: request_uri is ignored: a code comes back although the Request Object (and its nonce) was never fetched.
  it.fails('the request is rejected with request_uri_not_supported, or processed with the Request Object nonce', async () => {
    const nonce = 'nonce-only-in-the-request-object';
    const request = suiteRequest(op.client, { nonce: undefined });
    const redirect = await authorize(op.agent, { ...request, request_uri: 'https://client.example.com/request-objects/1' });
    if (locationParameters(redirect).has('error')) return expect(redirectedError(redirect, request)).toBe('request_uri_not_supported');
    expect((await exchange(op, codeFrom(redirect, request), { nonce })).claims.nonce).toBe(nonce);
  });
});
