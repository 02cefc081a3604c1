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
    app.addHook('onSend', async (_request, reply, payload) => {
      applySecurityHeaders(reply);
      return payload;
    });
  },
  { name: 'security-headers' },
);
