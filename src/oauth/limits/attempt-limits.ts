import { ClientRequestBudget } from './client-request-budget.js';
import { FailureLimiter, type FailureLimits } from './failure-limiter.js';

// SPEC 5 rateLimit: failures slow down and then lock out the failing pair (a client id or a user name, with the
// address it came from), and an address alone only for failures that name unknown clients or many user names.
// A request with valid client credentials is never refused because of other requests' failures: only the pair
// that failed is locked, and the valid client's requests from other addresses never look at it.

export type LockoutKind = 'client' | 'unknown_clients' | 'user' | 'user_names' | 'admin' | 'user_codes' | 'second_factors';
export type PasswordCheckKind = 'login' | 'password_grant' | 'admin' | 'second_factor';

/** What the limits tell the outside world (log lines and /metrics), wired in app.ts. */
export interface AttemptReporter {
  /** A failed client authentication; clientId null when the request named no known client; the request's id if known. */
  clientAuthenticationFailed(clientId: string | null, address: string, requestId?: string): void;
  passwordCheckFailed(kind: PasswordCheckKind, address: string): void;
  /**
   * `name`: the client id or user name of a locked pair; null when an address alone is locked. `requestId`: the request
   * whose failure locked it, where its caller named it.
   */
  lockedOut(kind: LockoutKind, address: string, seconds: number, name: string | null, requestId?: string): void;
}

/** Where an attempt comes from: the address the limits count it against (limitedAddress), and its request's id. */
export interface AttemptOrigin {
  address: string;
  /** For the log line of a lockout the attempt starts, so that an operator finds the request that led to it. */
  requestId?: string;
}

export interface RateLimits extends FailureLimits {
  /** Distinct user names failing from one address within the window before the address is locked (spraying). */
  maxUserNamesPerAddress: number;
  /** Requests per authenticated client and minute (ClientRequestBudget); null: unlimited. */
  perClientPerMinute?: number | null;
}

const silentReporter: AttemptReporter = { clientAuthenticationFailed() {}, passwordCheckFailed() {}, lockedOut() {} };

// The address is first and holds no space, so no client id or user name can forge another pair's key.
const pairKey = (address: string, name: string) => `${address} ${name}`;
const addressOf = (key: string) => key.slice(0, key.indexOf(' ') >>> 0);
const nameOf = (key: string) => key.slice(key.indexOf(' ') + 1);

/** Client authentication at token, revoke and introspect. Every call is synchronous: check and count are atomic. */
export class ClientAuthenticationLimits {
  readonly #pairs: FailureLimiter;
  readonly #unknownClients: FailureLimiter;

  constructor(
    limits: FailureLimits,
    private readonly reporter: AttemptReporter = silentReporter,
  ) {
    this.#pairs = new FailureLimiter(limits, {
      onLockout: (key, seconds, requestId) => reporter.lockedOut('client', addressOf(key), seconds, nameOf(key), requestId),
    });
    this.#unknownClients = new FailureLimiter(limits, {
      onLockout: (address, seconds, requestId) => reporter.lockedOut('unknown_clients', address, seconds, null, requestId),
    });
  }

  /** Seconds this client must wait from this address (0: go ahead). */
  retryAfterForClient(clientId: string, address: string, now: Date): number {
    return this.#pairs.idle ? 0 : this.#pairs.retryAfter([pairKey(address, clientId)], now);
  }

  /** Seconds requests naming unknown client ids must wait from this address. */
  retryAfterForUnknownClient(address: string, now: Date): number {
    return this.#unknownClients.retryAfter([address], now);
  }

  failed(clientId: string, address: string, now: Date, requestId?: string): void {
    this.#pairs.recordFailure([pairKey(address, clientId)], now, requestId);
    this.reporter.clientAuthenticationFailed(clientId, address, requestId);
  }

  unknownClientFailed(address: string, now: Date, requestId?: string): void {
    this.#unknownClients.recordFailure([address], now, requestId);
    this.reporter.clientAuthenticationFailed(null, address, requestId);
  }
}

