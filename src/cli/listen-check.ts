import { createServer } from 'node:net';
import type { Config } from '../config/types.js';

/**
 * Issue 32: a port in use was found only when the server listened, after a fresh data folder had been created and
 * migrated (56 s, and the folder left behind). So `serve` binds each port it will listen on and releases it at once,
 * before it opens the database. The real listen comes later (the routes, and with them the issuer, must be built
 * first), so a process that takes the port in between is still possible; the listen then fails with the same message,
 * only later. Listening before opening the database would close that gap but leave a port that accepts connections
 * nobody answers while the migrations run, which a load balancer's health check would take for a hung service.
 */
export async function checkListenPorts({ host, port, metrics }: Readonly<Config>): Promise<void> {
  await probe(host, port, `${host}:${port}`, 'PORT');
  if (metrics.port !== null) await probe(metrics.host, metrics.port, `${metrics.host}:${metrics.port} (metrics)`, METRICS_SETTING);
}

export const METRICS_SETTING = 'METRICS_PORT, or metrics.port null for none';

async function probe(host: string, port: number, where: string, setting: string): Promise<void> {
  // Port 0 is any free port, which leaves the host to check: one that cannot be listened on is refused before the
  // boot creates a database.
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (error) => reject(listenError(error, where, setting)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** A free port on `host`, for PORT 0 when the base URL must be known before the server listens. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A listen error as one line that names the address and the setting to change; other errors as they are. */
export function listenError(error: unknown, where: string, setting: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: the port is already in use (set ${setting}, or stop the process using it)`, {
      cause: error,
    });
  if (code === 'EACCES')
    return new Error(`cannot listen on ${where}: permission denied (ports below 1024 need privileges; set ${setting})`, { cause: error });
  return error as Error;
}
