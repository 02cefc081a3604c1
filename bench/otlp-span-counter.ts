// The collector of bench/telemetry-cost.ts: an OTLP/HTTP trace receiver (http/protobuf, the exporter's default) that
// only counts the spans it gets, so that the bench pays next to nothing for what the traced service sends. A span is
// counted by walking the protobuf framing of ExportTraceServiceRequest (resource_spans = 1 -> scope_spans = 2 ->
// spans = 2; opentelemetry-proto trace/v1/trace.proto), without decoding any span.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface SpanCounter {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the exporter (it appends /v1/traces). */
  endpoint: string;
  /** Spans received so far. */
  spans(): number;
  /** Export requests that were not a trace export this counter could read (other paths, malformed bodies). */
  refused(): number;
  close(): Promise<void>;
}

export async function startSpanCounter(): Promise<SpanCounter> {
  let spans = 0;
  let refused = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        if (request.url !== '/v1/traces') throw new Error(`not a trace export: ${request.url}`);
        const body = Buffer.concat(chunks);
        spans += countSpans(request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body);
        // An empty ExportTraceServiceResponse: everything accepted.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch {
        refused += 1;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => spans,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The spans of one ExportTraceServiceRequest. */
export function countSpans(message: Uint8Array): number {
  let count = 0;
  for (const resourceSpans of lengthDelimitedFields(message, 1))
    for (const scopeSpans of lengthDelimitedFields(resourceSpans, 2)) count += lengthDelimitedFields(scopeSpans, 2).length;
  return count;
}

// The payloads of the length-delimited fields numbered `wanted` in a protobuf message; other fields are skipped.
function lengthDelimitedFields(message: Uint8Array, wanted: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= message.length) throw new Error('truncated varint');
      const byte = message[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const key = varint();
    const [field, wireType] = [Math.floor(key / 8), key & 7];
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (at + length > message.length) throw new Error('truncated field');
      if (field === wanted) found.push(message.subarray(at, at + length));
      at += length;
    } else throw new Error(`unsupported wire type ${wireType}`);
  }
  return found;
}
