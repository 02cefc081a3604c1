import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config, Readonly } from '../config/types.js';
import type { ServiceMetricsSet } from './metrics/service-metrics.js';
import { errorHandlerPlugin } from './plugins/error-handler.js';
import { metricsPlugin } from './plugins/metrics.js';
import { securityHeaders, securityHeadersPlugin } from './plugins/security-headers.js';
import { sharedSchemasPlugin } from './schemas.js';
import { requestTimeouts } from './server-options.js';

export interface MetricsListenerOptions {
  metrics: ServiceMetricsSet;
  /** env METRICS_TOKEN: required here too when set; null: the listener's address is its only guard. */
  token: string | null;
  realm: string;
  requestTimeoutSeconds: number;
  logger: FastifyBaseLogger;
}

/**
 * The server of config `metrics.host`:`metrics.port` (issue 29 item 13): GET /metrics and nothing else, so the
 * scrape stays on an interface the operator chose (loopback by default) instead of the public port. Built with
 * the service (tests inject into it), listened to by `serve`, closed with the service.
 */
export async function buildMetricsListener({
  metrics,
  token,
  realm,
  requestTimeoutSeconds,
  logger,
}: MetricsListenerOptions): Promise<FastifyInstance> {
  const listener = Fastify({
    loggerInstance: logger.child({ listener: 'metrics' }),
    // A scrape every few seconds would be a log line each: refusals and errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    ...requestTimeouts(requestTimeoutSeconds),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  await listener.register(errorHandlerPlugin, { isUnavailable: () => false, realm });
  await listener.register(sharedSchemasPlugin);
  // RFC 6797 section 7.2: no Strict-Transport-Security here, a plain-HTTP listener no browser reaches through the issuer.
  await listener.register(securityHeadersPlugin, { apply: securityHeaders(null) });
  await listener.register(metricsPlugin, { metrics, route: { token } });
  return listener;
}

/** `app.metricsListener`: the listener of config `metrics` (none while metrics.port is null), closed with the app. */
export async function addMetricsListener(app: FastifyInstance, metrics: ServiceMetricsSet, config: Readonly<Config>): Promise<void> {
  const listener =
    config.metrics.port === null
      ? null
      : await buildMetricsListener({
          metrics,
          token: config.metrics.token ?? null,
          realm: config.realm,
          requestTimeoutSeconds: config.requestTimeoutSeconds,
          logger: app.log,
        });
  app.decorate('metricsListener', listener);
  if (listener) app.addHook('onClose', () => listener.close());
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics listener (config metrics.port), or null when there is none; `serve` listens to it. */
    metricsListener: FastifyInstance | null;
  }
}
