import fp from 'fastify-plugin';

/** No page of ours may be framed (clickjacking on consent and admin forms), and no response sniffed. */
export const securityHeadersPlugin = fp(
  async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-frame-options', 'DENY');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('text/html')) {
        reply.header(
          'content-security-policy',
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action *; frame-ancestors 'none'; base-uri 'none'",
        );
      } else {
        reply.header('content-security-policy', "frame-ancestors 'none'");
      }
      return payload;
    });
  },
  { name: 'security-headers' },
);
