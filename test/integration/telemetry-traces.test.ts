import { createHash, randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProtectedApi } from '../../examples/protected-api.js';
import {
  CALLBACK,
  documentServer,
  documentSettings,
  json,
  pkceAuthorizeUrl,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { runService, serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer } from '../helpers/test-server.js';

// Issue 32 item 6: `serve` with OTEL_EXPORTER_OTLP_ENDPOINT exports its traces; a receiver in this process gets
// them as a collector would. The service is the real executable, started with the standard OTEL_* variables.
describe('traces over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let receiver: OtlpReceiver;
  let fixture: ServiceFixture;
  let service: { child: ChildProcess; baseUrl: string; output: () => string };
  let client: { uid: string; secret: string };
  let documents: DocumentServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    documents = await documentServer();
    fixture = await serviceFixture('oauth-otel-');
    // Client ID Metadata Documents on, from loopback over http (development only): an outbound fetch to trace.
    const configPath = join(fixture.env.DATA_DIR!, 'config.json');
    writeFileSync(configPath, JSON.stringify({ registration: { clientIdMetadataDocuments: documentSettings() } }));
    const created = await runService(
      ['apps', 'create', '--name', 'Traced', '--redirect-uri', 'https://app.example/cb', '--json'],
      fixture.env,
    );
    expect(created.code, created.stderr).toBe(0);
    client = JSON.parse(created.stdout) as { uid: string; secret: string };
    service = await startService({
      ...fixture.env,
      OAUTH_CONFIG: configPath,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // The batch processor's delay (default 5 s): spans arrive while the test waits, not after it.
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_SERVICE_NAME: 'oauth-service-traced',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci',
    });
  });
  afterAll(async () => {
    if (service) await stopService(service.child);
    await fixture?.dispose();
    await documents?.close();
    await receiver?.close();
  });

  // A caller's W3C trace context (https://www.w3.org/TR/trace-context/#traceparent-header).
  const callerContext = () => {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
  };
  const post = (path: string, form: Record<string, string>, headers: Record<string, string>) =>
    fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });
  const requestSpanOf = (traceId: string) => receiver.waitFor((span) => span.traceId === traceId && span.name === 'request');
  const descendantsOf = (root: ReceivedSpan) => {
    const found: ReceivedSpan[] = [];
    const visit = (parent: ReceivedSpan) =>
      receiver.spans.filter((span) => span.parentSpanId === parent.spanId).forEach((child) => (found.push(child), visit(child)));
    visit(root);
    return found;
  };

  it("POST /oauth/token grant_type=client_credentials: a request span under the caller's trace, with route, hashed client id, grant type and outcome", async () => {
    const caller = callerContext();
    const response = await post(
      '/oauth/token',
      { grant_type: 'client_credentials' },
      { ...basic(client.uid, client.secret), traceparent: caller.traceparent },
    );
    expect(response.status).toBe(200);
    const span = await requestSpanOf(caller.traceId);
    expect(span.parentSpanId).toBe(caller.spanId);
    expect(span.attributes).toMatchObject({
      'http.route': '/oauth/token',
      'http.response.status_code': 200,
      'oauth.grant_type': 'client_credentials',
      'oauth.outcome': 'success',
    });
    // Config telemetry.clientIdAttribute defaults to hashed: the id itself never leaves the service.
    expect(span.attributes['oauth.client_id_hash']).toBe(createHash('sha256').update(client.uid).digest('base64url').slice(0, 16));
    expect(span.attributes).not.toHaveProperty('oauth.client_id');
    expect(JSON.stringify(receiver.spans)).not.toContain(client.uid);
    expect(JSON.stringify(receiver.spans)).not.toContain(client.secret);
    // Statement spans: pg's instrumentation on PostgreSQL, the service's own on PGlite (traced-pglite.ts); the text only.
    const scope = backend === 'postgresql' ? 'instrumentation-pg' : 'oauth-service-pglite';
    const statements = descendantsOf(span).filter((child) => child.scope.includes(scope));
    expect(statements.length).toBeGreaterThan(0);
    const text = (child: (typeof statements)[number]) => String(child.attributes['db.statement'] ?? child.attributes['db.query.text']);
    expect(statements.some((child) => text(child).includes('oauth_access_tokens'))).toBe(true);
  });

  it('the spans name the service as OTEL_SERVICE_NAME says, with the attributes of OTEL_RESOURCE_ATTRIBUTES', async () => {
    const caller = callerContext();
    await post('/oauth/introspect', { token: 'x' }, { ...basic(client.uid, client.secret), traceparent: caller.traceparent });
    const span = await requestSpanOf(caller.traceId);
    expect(span.resource).toMatchObject({ 'service.name': 'oauth-service-traced', 'deployment.environment.name': 'ci' });
  });

  it('POST /oauth/introspect: a refused client is the outcome invalid_client, the access token never an attribute', async () => {
    const caller = callerContext();
    const response = await post(
      '/oauth/introspect',
      { token: 'some-token-value-that-is-not-known' },
      { ...basic(client.uid, 'wrong secret'), traceparent: caller.traceparent },
    );
    expect(response.status).toBe(401);
    const span = await requestSpanOf(caller.traceId);
    expect(span.parentSpanId).toBe(caller.spanId);
    expect(span.attributes).toMatchObject({ 'http.route': '/oauth/introspect', 'oauth.outcome': 'invalid_client' });
    expect(JSON.stringify(receiver.spans)).not.toContain('some-token-value-that-is-not-known');
  });

  it("an outbound fetch (a client's metadata document) is a span in the request's trace, with the URL fetched", async () => {
    const clientId = `${documents.origin}/traced/client.json`;
    documents.serve('/traced/client.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
    const caller = callerContext();
    const response = await fetch(`${service.baseUrl}${pkceAuthorizeUrl({ client_id: clientId, redirect_uri: CALLBACK })}`, {
      headers: { traceparent: caller.traceparent },
      redirect: 'manual',
    });
    expect(response.status).toBeLessThan(400);
    expect(documents.requests).toContain('/traced/client.json');
    const request = await requestSpanOf(caller.traceId);
    expect(request.attributes['http.route']).toBe('/oauth/authorize');
    // node:http's client span (the service's outbound calls do not use fetch), somewhere under the request span.
    const fetched = descendantsOf(request).filter((span) => span.scope.includes('instrumentation-http'));
    expect(fetched.map((span) => span.attributes['url.full'])).toEqual([clientId]);
    expect(fetched[0]!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
  });

  // docs/operations.md "Traces": tokens, secrets, codes and passwords are never attributes. @fastify/otel's url.path
  // is the request's URL, query included: the values the request log redacts are redacted there the same way.
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

  // OpenTelemetry in this process, as an API runs it (spans kept in memory): the guard's calls, and the service built
  // in process for its client id settings.
  describe('with OpenTelemetry in this process', () => {
    const exporter = new InMemorySpanExporter();
    let provider: NodeTracerProvider;
    beforeAll(() => {
      provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      provider.register();
      registerInstrumentations({
        instrumentations: [new UndiciInstrumentation(), new FastifyOtelInstrumentation({ registerOnInitialization: true })],
      });
    });
    afterAll(async () => {
      await provider?.shutdown();
      // Leaves the process as the other test files in this worker expect it: no global OpenTelemetry.
      trace.disable();
      context.disable();
      propagation.disable();
    });

    it("the guard's introspection call carries the API's trace context: the service's span is a child of the API's fetch span", async () => {
      // The guard itself knows nothing of OpenTelemetry: Node's fetch instrumentation adds traceparent to its call.
      const api = await buildProtectedApi({
        introspectionUrl: `${service.baseUrl}/oauth/introspect`,
        clientId: client.uid,
        clientSecret: client.secret,
        logLevel: 'silent',
      });
      try {
        const issued = await post('/oauth/token', { grant_type: 'client_credentials' }, basic(client.uid, client.secret));
        const { access_token: accessToken } = (await issued.json()) as { access_token: string };
        const caller = callerContext();
        const response = await api.inject({
          url: '/me',
          headers: { authorization: `Bearer ${accessToken}`, traceparent: caller.traceparent },
        });
        expect(response.statusCode).toBe(200);
        // The API's own spans: its request span, and the guard's fetch to the introspection endpoint as its child.
        // @fastify/otel ends a request span in onResponse, which may run after inject() has resolved.
        const apiRequest = await vi.waitFor(() => {
          const found = exporter.getFinishedSpans().find((span) => span.name === 'request' && span.attributes['http.route'] === '/me');
          if (!found) throw new Error("the API's request span has not ended yet");
          return found;
        });
        const finished = exporter.getFinishedSpans();
        const traceId = apiRequest.spanContext().traceId;
        const fetchSpan = finished.find(
          (span) => span.instrumentationScope.name.includes('instrumentation-undici') && span.spanContext().traceId === traceId,
        );
        expect(fetchSpan).toBeDefined();
        const introspection = await receiver.waitFor(
          (span) => span.traceId === traceId && span.name === 'request' && span.attributes['http.route'] === '/oauth/introspect',
        );
        expect(introspection.parentSpanId).toBe(fetchSpan!.spanContext().spanId);
        expect(introspection.attributes['oauth.outcome']).toBe('success');
      } finally {
        await api.close();
      }
    });

    // Config telemetry.clientIdAttribute (hashed, the default, is the spawned service's above). The id a request
    // claims is named whether or not it authenticates: no client needs to exist.
    const claimedIdSpan = async (clientIdAttribute: 'plain' | 'none') => {
      const server = await buildTestServer({ config: { telemetry: { clientIdAttribute } } });
      try {
        const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic('claimed-client', 'wrong'));
        expect(response.statusCode).toBe(401);
        const span = exporter
          .getFinishedSpans()
          .findLast((finished) => finished.name === 'request' && finished.attributes['http.route'] === '/oauth/token');
        expect(span?.attributes).toMatchObject({ 'oauth.outcome': 'invalid_client', 'oauth.grant_type': 'client_credentials' });
        return span!.attributes;
      } finally {
        await server.close();
      }
    };

    it('telemetry.clientIdAttribute plain: oauth.client_id is the claimed id, and no hash', async () => {
      const attributes = await claimedIdSpan('plain');
      expect(attributes['oauth.client_id']).toBe('claimed-client');
      expect(attributes).not.toHaveProperty('oauth.client_id_hash');
    });

    it('telemetry.clientIdAttribute none: the span names no client', async () => {
      const attributes = await claimedIdSpan('none');
      expect(Object.keys(attributes).filter((key) => key.startsWith('oauth.client_id'))).toEqual([]);
    });
  });

  // Last: it stops the service. The SDK's shutdown at exit (main.ts) is when metrics or logs would go out at the latest.
  it('exports traces only: no metrics or logs reach the collector, up to the service stopping', async () => {
    const caller = callerContext();
    await post('/oauth/introspect', { token: 'x' }, { ...basic(client.uid, client.secret), traceparent: caller.traceparent });
    await requestSpanOf(caller.traceId);
    expect(await stopService(service.child)).toBe(0);
    expect(new Set(receiver.paths)).toEqual(new Set(['/v1/traces']));
  });
});
