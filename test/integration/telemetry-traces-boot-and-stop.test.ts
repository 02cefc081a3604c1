import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runService, serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';

// Issue 32 item 6 and issue 33: the traces' exporter at the edges of `serve`, its boot and its stop. Apart from
// telemetry-traces.test.ts, whose service is another real executable, so that neither file nears a minute.

// A collector that takes the connection and never answers (or is down): the spans still buffered at a graceful stop
// cannot go out. The stop waited for the exporter's own timeout (10 s, past docker stop's grace) and then ended on an
// unhandled rejection, exit code 1 (an operators' audit).
describe('a graceful stop while the collector never answers', () => {
  let silent: Server;
  let fixture: ServiceFixture;
  let service: Awaited<ReturnType<typeof startService>>;
  // The first boot on an empty folder (initdb and every migration) is the hook's: on a busy machine it alone can take
  // most of a test's 30 s.
  beforeAll(async () => {
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    fixture = await serviceFixture('oauth-otel-silent-');
    const { port } = silent.address() as AddressInfo;
    service = await startService({
      ...fixture.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Spans stay buffered until the stop.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
  });
  afterAll(async () => {
    if (service) await stopService(service.child);
    silent?.closeAllConnections();
    await new Promise((resolve) => silent?.close(resolve));
    await fixture?.dispose();
  });

  it('exits 0, saying the last spans were not exported', async () => {
    await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`);
    expect(await stopService(service.child)).toBe(0);
    expect(service.output()).toContain('oauth-service: traces: the last spans were not exported (the collector did not answer within 2 s)');
  });
});

// Issue 33: the service carries the OTLP/HTTP exporters only. A collector reached over gRPC is refused at boot, in one
// line, before the service opens its database or port.
describe('OTEL_EXPORTER_OTLP_PROTOCOL=grpc', () => {
  it('stops `serve` with exit code 2 and one line naming the variable and the protocols it may be', async () => {
    const result = await runService(['serve'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "oauth-service: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: traces are exported over OTLP/HTTP only; set http/protobuf (a collector's port 4318) or http/json\n",
    );
    expect(result.stdout).toBe('');
  });
});
