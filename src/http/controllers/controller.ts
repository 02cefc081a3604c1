import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { OAuthDeps } from '../../oauth/deps.js';

/** What the server hands every controller besides the domain's dependencies. */
export interface ControllerServices {
  /** Counters the actions report to (tokens issued, introspection results); SPEC 3.7. */
  metrics: ServiceMetrics;
}

/**
 * The base of the built-in controllers (SPEC 7): one instance per controller key and server, built once at
 * boot and called for every request of its actions. A subclass may override any action and call `super`; it
 * inherits the rest. A subclass that declares a constructor passes both arguments on: `super(deps, services)`.
 * Keep per-request data on the request, not on `this`: one instance serves concurrent requests.
 */
export abstract class Controller {
  constructor(
    protected readonly deps: OAuthDeps,
    protected readonly services: ControllerServices,
  ) {}
}
