import { afterAll, beforeAll, describe, it } from 'vitest';
import { hiddenFields } from '../helpers/end-user.js';
import { FORM, form } from '../helpers/test-server.js';
import { codeFrom, exchange, openIdProvider, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-ensure-post-request-succeeds: Core 3.1.2.1: "Authorization Servers MUST support the use of the HTTP GET
// and POST methods ... at the Authorization Endpoint." The relying party's page auto-submits the authentication
// request as a form POST; the OP must treat it as it treats the GET.

describe('oidcc-ensure-post-request-succeeds', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  // With openid.enabled, a POST without _csrf or _method is an authentication request, handled like the GET.
  it('an authentication request sent by POST shows the consent page and completes the code flow', async () => {
    const request = suiteRequest(op.client);
    const consent = await op.agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(request) });
    if (consent.statusCode !== 200) throw new Error(`POST /oauth/authorize answered ${consent.statusCode}`);
    const redirect = await op.agent.post('/oauth/authorize', hiddenFields(consent.body));
    await exchange(op, codeFrom(redirect, request), { nonce: request.nonce });
  });
});
