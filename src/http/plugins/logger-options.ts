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
    ...(log.format === 'pretty' && !stream ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } } : {}),
  };
}
