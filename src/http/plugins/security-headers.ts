import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { Config, Readonly } from '../../config/types.js';

const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action *; frame-ancestors 'none'; base-uri 'none'";

export type SecurityHeaders = (reply: FastifyReply) => void;

/**
 * The Strict-Transport-Security value, built once at boot (the hook runs on every response), or null for none.
 * RFC 6797 section 7.2: never over plain HTTP, so only while the issuer is https; behind a TLS-terminating
 * proxy the service itself speaks HTTP, but every browser reached it through the https issuer. A user agent
 * ignores the header on a plain-HTTP response anyway (section 8.1).
 */
export function strictTransportSecurity({ baseUrl, hsts }: Pick<Readonly<Config>, 'baseUrl' | 'hsts'>): string | null {
  if (!baseUrl.startsWith('https:') || hsts.maxAgeSeconds === null) return null;
  // Section 6.1: max-age is REQUIRED; includeSubDomains and preload are valueless directives.
  let value = `max-age=${hsts.maxAgeSeconds}`;
  if (hsts.includeSubDomains) value += '; includeSubDomains';
  if (hsts.preload) value += '; preload';
  return value;
}

/**
 * No page of ours may be framed (clickjacking on consent and admin forms), and no response sniffed; with an https
 * issuer, browsers are told to come back over https only (`hsts`, from strictTransportSecurity).
 */
export function securityHeaders(hsts: string | null): SecurityHeaders {
  return (reply) => {
    reply.header('x-request-id', reply.request.id);
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (hsts !== null) reply.header('strict-transport-security', hsts);
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) return void reply.header('content-security-policy', PAGE_POLICY);
    // A document of another type may bring its own policy (an identity provider's SVG logo: sandbox), never framed either.
    const own = reply.getHeader('content-security-policy');
    reply.header('content-security-policy', own === undefined ? "frame-ancestors 'none'" : `${String(own)}; frame-ancestors 'none'`);
  };
}

export const securityHeadersPlugin = fp<{ apply: SecurityHeaders }>(
  async (app, { apply }) => {
    // A callback hook: it runs on every response, where an async one would cost a promise each time (issue 21).
    app.addHook('onSend', (_request, reply, payload, done) => {
      apply(reply);
      done(null, payload);
    });
  },
  { name: 'security-headers' },
);
