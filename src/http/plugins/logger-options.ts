import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';

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

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_PARAMETERS.flatMap((name) => [name, `*.${name}`, `body.${name}`]),
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
 * Standard output, written asynchronously (one destination per process, shared by every server built in it): a line
 * is handed to the kernel at once when no write is pending, and lines logged during a write go out together in the
 * next, so a busy service makes one system call for many lines instead of blocking on one each (issue 21). pino
 * flushes what is left synchronously when the process exits.
 */
function standardOutput(): pino.DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}
