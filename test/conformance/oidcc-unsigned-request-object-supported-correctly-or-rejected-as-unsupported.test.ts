import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locationParameters } from '../helpers/end-user.js';
import { authorize } from '../helpers/openid.js';
import { codeFrom, discover, exchange, openIdProvider, redirectedError, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported: an unsigned Request Object (alg
// none) in the request parameter (Core 6.1). Discovery says request_parameter_supported is false, and Core 6.1:
// "Should an OP not support this parameter and an RP uses it, the OP MUST return the request_not_supported
// error." Processing it correctly would also pass: the ID token then carries the nonce only the object holds.

describe('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('discovery says the parameter is not supported', async () => {
    expect((await discover(op.server)).request_parameter_supported).toBe(false);
  });

  // Refused with request_not_supported (the rule request_object_absent).
  it('the request is rejected with request_not_supported, or processed with the Request Object nonce', async () => {
    const nonce = 'nonce-only-in-the-request-object';
    const request = suiteRequest(op.client, { nonce: undefined });
    const redirect = await authorize(op.agent, { ...request, request: new UnsecuredJWT({ ...request, nonce }).encode() });
    if (locationParameters(redirect).has('error')) return expect(redirectedError(redirect, request)).toBe('request_not_supported');
    expect((await exchange(op, codeFrom(redirect, request), { nonce })).claims.nonce).toBe(nonce);
  });
});
