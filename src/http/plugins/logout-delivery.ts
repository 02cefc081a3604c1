import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { LogoutDeliveryReporter, LogoutDeliveryWorker } from '../../oauth/openid/backchannel-logout/logout-delivery-worker.js';

// Back-Channel Logout 1.0: the worker that POSTs queued logout tokens runs while the server does, on every instance.
// It starts once the server is ready (delivering what an earlier run or another instance left due) and stops before
// the server closes its database, letting the attempts under way end (each bounded by its timeout).
export const logoutDeliveryPlugin = fp<{ worker: LogoutDeliveryWorker }>(
  async (app, { worker }) => {
    app.addHook('onReady', async () => worker.start());
    app.addHook('preClose', async () => worker.stop());
  },
  { name: 'logout-delivery' },
);

/** The worker's reports as log lines and the oauth_backchannel_logout_deliveries_total counter. */
export function logoutDeliveryReporter(server: () => FastifyInstance): LogoutDeliveryReporter {
  return {
    settled(delivery, application, settlement) {
      const app = server();
      app.metrics.logoutDelivery(settlement.outcome);
      const details = {
        event: `backchannel_logout.${settlement.outcome}`,
        deliveryId: delivery.id,
        clientId: application?.uid ?? null,
        attempts: delivery.attempts,
      };
      if (settlement.outcome === 'delivered') return app.log.info(details, 'logout token delivered');
      if (settlement.outcome === 'retry')
        return app.log.warn(
          { ...details, reason: settlement.error, retryAt: settlement.retryAt },
          'logout token not delivered; will retry',
        );
      app.log.warn({ ...details, reason: settlement.error }, 'logout token not delivered; given up');
    },
    failed(error) {
      server().log.error(
        { err: error, event: 'backchannel_logout.queue_failed' },
        'back-channel logout deliveries could not be read or settled',
      );
    },
  };
}
