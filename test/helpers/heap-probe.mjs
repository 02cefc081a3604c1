// Preloaded into a service the memory soak drives (node --expose-gc --import): on SIGUSR2 it collects all garbage
// and writes the live heap (process.memoryUsage().heapUsed after full collections) to HEAP_PROBE_FILE. What is live
// then is what the process retains, without the swings of RSS, which grows with the collector's heuristics and
// gives memory back to the system late or never, most on a loaded machine.
import { writeFileSync } from 'node:fs';

const file = process.env.HEAP_PROBE_FILE;
if (file && typeof globalThis.gc === 'function') {
  let probe = 0;
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    probe += 1;
    writeFileSync(file, `${probe} ${process.memoryUsage().heapUsed}\n`);
  });
}
