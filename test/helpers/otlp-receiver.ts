import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Attributes = Record<string, string | number | boolean>;

/**
 * A span as the OTLP/HTTP JSON exporter sends it (ids in hex), with its attributes flattened, its scope's name and
 * the attributes of the resource that sent it (service.name, ...).
 */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  scope: string;
  attributes: Attributes;
  resource: Attributes;
}

export interface OtlpReceiver {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for an exporter sending here (it appends /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** The path of every export request received, in order (/v1/traces; /v1/metrics or /v1/logs if those were sent). */
  paths: string[];
  /** Resolves once a span matching `predicate` has arrived (polled as exports come in; fails after timeoutMs). */
  waitFor(predicate: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValues = { key: string; value: AnyValue }[];
type ExportRequest = {
  resourceSpans?: {
    resource?: { attributes?: KeyValues };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: (Omit<ReceivedSpan, 'scope' | 'attributes' | 'resource'> & { attributes?: KeyValues })[];
    }[];
  }[];
};

const valueOf = (value: AnyValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
const flattened = (pairs: KeyValues = []): Attributes => Object.fromEntries(pairs.map(({ key, value }) => [key, valueOf(value)]));

/** An OTLP/HTTP trace receiver in process (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): what a collector would get. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const arrivals = new Set<() => void>();
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const exported = JSON.parse(body) as ExportRequest;
      for (const resourceSpans of exported.resourceSpans ?? []) {
        const resource = flattened(resourceSpans.resource?.attributes);
        for (const scoped of resourceSpans.scopeSpans ?? [])
          for (const span of scoped.spans ?? []) {
            const attributes = flattened(span.attributes);
            spans.push({ ...span, parentSpanId: span.parentSpanId ?? '', scope: scoped.scope?.name ?? '', attributes, resource });
          }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const arrived of arrivals) arrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    paths,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = spans.find(predicate);
          if (!found) return;
          arrivals.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          arrivals.delete(check);
          reject(new Error(`no such span among ${spans.length} received: ${spans.map((s) => s.name).join(', ')}`));
        }, timeoutMs);
        arrivals.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
