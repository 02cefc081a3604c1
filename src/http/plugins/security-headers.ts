import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';

const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action *; frame-ancestors 'none'; base-uri 'none'";

/** No page of ours may be framed (clickjacking on consent and admin forms), and no response sniffed. */
export function applySecurityHeaders(reply: FastifyReply): void {
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  const type = String(reply.getHeader('content-type') ?? '');
  reply.header('content-security-policy', type.startsWith('text/html') ? PAGE_POLICY : "frame-ancestors 'none'");
}

export const securityHeadersPlugin = fp(
  async (app) => {
    // A callback hook: it runs on every response, where an async one would cost a promise each time (issue 21).
    app.addHook('onSend', (_request, reply, payload, done) => {
      applySecurityHeaders(reply);
      done(null, payload);
    });
  },
  { name: 'security-headers' },
);
