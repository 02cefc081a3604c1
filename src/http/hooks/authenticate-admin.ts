import { createHash } from 'node:crypto';
import basicAuth from '@fastify/basic-auth';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { PasswordOutcome } from '../../oauth/limits/attempt-limits.js';
import { Forbidden, TooManyAttempts, Unauthorized } from '../../oauth/errors.js';
import { limitedAddress } from '../../oauth/limits/limited-address.js';
import { constantTimeEqual } from '../../oauth/secrets.js';
import { passwordMatches as matchesHash } from '../../oauth/users/passwords.js';
import type { OAuthDeps } from '../../oauth/deps.js';

/** What the hook needs: the admin config and limits in deps, and the `authenticateAdmin` extension hook. */
export interface AuthenticateAdminOptions {
  deps: OAuthDeps;
  authenticateAdmin?: ((request: FastifyRequest) => boolean | Promise<boolean>) | undefined;
}

export const ADMIN_DISABLED_MESSAGE = 'The admin UI is disabled: set ADMIN_PASSWORD or admin.passwordHash';

class WrongCredentials extends Error {}

// A successful check is remembered this long, so a burst of admin page loads pays argon2id (deliberately slow,
// about 30 ms of CPU and 19 MiB each) once instead of on every request.
const REMEMBER_SUCCESS_MS = 60_000;
const MAX_REMEMBERED = 100;

/**
 * Admin authentication for the encapsulated applications group (SPEC 3.6, reference 13): HTTP Basic against
 * config `admin`, or the `authenticateAdmin` extension hook instead of the password check. Registered with
 * fastify-plugin *inside* that group, so its onRequest hook and the basicAuth decorator stay there and can
 * never leak onto /oauth/token or any other route (STYLE 1).
 */
export const authenticateAdmin = fp<AuthenticateAdminOptions>(
  async (app, { deps, authenticateAdmin: extensionHook }) => {
    const { username, passwordHash } = deps.config.admin;
    const plainPassword = deps.config.admin.password ?? null;
    const verified = new RecentlyVerified();

    // Reference 13's default admin authenticator refuses everyone; ours says how to open the UI.
    const passwordConfigured = plainPassword !== null || passwordHash !== null;

    await app.register(basicAuth, {
      // The challenge comes with the refusal below: errorResponse answers Unauthorized with the admin realm.
      authenticate: false,
      async validate(givenUsername, givenPassword) {
        // Both halves are always checked, and compared in constant time, so timing reveals neither.
        const usernameMatches = constantTimeEqual(givenUsername, username);
        // The plain ADMIN_PASSWORD from the environment overrides a hash from the file (SPEC 2).
        const passwordMatches =
          plainPassword !== null
            ? constantTimeEqual(givenPassword, plainPassword)
            : await matchesHash(deps.passwords, passwordHash ?? '', givenPassword);
        if (!usernameMatches || !passwordMatches) throw new WrongCredentials();
      },
    });

    const checkBasicCredentials = (request: FastifyRequest, reply: FastifyReply) =>
      new Promise<FastifyError | undefined>((resolve) => {
        (app.basicAuth as (request: FastifyRequest, reply: FastifyReply, done: (error?: FastifyError) => void) => void)(
          request,
          reply,
          resolve,
        );
      });

    app.addHook('onRequest', async function authenticateAdminRequest(request: FastifyRequest, reply: FastifyReply) {
      if (extensionHook) {
        // docs/extending.md: true lets the request in, anything else answers 403. Not any truthy value: a hook that
        // returns a decision object ({ allowed: false }) or a header's text would open the admin API to everyone.
        if ((await extensionHook(request)) === true) return;
        throw new Forbidden('The admin authenticator refused this request.');
      }
      if (!passwordConfigured) throw new Forbidden(ADMIN_DISABLED_MESSAGE);

      const now = deps.now();
      // Keyed by a hash of the whole header: remembers who passed without keeping the password in memory.
      const header = request.headers.authorization;
      const cacheKey = header === undefined ? null : createHash('sha256').update(header).digest('hex');
      const address = limitedAddress(request.ip);
      if (cacheKey !== null && verified.has(cacheKey, now)) {
        // A lockout holds for remembered credentials too: letting them through would tell a guesser a guess was right.
        const retryAfter = deps.limits.admin.retryAfter(username, address, now);
        if (retryAfter > 0) throw new TooManyAttempts(retryAfter);
        return;
      }
      if (header === undefined) throw new Unauthorized('Sign in with the admin user name and password.');

      // Every attempt counts against the pair (the admin, this address), reserved before the (argon2) check.
      const attempt = await deps.limits.admin.begin('admin', username, { address, requestId: request.id }, deps.now);
      if (attempt.refused) throw new TooManyAttempts(attempt.retryAfter);
      let error: FastifyError | undefined;
      let outcome: PasswordOutcome = 'unchecked';
      try {
        error = await checkBasicCredentials(request, reply);
        outcome = error === undefined ? 'succeeded' : error instanceof WrongCredentials ? 'failed' : 'unchecked';
      } finally {
        attempt.settle(outcome, deps.now());
      }
      if (error === undefined) {
        if (cacheKey !== null) verified.add(cacheKey, now);
        return;
      }
      if (error instanceof WrongCredentials) {
        request.log.info({ event: 'admin.login_failed', address }, 'admin sign-in failed');
        throw new Unauthorized('Wrong admin user name or password.');
      }
      // No or malformed Authorization header: the browser's first request, before it asks for credentials.
      throw new Unauthorized('Sign in with the admin user name and password.');
    });
  },
  { name: 'authenticate-admin' },
);

/** Hashes of Authorization headers that passed the check recently (never the header itself). */
class RecentlyVerified {
  readonly #until = new Map<string, number>();

  has(key: string, now: Date): boolean {
    const until = this.#until.get(key);
    if (until === undefined) return false;
    if (until > now.getTime()) return true;
    this.#until.delete(key);
    return false;
  }

  add(key: string, now: Date): void {
    this.#until.delete(key);
    this.#until.set(key, now.getTime() + REMEMBER_SUCCESS_MS);
    for (const oldest of this.#until.keys()) {
      if (this.#until.size <= MAX_REMEMBERED) break;
      this.#until.delete(oldest);
    }
  }
}
