import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';

// docs/operations.md "Traces": tokens, secrets, codes and passwords are never attributes. @fastify/otel's url.path is
// the request's URL, query included: the values the request log redacts are redacted there the same way. The
// service is the real executable exporting to a receiver in this process, as it would to a collector.
describe('traces over OTLP: no secret of a query string reaches the collector', () => {
  let receiver: OtlpReceiver;
  let fixture: ServiceFixture;
  let service: { child: ChildProcess; baseUrl: string };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    fixture = await serviceFixture('oauth-otel-urls-');
    service = await startService({
      ...fixture.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    });
  });
  afterAll(async () => {
    if (service) await stopService(service.child);
    await fixture?.dispose();
    await receiver?.close();
  });

  const secret = (name: string) => `${name}-${randomBytes(12).toString('hex')}`;

  // Each request under a trace of its own, so that its request span can be waited for.
  async function tracedGet(path: string) {
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${service.baseUrl}${path}`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      redirect: 'manual',
    });
    await response.arrayBuffer();
    return receiver.waitFor((span) => span.traceId === traceId && span.name === 'request');
  }

  it('GET with access_token, id_token_hint, state, login_hint and code in the query (names also percent-encoded): no attribute holds a value', async () => {
    const values = {
      accessToken: secret('access-token'),
      encodedAccessToken: secret('encoded-access-token'),
      idTokenHint: `eyJhbGciOiJSUzI1NiJ9.${secret('id-token-hint')}.c2ln`,
      state: secret('state'),
      encodedState: secret('encoded-state'),
      loginHint: `${secret('alice')}@example.com`,
      code: secret('code'),
      unrouted: secret('unrouted-token'),
    };
    const tokenInfo = await tracedGet(`/oauth/token/info?access_token=${values.accessToken}`);
    const userInfo = await tracedGet(`/oauth/userinfo?%61ccess_token=${values.encodedAccessToken}`);
    const logout = await tracedGet(`/logout?id_token_hint=${values.idTokenHint}`);
    const authorize = await tracedGet(
      `/oauth/authorize?client_id=unknown-client&response_type=code&state=${values.state}` +
        `&login_hint=${encodeURIComponent(values.loginHint)}&code=${values.code}&%73tate=${values.encodedState}`,
    );
    // A path no route serves: the span of the 404 (and any error recorded on it) holds no value either.
    const unrouted = await tracedGet(`/oauth/no-such-endpoint?token=${values.unrouted}`);
    expect(unrouted.attributes['url.path']).toBe('/oauth/no-such-endpoint?token=[Redacted]');
    expect(tokenInfo.attributes['url.path']).toBe('/oauth/token/info?access_token=[Redacted]');
    expect(userInfo.attributes['url.path']).toBe('/oauth/userinfo?%61ccess_token=[Redacted]');
    expect(logout.attributes['url.path']).toBe('/logout?id_token_hint=[Redacted]');
    expect(authorize.attributes['url.path']).toBe(
      '/oauth/authorize?client_id=unknown-client&response_type=code&state=[Redacted]&login_hint=[Redacted]&code=[Redacted]&%73tate=[Redacted]',
    );
    // Every span exported (the requests' hooks and handlers, statements), every attribute, event and status.
    const exported = JSON.stringify(receiver.spans);
    for (const value of [...Object.values(values), encodeURIComponent(values.loginHint)]) expect(exported).not.toContain(value);
  });
});
