import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenFields, userAgent, type UserAgent } from '../helpers/end-user.js';
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

  // RFC 9700 section 4.12, FAPI 2.0 5.3.2.2: after a POST the redirects are 303s, else the browser may post the form on.
  it('answers its redirects with 303: an error to the client, a code with the consent given before, the way to sign in', async () => {
    const post = (agent: UserAgent, fields: Record<string, string>) =>
      agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(fields) });
    const refused = await post(op.agent, suiteRequest(op.client, { scope: 'openid bogus' }));
    expect([refused.statusCode, new URL(refused.headers.location as string).searchParams.get('error')]).toEqual([303, 'invalid_scope']);
    const request = suiteRequest(op.client, { prompt: 'consent' });
    await op.agent.post('/oauth/authorize', hiddenFields((await post(op.agent, request)).body));
    const approved = await post(op.agent, suiteRequest(op.client));
    expect([approved.statusCode, new URL(approved.headers.location as string).searchParams.has('code')]).toEqual([303, true]);
    const anonymous = await post(userAgent(op.server.app), suiteRequest(op.client));
    expect([anonymous.statusCode, anonymous.headers.location]).toEqual([303, '/login']);
  });
});
