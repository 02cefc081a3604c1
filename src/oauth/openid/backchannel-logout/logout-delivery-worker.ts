import type { OAuthDeps } from '../../deps.js';
import type { ApplicationRecord } from '../../store.js';
import { mayReachPrivateAddresses } from './backchannel-logout-uri.js';
import { leaseUntil, settlementOf } from './logout-delivery-policy.js';
import type { DeliverySettlement, LogoutDeliveryRecord } from './logout-delivery-store.js';
import { postLogoutToken, type LogoutPostOutcome } from './logout-token-post.js';
import { signLogoutToken } from './logout-token.js';

// Delivers the due logout tokens of oauth_logout_deliveries (Back-Channel Logout 1.0 section 2.5), in the service,
// never in a request: woken when this instance queued one, and every POLL_MS for those another instance or the CLI
// queued, or that are due again. Each instance runs one; the claim (logout-delivery-store.ts) keeps two from sending
// one delivery at once.

const POLL_MS = 5_000;
/** Deliveries taken per claim; each batch is sent at once, every POST bounded by timeoutMs. */
const BATCH = 10;

export type LogoutWorkerDeps = Pick<OAuthDeps, 'stores' | 'config' | 'now' | 'signer'>;

/** What the worker tells the operator (wired in app.ts: a log line and the counter by outcome). */
export interface LogoutDeliveryReporter {
  settled(delivery: LogoutDeliveryRecord, application: ApplicationRecord | null, settlement: DeliverySettlement): void;
  /** The queue could not be read or written (the database): tried again at the next poll. */
  failed(error: unknown): void;
}

export interface LogoutDeliveryWorker {
  /** Delivers what is due now, soon (never awaited by a request). */
  wake(): void;
  /** Delivers what is due now, and then on every poll. */
  start(): void;
  /** No new attempt starts; resolves once the attempts under way have ended. */
  stop(): Promise<void>;
}

export type LogoutPoster = typeof postLogoutToken;

export function createLogoutDeliveryWorker(
  deps: LogoutWorkerDeps,
  reporter: LogoutDeliveryReporter,
  post: LogoutPoster = postLogoutToken,
): LogoutDeliveryWorker {
  const settings = deps.config.openid.backchannelLogout;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const attempt = async (application: ApplicationRecord, delivery: LogoutDeliveryRecord): Promise<LogoutPostOutcome> => {
    let token: string;
    try {
      token = await signLogoutToken(deps, application, delivery);
    } catch (error) {
      return { kind: 'retry', reason: `the logout token could not be signed (${(error as Error).message})` };
    }
    const options = { allowPrivateAddresses: mayReachPrivateAddresses(deps.config, application), timeoutMs: settings.timeoutMs };
    return post(application.backchannelLogoutUri!, token, options);
  };

  const deliver = async (delivery: LogoutDeliveryRecord): Promise<void> => {
    const application = await deps.stores.applications.findById(delivery.applicationId);
    const outcome: LogoutPostOutcome = application?.backchannelLogoutUri
      ? await attempt(application, delivery)
      : { kind: 'refused', reason: 'the client has no back-channel logout URI any more' };
    const settlement = settlementOf(outcome, delivery.attempts, settings, deps.now());
    await deps.stores.logoutDeliveries.settle(delivery.id, settlement);
    reporter.settled(delivery, application, settlement);
  };

  const deliverDue = async (): Promise<void> => {
    while (!stopped) {
      const now = deps.now();
      const due = await deps.stores.logoutDeliveries.claimDue(now, leaseUntil(settings, now), BATCH);
      if (due.length === 0) return;
      await Promise.all(due.map((delivery) => deliver(delivery).catch((error: unknown) => reporter.failed(error))));
    }
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await deliverDue().catch((error: unknown) => reporter.failed(error));
      } while (again && !stopped);
    })().finally(() => (running = null));
  };

  return {
    wake,
    start() {
      wake();
      timer = setInterval(wake, POLL_MS);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
