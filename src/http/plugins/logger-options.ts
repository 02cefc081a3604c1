import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { redactQuery, type QueryRedaction } from '../../oauth/query-redaction.js';

// STYLE 15: these never reach a log line, whether in headers, bodies logged by a handler, or query strings. A
// code_challenge is the verifier itself when the plain PKCE method is allowed (RFC 7636 section 4.2). A client
// assertion (issue 34) is a credential until it expires: its jti makes it single-use only once it was used.
const SECRET_PARAMETERS = [
  'client_secret',
  'client_assertion',
  'code',
  'code_verifier',
  'code_challenge',
  'refresh_token',
  'token',
  'access_token',
  'password',
  // RFC 8628: the device code polls for tokens; the user code (in /device?user_code=...) approves them.
  'device_code',
  'user_code',
  // RFC 7523 section 2.1: a trusted issuer's assertion is a bearer grant until its jti is spent.
  'assertion',
  // RFC 8693: the tokens a token exchange trades in.
  'subject_token',
  'actor_token',
  // OpenID Connect Core 3.1.2.1 and RP-Initiated Logout: an ID token, the user's claims signed by this server.
  'id_token_hint',
  'id_token',
  // RFC 7592 section 3: the bearer credential that reads, changes and deletes a self-registered client; RFC 7591's
  // initial access token registers one.
  'registration_access_token',
  'initial_access_token',
  // Back-Channel Logout 1.0 section 2.4: ends a user's sessions at whoever accepts it.
  'logout_token',
];

// The account pages' own form fields: the current password, the new one's confirmation, a second-factor code (proof)
// and the CSRF token. Not top-level log keys: no line of ours names a key so, and `current` could be one's meaning.
const FORM_SECRETS = ['current', 'confirmation', 'proof', '_csrf'];

// Kept out of the request log's URL, though not credentials: a request object carries the whole authorization request
// (RFC 9101), a login hint is mostly an e-mail address, and the state is the client's own.
const PRIVATE_QUERY_PARAMETERS = ['request', 'login_hint', 'state'];

// Where a handler or an extension could log request data whole. No `*.name` wildcard: pino then runs its redaction
// on every key of every line (a fifth of the CPU of an introspection at level info, issue 21), and `*.code` hid the
// code of every logged error (ECONNREFUSED, 57P01). `req` and `res` need no paths: their serializers (below, and
// Fastify's `res`: the status code) never write headers or a body.
const REQUEST_DATA = ['body', 'query', 'params', 'parameters', 'form'];

export const REDACTED_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  ...SECRET_PARAMETERS.flatMap((name) => [name, ...REQUEST_DATA.map((container) => `${container}.${name}`)]),
  ...FORM_SECRETS.flatMap((name) => REQUEST_DATA.map((container) => `${container}.${name}`)),
];

const REDACTED_QUERY_PARAMETERS = new Set([...SECRET_PARAMETERS, ...FORM_SECRETS, ...PRIVATE_QUERY_PARAMETERS]);
// A credential sent where it does not belong is still one: `Access_Token=` and `access_token[]=` too (the service
// acts on neither, but the client that sent them meant the token).
const LOGGED_URL: QueryRedaction = {
  secret: (name) => REDACTED_QUERY_PARAMETERS.has(name.toLowerCase().replace(/\[[^\]]*\]$/, '')),
  mask: '[Redacted]',
  endsAt: /[&#]/,
};

/** A URL with the values of secret query parameters replaced, for logs (and trace attributes). */
export const redactUrl = (url: string): string => redactQuery(url, LOGGED_URL);

export function loggerOptions(
  log: { level: string; format: 'json' | 'pretty' },
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  const pretty = log.format === 'pretty' && !stream;
  return {
    ...(stream ? { stream } : !pretty && { stream: standardOutput() }),
    level: log.level,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: {
      req: (request: { method: string; url: string; ip?: string; headers?: Record<string, unknown> }) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } } : {}),
  };
}

let stdout: pino.DestinationStream | null = null;

/**
 * Standard output, buffered: lines go out 4 KiB at a time, and at least every 250 ms so that a quiet service's line
 * is out within a quarter second; what is left is written when the process exits (SIGKILL loses at most that).
 * One write per line cost an introspection ~4.6 µs of its ~90 µs of CPU at level info (bench:profile, issue 21).
 * The writes stay synchronous: an asynchronous one is a thread-pool round trip, which cost more than it saved
 * (bench:profile-ab). One destination per process, shared by every server built in it.
 */
function standardOutput(): pino.DestinationStream {
  if (stdout) return stdout;
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 250 });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // Standard output is gone (a closed pipe): nothing left to write to.
    }
  });
  stdout = destination;
  return destination;
}
