import type { Config } from './types.js';

// Issue 32: settings that a development machine can do without and production cannot. Without a shared session
// secret every process makes its own, so every restart signs everyone out and each instance rejects the others'
// cookies; with an http issuer the tokens' `iss`, the discovery documents and the session cookie all say http.

/** The one line that refuses a production start without a session secret; null when there is one or not production. */
export function missingSessionSecret(config: Readonly<Config>, env: Record<string, string | undefined>): string | null {
  if (env.NODE_ENV !== 'production' || config.sessionSecret !== null) return null;
  return (
    'NODE_ENV is production and no session secret is set: set SESSION_SECRET (or sessionSecretFile, SESSION_SECRET_FILE) to at least ' +
    '32 random characters (openssl rand -hex 32), the same on every instance; without it every restart signs all users out'
  );
}

/** The warning for an issuer that is not https in production, unless allowInsecureIssuer says it is meant. */
export function insecureIssuerWarning(config: Readonly<Config>, env: Record<string, string | undefined>): string | null {
  if (env.NODE_ENV !== 'production' || config.allowInsecureIssuer || config.baseUrl.startsWith('https://')) return null;
  return (
    `the issuer ${config.baseUrl} is not https while NODE_ENV is production: tokens, discovery and the session cookie name an ` +
    'address reached without TLS. Set BASE_URL (or baseUrl) to the https URL clients use, or allowInsecureIssuer to true if http is meant'
  );
}
