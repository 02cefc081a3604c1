import { Writable } from 'node:stream';

export interface CapturedLogLines {
  /** Pass as buildTestServer's logStream (with config log: { format: 'json', level: ... }). */
  stream: Writable;
  /** Every line written so far, parsed. */
  lines: Array<Record<string, unknown>>;
  /** The same lines as written, for searching the raw text (secrets must appear in no byte of it). */
  raw: string[];
  /** Forgets what was written so far. */
  clear(): void;
}

/** A test server's JSON log lines, captured as they are written (one chunk may hold several lines). */
export function capturedLogLines(): CapturedLogLines {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() === '') continue;
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const clear = () => {
    lines.length = 0;
    raw.length = 0;
  };
  return { stream, lines, raw, clear };
}
