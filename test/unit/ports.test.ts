import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';

describe('freePort', () => {
  it('never hands out a port twice in one process, though nothing listens on it yet', async () => {
    // 500 of the ~7,300 ports drawn at random would repeat one with near certainty (the birthday bound).
    const ports = [];
    for (let drawn = 0; drawn < 500; drawn++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('hands out a port one can listen on', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    expect(server.address()).toMatchObject({ port });
    await new Promise((resolve) => server.close(resolve));
  });
});
