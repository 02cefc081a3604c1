import type { FastifyServerOptions } from 'fastify';

// STYLE 15: these never reach a log line, whether in headers, bodies logged by a handler, or query strings. A
// code_challenge is the verifier itself when the plain PKCE method is allowed (RFC 7636 section 4.2).
const SECRET_PARAMETERS = [
  'client_secret',
  'code',
  'code_verifier',
  'code_challenge',
  'refresh_token',
  'token',
  'access_token',
  'password',
];

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
];

const SECRET_QUERY = new RegExp(`([?&](?:${SECRET_PARAMETERS.join('|')}|state)=)[^&#]*`, 'g');

/** A URL with the values of secret query parameters replaced, for logs. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[Redacted]');
}

export function loggerOptions(
  log: { level: string; format: 'json' | 'pretty' },
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  const pretty = log.format === 'pretty' && !stream;
  return {
    ...(stream && { stream }),
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
