import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';

// CORS (the Fetch standard) for browser-based applications: a single-page app's public client calls the token,
// revocation and UserInfo endpoints from its own origin, and reads discovery and the JWKS. The browser lets the page
// read an answer only when the answer names the page's origin. No cookie is involved here (nothing says
// Allow-Credentials, and the pages' session is not on these routes), so this opens no session to another site: it
// only lets the listed origins read what their own requests got. Discovery and the JWKS are public documents, readable
// from every origin (as node-oidc-provider and Hydra serve them); the endpoints from config `cors.allowedOrigins`.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Discovery or the JWKS: readable from every origin, whatever `cors.allowedOrigins` says. */
    publicDocument?: boolean;
  }
}

/** The endpoints a page may call, and their methods (the preflight's Access-Control-Allow-Methods). */
const BROWSER_ENDPOINTS = new Map([
  ['/oauth/token', 'POST'],
  ['/oauth/revoke', 'POST'],
  ['/oauth/userinfo', 'GET, POST'],
]);
// What a page sends beyond the safelisted headers: a Bearer or DPoP token, a DPoP proof, a form's or JSON's type.
const REQUEST_HEADERS = 'authorization, content-type, dpop';
// What it must read beyond the safelisted ones: the challenge of a 401, the DPoP nonce to use, when to retry.
const EXPOSED_HEADERS = 'www-authenticate, dpop-nonce, retry-after';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export interface CorsOptions {
  allowedOrigins: readonly string[];
  /** Whether /oauth/userinfo exists (OpenID Connect on). */
  userinfo: boolean;
}

export const corsPlugin = fp<CorsOptions>(
  async (app, { allowedOrigins, userinfo }) => {
    const anyOrigin = allowedOrigins.includes('*');
    const listed = new Set(allowedOrigins);
    const allowed = (origin: string | undefined): origin is string => origin !== undefined && (anyOrigin || listed.has(origin));

    // Callback hooks, as security-headers' (issue 21), on these routes only, so no other response pays for them.
    const anyOriginReads: onSendHookHandler = (_request, reply, payload, done) => {
      reply.header('access-control-allow-origin', '*');
      done(null, payload);
    };
    const listedOriginsRead: onSendHookHandler = (request, reply, payload, done) => {
      allowEndpoint(request, reply, allowed);
      done(null, payload);
    };
    // Registered before the routes (app.ts), so this onRoute hook sees each of them; the preflights below answer for
    // themselves.
    app.addHook('onRoute', (route) => {
      const hook = route.config?.publicDocument === true ? anyOriginReads : BROWSER_ENDPOINTS.has(route.url) ? listedOriginsRead : null;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (hook === null || methods.includes('OPTIONS')) return;
      const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
      route.onSend = [...own, hook];
    });

    // The preflight of a request that is not "simple" (an Authorization or DPoP header, a JSON body): answered here,
    // before any credential is looked at (the browser sends none with it).
    // None without an origin to allow: OPTIONS stays unrouted (404), as before CORS.
    for (const [path, methods] of allowedOrigins.length === 0 ? [] : BROWSER_ENDPOINTS) {
      if (path === '/oauth/userinfo' && !userinfo) continue;
      app.options(path, (request, reply) => {
        if (allowEndpoint(request, reply, allowed)) {
          reply.header('access-control-allow-methods', methods);
          reply.header('access-control-allow-headers', REQUEST_HEADERS);
          reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
        }
        return reply.code(204).header('allow', `${methods}, OPTIONS`).send();
      });
    }
  },
  { name: 'cors' },
);

// A list of header names (RFC 9110 field-name tokens), as a preflight's Access-Control-Request-Headers carries it.
const HEADER_NAMES = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * The preflight of a public document (discovery, the JWKS): allowed from every origin, with whatever headers the page
 * adds (the MCP SDK sends MCP-Protocol-Version), since no credential is read and the answer is the same for anyone.
 * Without it a browser client's discovery fails its preflight and must retry without its headers.
 */
export function publicDocumentPreflight(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const requested = request.headers['access-control-request-headers'];
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'GET, HEAD');
  if (typeof requested === 'string' && HEADER_NAMES.test(requested.trim())) reply.header('access-control-allow-headers', requested.trim());
  reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
  return reply.code(204).header('allow', 'GET, HEAD, OPTIONS').send();
}

/** Names the request's origin in the answer when it is allowed; the answer varies by origin either way. */
function allowEndpoint(request: FastifyRequest, reply: FastifyReply, allowed: (origin: string | undefined) => origin is string): boolean {
  const { origin } = request.headers;
  if (origin === undefined) return false;
  const vary = reply.getHeader('vary');
  reply.header('vary', vary === undefined ? 'Origin' : `${String(vary)}, Origin`);
  if (!allowed(origin)) return false;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  return true;
}
