import type { DeliverySettlement } from '../../oauth/openid/backchannel-logout/logout-delivery-store.js';
import type { MetricsRegistry } from './registry.js';

// Back-Channel Logout 1.0 (issue 31 item 5): each attempt to deliver a logout token, by how it ended. An operator
// alerts on failed (given up: the relying party keeps its session) and watches retry for a relying party that is down.

export type LogoutDeliveryOutcome = DeliverySettlement['outcome'];

const OUTCOMES: readonly LogoutDeliveryOutcome[] = ['delivered', 'retry', 'failed'];

export function logoutDeliveryMetrics(registry: MetricsRegistry): (outcome: LogoutDeliveryOutcome) => void {
  const attempts = registry.counter(
    'oauth_backchannel_logout_deliveries_total',
    'Back-channel logout token deliveries, by outcome: delivered; retry (an attempt failed, another follows); failed (given up).',
    ['outcome'],
  );
  // Known label values start at 0, so rate() sees the first increment.
  const byOutcome = new Map(OUTCOMES.map((outcome) => [outcome, attempts.labels(outcome)]));
  return (outcome) => byOutcome.get(outcome)!.inc();
}
