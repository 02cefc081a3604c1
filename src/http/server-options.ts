import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config/types.js';

/**
 * A request must arrive whole within `seconds` (SPEC 5 requestTimeoutSeconds): a body sent partly, or a byte at
 * a time, no longer holds a connection for minutes (slowloris). Node checks the deadline every
 * connectionsCheckingInterval, so that interval is kept well below it. Headers get the same deadline.
 */
export function requestTimeouts(
  seconds: number,
): Pick<FastifyServerOptions, 'requestTimeout'> & { http: { connectionsCheckingInterval: number; headersTimeout: number } } {
  const ms = seconds * 1000;
  return {
    requestTimeout: ms,
    http: { connectionsCheckingInterval: Math.min(5_000, Math.max(250, ms / 4)), headersTimeout: Math.min(ms, 60_000) },
  };
}

/**
 * config trustProxy as Fastify takes it. A hop count becomes the function Fastify would build for it (its
 * typings leave numbers out): the nearest `hops` proxies are believed, the address before them is the client's.
 */
export function trustedProxies(setting: Config['trustProxy']): boolean | string | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting as boolean | string | string[];
  return (_address, hop) => hop < setting;
}
