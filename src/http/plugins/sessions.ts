import { createHash, randomBytes } from 'node:crypto';
import fp from 'fastify-plugin';
import secureSession from '@fastify/secure-session';
import csrfProtection from '@fastify/csrf-protection';
import { LOGIN_SESSION_LIFETIME_SECONDS } from '../../oauth/sessions/login-session-lifetime.js';

export interface SessionOptions {
  /** At least 32 characters; null gives a random key per process (sessions end at restart). */
  secret: string | null;
  /** Cookies get the Secure flag when the service is served over https. */
  secure: boolean;
  /**
   * publicBasePath(config.baseUrl): the cookie's Path is the issuer's path, so two issuers on one host
   * (https://auth.example.com/tenant-a and /tenant-b) keep their own sessions and CSRF secrets.
   */
  basePath?: string;
  maxAgeSeconds?: number;
}

declare module '@fastify/secure-session' {
  interface SessionData {
    /**
     * The login session's key (issue 35): its SHA-256 is the login_sessions row that says who is signed in, since
     * when and how (oauth/sessions/login-sessions.ts). Ending the row signs this browser out on every instance.
     */
    sessionKey: string;
    /** Set by prompt=login, max_age or an id_token_hint for someone else: /login asks again despite a session. */
    reauthenticate: boolean;
    /**
     * The most seconds ago the user may have authenticated, as the authorization request that sent the browser to
     * /login asks (max_age; 0 for prompt=login): a sign-in through an upstream passes it on and checks its auth_time.
     */
    maxAuthenticationAge: number;
    /**
     * Set by an authorization request that wants a second factor (acr_values naming the mfa acr, or a client listed in
     * authentication.requireSecondFactor), to the path the sign-in returns to: /login then asks for it, even of a user
     * who would not be asked, while it returns there (a sign-in started elsewhere later is not bound by it).
     */
    secondFactorWanted: string;
    /** Likewise for an authorization request that wants phr: /login then asks a user who has a passkey for it. */
    passkeyStepWanted: string;
    /**
     * Half signed in (issue 35): the password was right, the second step is still to come. Never a login session;
     * `until` (epoch ms) keeps it short.
     */
    pendingSignIn: { userId: number; until: number; account: string };
    /** A TOTP secret shown for enrolment, not confirmed yet (the cookie is encrypted): confirming stores it. */
    totpEnrolment: { userId: number; secret: string; until: number };
    /**
     * The device authorization whose user code this browser entered (POST /device showed its consent page): the only
     * one its decision form may decide, so a code is always entered (counted, and its warning seen) before it is approved.
     */
    deviceCodeEntered: number;
    /** The device authorization this browser last decided: its code entered again (another tab) was answered already. */
    deviceCodeAnswered: number;
    /** The device authorization this browser entered too often (denied then): entered again, it says so again. */
    deviceCodeTooOften: number;
    /** That code as the person typed it, for GET /device/consent, where the entry's POST redirects (POST/redirect/GET). */
    deviceUserCode: string;
    /** How the last decision at /device ended, for GET /device/done, where the decision's POST redirects. */
    deviceOutcome: 'approved' | 'denied';
    /** OpenID Connect login_hint: pre-fills the login form. */
    loginHint: string;
    /** Where to go back after logging in. */
    returnTo: string;
    /**
     * The ui_locales of a pushed or signed authorization request (RFC 9126, RFC 9101), whose returnTo does not show
     * them: the sign-in pages for that returnTo speak its language too.
     */
    returnToUiLocales: { returnTo: string; uiLocales: string };
    /** Where the latest sign-in went back to: GET /oauth/authorize reads it once, to know a sign-in was for it. */
    signedInFor: string;
    _csrf: string;
    /** One-time message shown on the next page (Doorkeeper's flash notice). */
    notice: string;
    /** A plain client secret shown once on the next application page. */
    secretOnce: { applicationId: number; secret: string };
  }
}

/**
 * The browser's session in a signed, encrypted, HttpOnly, SameSite=Lax cookie (SPEC 3.6): the login session's key
 * (the login itself is a database row, so any instance can list and end it), the CSRF secret, and what a page
 * carries to the next one.
 */
export const sessionsPlugin = fp<SessionOptions>(
  async (app, { secret, secure, basePath = '', maxAgeSeconds = LOGIN_SESSION_LIFETIME_SECONDS }) => {
    const key = secret ? createHash('sha256').update(secret).digest() : randomBytes(32);
    await app.register(secureSession, {
      key,
      cookieName: 'oauth_session',
      expiry: maxAgeSeconds,
      cookie: { path: `${basePath}/`, httpOnly: true, sameSite: 'lax', secure, maxAge: maxAgeSeconds },
    });
    await app.register(csrfProtection, {
      sessionPlugin: '@fastify/secure-session',
      getToken: (request) => {
        const body = request.body as Record<string, unknown> | undefined;
        const fromBody = body && typeof body._csrf === 'string' ? body._csrf : undefined;
        return fromBody ?? (request.headers['x-csrf-token'] as string | undefined);
      },
    });
  },
  { name: 'sessions' },
);
