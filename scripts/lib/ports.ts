import { createServer } from 'node:net';

// Helpers the benchmarks and the tests share live in scripts/lib, which imports neither, so bench/ and test/
// never import each other's helpers.

/** A port that was free a moment ago on the loopback interface (closed again at once; the caller listens on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