/** How a reserved check ended: `unchecked` when it could not run (the database failed), which counts as nothing. */
export type PasswordOutcome = 'succeeded' | 'failed' | 'unchecked';

export type PasswordAttempt = { refused: false; settle(outcome: PasswordOutcome, now: Date): void } | { refused: true; retryAfter: number };

/**
 * Password checks (login and the password grant share one; the admin's Basic auth has its own): argon2 takes
 * time, so each attempt is reserved before its check and settled after it, and attempts sent at once cannot
 * exceed the limit. Besides the (user name, address) pair, an address is locked once maxUserNamesPerAddress
 * different names failed from it (password spraying), which also refuses that address's other users.
 */
export class PasswordAttemptLimits {
  readonly #pairs: FailureLimiter;
  readonly #userNames: FailureLimiter;
  // The (address, user name) pairs counted towards their address's spraying limit in this window, and until when:
  // one name counts once, however many of its attempts fail, in parallel or after a lockout of the pair.
  readonly #countedNames = new Map<string, number>();
  readonly #windowMs: number;

  constructor(
    limits: RateLimits,
    lockoutKind: 'user' | 'admin',
    private readonly reporter: AttemptReporter = silentReporter,
  ) {
    this.#pairs = new FailureLimiter(limits, {
      onLockout: (key, seconds, requestId) => reporter.lockedOut(lockoutKind, addressOf(key), seconds, nameOf(key), requestId),
    });
    this.#userNames = new FailureLimiter(
      { ...limits, maxFailures: limits.maxUserNamesPerAddress },
      { onLockout: (address, seconds, requestId) => reporter.lockedOut('user_names', address, seconds, null, requestId) },
    );
    this.#windowMs = limits.windowSeconds * 1000;
  }

  /** Seconds `username` from `address` is locked out (0: not), without reserving a check. */
  retryAfter(username: string, address: string, now: Date): number {
    return Math.max(this.#pairs.retryAfter([pairKey(address, username.toLowerCase())], now), this.#userNames.retryAfter([address], now));
  }

  /** Reserves one check of `username`'s password from `origin` (waiting for a place if need be), or refuses it for retryAfter seconds. */
  async begin(checkKind: PasswordCheckKind, username: string, origin: AttemptOrigin, clock: () => Date): Promise<PasswordAttempt> {
    const { address, requestId } = origin;
    const key = pairKey(address, username.toLowerCase());
    const pair = await this.#pairs.reserve([key], clock, requestId);
    if (!pair.reservation) return { refused: true, retryAfter: pair.retryAfter };
    const spraying = await this.#userNames.reserve([address], clock, requestId);
    if (!spraying.reservation) {
      pair.reservation.settle(false, clock());
      return { refused: true, retryAfter: spraying.retryAfter };
    }
    const pairReservation = pair.reservation;
    const addressReservation = spraying.reservation;
    const settle = (outcome: PasswordOutcome, at: Date) => {
      const failed = outcome === 'failed';
      pairReservation.settle(failed, at);
      // Spraying counts user names, not attempts: one name failing many times is the pair's business. Decided as each
      // failure settles (synchronously), so attempts of one name in flight together count it once.
      addressReservation.settle(failed && this.#countName(key, at), at);
      if (outcome === 'succeeded') this.#pairs.reset(key);
      if (failed) this.reporter.passwordCheckFailed(checkKind, address);
    };
    return { refused: false, settle };
  }

  /** Whether this failure is the first of its pair in the window (it then counts towards spraying), remembering it. */
  #countName(key: string, at: Date): boolean {
    const now = at.getTime();
    const until = this.#countedNames.get(key);
    if (until !== undefined && until > now) return false;
    this.#countedNames.delete(key);
    this.#countedNames.set(key, now + this.#windowMs);
    // Bounded as the limiters' keys are: the oldest entries (first in the Map's order) go first.
    for (const [oldest, expires] of this.#countedNames) {
      if (this.#countedNames.size <= MAX_COUNTED_NAMES && expires > now) break;
      this.#countedNames.delete(oldest);
    }
    return true;
  }
}

const MAX_COUNTED_NAMES = 10_000;

/**
 * Codes at the second step of a sign-in (issue 35), counted as passwords are (per user name and address, and an
 * address trying many names), and besides per account from any address: a code has ~20 bits (three valid of 10^6
 * within the step's window), so whoever has the password and many addresses must not get maxFailures guesses from each
 * (RFC 6238 section 5.2, RFC 4226 section 7.3). Only a right password reaches this step, so a locked account step
 * refuses only someone who knows it. A right code resets the account's count, as it does the pair's.
 */
export class SecondFactorAttemptLimits {
  readonly #perAddress: PasswordAttemptLimits;
  readonly #accounts: FailureLimiter;
  // The address of the failure being settled, for the lockout's log line and audit event (settle runs synchronously).
  #settlingAddress = '';

  constructor(limits: RateLimits, reporter: AttemptReporter) {
    this.#perAddress = new PasswordAttemptLimits(limits, 'user', reporter);
    this.#accounts = new FailureLimiter(limits, {
      onLockout: (username, seconds, requestId) =>
        reporter.lockedOut('second_factors', this.#settlingAddress, seconds, username, requestId),
    });
  }

  async begin(checkKind: PasswordCheckKind, username: string, origin: AttemptOrigin, clock: () => Date): Promise<PasswordAttempt> {
    const key = username.toLowerCase();
    const account = await this.#accounts.reserve([key], clock, origin.requestId);
    if (!account.reservation) return { refused: true, retryAfter: account.retryAfter };
    const accountReservation = account.reservation;
    const attempt = await this.#perAddress.begin(checkKind, username, origin, clock);
    if (attempt.refused) {
      accountReservation.settle(false, clock());
      return attempt;
    }
    const settle = (outcome: Parameters<typeof attempt.settle>[0], at: Date) => {
      this.#settlingAddress = origin.address;
      accountReservation.settle(outcome === 'failed', at);
      if (outcome === 'succeeded') this.#accounts.reset(key);
      attempt.settle(outcome, at);
    };
    return { refused: false, settle };
  }
}

