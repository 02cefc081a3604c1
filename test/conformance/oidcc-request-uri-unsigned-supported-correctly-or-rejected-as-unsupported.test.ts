import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, locationParameters } from '../helpers/end-user.js';
import { discover, openIdProvider, redirectedError, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported: a request_uri naming an unsigned
// Request Object (Core 6.2). Discovery says request_uri_parameter_supported is false, and Core 6.2: "Should an
// OP not support this parameter and an RP uses it, the OP MUST return the request_uri_not_supported error."

describe('oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('discovery says the parameter is not supported', async () => {
    expect((await discover(op.server)).request_uri_parameter_supported).toBe(false);
  });

  // Refused with request_uri_not_supported (the rule request_uri_absent).
  it('a request_uri is answered request_uri_not_supported, with the state, and no code', async () => {
    const request = suiteRequest(op.client);
    const url = authorizeUrl({ ...request, request_uri: 'https://client.example.com/request-objects/1' });
    const response = await op.agent.request({ method: 'GET', url });
    // The error first, so that the failure shows what came back instead (the consent page).
    expect(locationParameters(response).get('error'), `${response.statusCode} ${String(response.headers.location)}`).toBe(
      'request_uri_not_supported',
    );
    expect(redirectedError(response, request)).toBe('request_uri_not_supported');
  });
});
