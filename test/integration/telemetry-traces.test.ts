import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, trace } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProtectedApi } from '../../examples/protected-api.js';
import {
  CALLBACK,
  documentServer,
  documentSettings,
  json,
  pkceAuthorizeUrl,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { basic } from '../helpers/oauth-requests.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { runService, serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

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
    expect(span.attributes['oauth.client_id_hash']).toMatch(/^[\w-]{16}$/);
    expect(JSON.stringify(receiver.spans)).not.toContain(client.uid);
    expect(JSON.stringify(receiver.spans)).not.toContain(client.secret);
    const statements = descendantsOf(span).filter((child) => child.scope.includes('instrumentation-pg'));
    // Statement spans come from pg's instrumentation: on PostgreSQL only (docs/operations.md "Traces").
    if (backend === 'postgresql') expect(statements.length).toBeGreaterThan(0);
    else expect(statements).toEqual([]);
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

  it("the guard's introspection call carries the API's trace context: the service's span is a child of the API's fetch span", async () => {
    // The API runs OpenTelemetry as the service does (its own SDK, here in this process, spans kept in memory); the
    // guard itself knows nothing of it: Node's fetch instrumentation adds traceparent to the introspection call.
    const exporter = new tracing.InMemorySpanExporter();
    const sdk = new NodeSDK({
      spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
      instrumentations: [new UndiciInstrumentation(), new FastifyOtelInstrumentation({ registerOnInitialization: true })],
    });
    sdk.start();
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
      const finished = exporter.getFinishedSpans();
      const apiRequest = finished.find((span) => span.name === 'request' && span.attributes['http.route'] === '/me');
      const traceId = apiRequest!.spanContext().traceId;
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
      await sdk.shutdown();
      // Leaves the process as the other test files in this worker expect it: no global OpenTelemetry.
      trace.disable();
      context.disable();
      propagation.disable();
    }
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