/** Failure limits of one process, shared by every route that checks credentials. */
export interface AttemptLimits {
  clients: ClientAuthenticationLimits;
  /** End users' passwords: /login and the password grant count together. */
  users: PasswordAttemptLimits;
  admin: PasswordAttemptLimits;
  /**
   * Codes at the second step of a sign-in (issue 35): counted as wrong passwords are, but apart from them, since a
   * right password resets its pair's failures and would otherwise let whoever knows it guess codes without end; and
   * per account from any address (SecondFactorAttemptLimits).
   */
  secondFactors: SecondFactorAttemptLimits;
  /** RFC 8628 section 5.1: wrong user codes entered at /device, per address. */
  userCodes: FailureLimiter;
  /** rateLimit.perClientPerMinute; null when unlimited. */
  clientRequests: ClientRequestBudget | null;
}

/** The limits of one process, from config rateLimit, telling `reporter` about failures and lockouts. */
export function createAttemptLimits(limits: RateLimits, reporter: AttemptReporter = silentReporter): AttemptLimits {
  return {
    clients: new ClientAuthenticationLimits(limits, reporter),
    users: new PasswordAttemptLimits(limits, 'user', reporter),
    admin: new PasswordAttemptLimits(limits, 'admin', reporter),
    secondFactors: new SecondFactorAttemptLimits(limits, reporter),
    userCodes: new FailureLimiter(limits, {
      onLockout: (address, seconds, requestId) => reporter.lockedOut('user_codes', address, seconds, null, requestId),
    }),
    clientRequests: limits.enabled && limits.perClientPerMinute ? new ClientRequestBudget(limits.perClientPerMinute) : null,
  };
}
