import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

// Helpers the benchmarks and the tests share live in scripts/lib, which imports neither, so bench/ and test/
// never import each other's helpers.

// Below Linux's ephemeral range (32768-60999), from which every listen on port 0 and every outgoing connection takes
// its port: a port chosen there and listened on a moment later was taken in between by one of them often enough to
// fail a CI run (EADDRINUSE). Below scripts/cluster.sh's 17430-17435 too. From 10100: fetch refuses the Fetch
// standard's "bad ports", 10080 the one above 10000, and a test's request to it failed a CI run ("bad port").
const FIRST = 10_100;
const LAST = 17_399;

// The ports this process handed out. A caller may keep one a while before anything listens on it (a service's metrics
// port chosen before the service starts, an address named in another server's config first), and the probe would
// then find it free and hand it out again: a service and its metrics listener once got the same one in CI.
const handedOut = new Set<number>();

/**
 * A port that was free a moment ago on the loopback interface (closed again at once; the caller listens on it), and
 * not handed out before in this process.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(FIRST, LAST + 1);
    if (handedOut.has(port) || !(await listensOn(port))) continue;
    handedOut.add(port);
    return port;
  }
  const port = await listensOn(0);
  handedOut.add(port);
  return port;
}

/** Listens on `port` (0: any) on 127.0.0.1 and closes again: the port, or 0 when it was taken. */
function listensOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' && port !== 0 ? resolve(0) : reject(error)));
    probe.listen(port, '127.0.0.1', () => {
      const { port: bound } = probe.address() as { port: number };
      probe.close(() => resolve(bound));
    });
  });
}
