import { capRatio, type CapObserver } from '../../oauth/clients/registration/registration-cap.js';
import type { MetricsRegistry } from './registry.js';

// Issue 29 item 5: how full the caps on self-registered clients are, as this instance last counted them (at a
// registration or a metadata document's first fetch; every instance counts the same shared rows, so the freshest
// is the highest). The operator alerts on the ratio before strangers fill a cap.

export function registrationCapMetrics(registry: MetricsRegistry): CapObserver {
  const live = registry.labelledGauge(
    'oauth_self_registered_clients',
    'Live self-registered clients (used, approved, or registered within registration.unusedClientLifetimeSeconds) at the latest count, by registered_by (dynamic, metadata_document).',
    ['registered_by'],
  );
  const ratio = registry.labelledGauge(
    'oauth_registration_cap_ratio',
    'Live self-registered clients over their cap (registration.maxOpenRegistrations, clientIdMetadataDocuments.maxClients) at the latest count, by registered_by; 1 is full.',
    ['registered_by'],
  );
  return (kind, count, cap) => {
    live.labels(kind).set(count);
    ratio.labels(kind).set(capRatio(count, cap));
  };
}
