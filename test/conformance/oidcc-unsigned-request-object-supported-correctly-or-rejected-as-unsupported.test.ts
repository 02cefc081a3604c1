import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locationParameters } from '../helpers/end-user.js';
import { authorize } from '../helpers/openid.js';
import { codeFrom, discover, exchange, openIdProvider, redirectedError, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported: an unsigned Request Object (alg
// none) in the request parameter (Core 6.1). Discovery says request objects are supported, signed only (RFC 9101,
// with the client's registered keys: request_object_signing_alg_values_supported has no "none"), and this client has
// no keys, so Core 6.1: "Should an OP not support this parameter and an RP uses it, the OP MUST return the
// request_not_supported error." Processing it correctly would also pass: the ID token then carries the nonce only the
// object holds.

describe('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('discovery says signed request objects only', async () => {
    const document = await discover(op.server);
    expect(document.request_parameter_supported).toBe(true);
    expect(document.request_object_signing_alg_values_supported).not.toContain('none');
  });

  // Refused with request_not_supported (the rule request_object_unpacked: the client has no keys).
  it('the request is rejected with request_not_supported, or processed with the Request Object nonce', async () => {
    const nonce = 'nonce-only-in-the-request-object';
    const request = suiteRequest(op.client, { nonce: undefined });
    const redirect = await authorize(op.agent, { ...request, request: new UnsecuredJWT({ ...request, nonce }).encode() });
    if (locationParameters(redirect).has('error')) return expect(redirectedError(redirect, request)).toBe('request_not_supported');
    expect((await exchange(op, codeFrom(redirect, request), { nonce })).claims.nonce).toBe(nonce);
  });
});
