import fp from 'fastify-plugin';
import type { Config } from '../../config/types.js';

/**
 * Says loudly when the limits see the wrong addresses: X-Forwarded-For arriving while trustProxy is off means a
 * proxy stands in front and every client has its address (one lockout would hit them all); trustProxy true
 * believes any sender's X-Forwarded-For, so a client can pose as any address.
 */
export const proxyWarningPlugin = fp<{ trustProxy: Config['trustProxy'] }>(
  async (app, { trustProxy }) => {
    if (trustProxy === true) {
      app.log.warn(
        'trustProxy is true: any client can set X-Forwarded-For and pose as another address (dodging its lockouts, or locking out a victim). ' +
          "Set it to the number of proxy hops or to your proxies' addresses, unless nothing but the proxy can reach this service.",
      );
    }
    if (trustProxy !== false) return;
    let warned = false;
    app.addHook('onRequest', (request, _reply, done) => {
      if (warned || request.headers['x-forwarded-for'] === undefined) return done();
      warned = true;
      request.log.warn(
        { event: 'proxy.untrusted', peer: request.ip },
        'requests arrive with X-Forwarded-For but trustProxy is off: every client seems to come from the proxy at ' +
          `${request.ip}, so the failure limits and logs see one address for everyone. Set trustProxy (env TRUST_PROXY) to the proxy's address or hop count.`,
      );
      done();
    });
  },
  { name: 'proxy-warning' },
);
