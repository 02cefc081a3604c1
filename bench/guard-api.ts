// A tiny protected API for bench/guard-modes.ts, one process per target, so that neither the load generator nor the
// service shares its event loop:
//   GUARD_MODE=jwt|remote|jose PORT=... ISSUER=... RESOURCE=... [JWKS_URL=...] [INTROSPECTION_URL=... CLIENT_ID=...
//   CLIENT_SECRET=...] [JWT_INTROSPECT=always] node --import tsx bench/guard-api.ts
// Every target answers GET /api/notes with the same small JSON for a valid token holding `read`, and GET /healthz.
// - jwt: @oauth-service/guard, mode 'jwt' (issuer, resource; keys discovered and cached by the guard);
// - remote: @oauth-service/guard, mode 'remote' with its default cache (introspection at the service);
// - jose: no guard, a bare route verifying the JWT with jose's jwtVerify and createRemoteJWKSet, the RFC 9068
//   checks the guard makes (alg, typ at+jwt, iss, aud, exp with 5 s tolerance, scope).
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { serviceGuard } from '@oauth-service/guard';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const mode = env('GUARD_MODE');
const issuer = env('ISSUER');
const resource = env('RESOURCE');
const app = Fastify();
app.get('/healthz', async () => ({ ok: true }));

if (mode === 'jwt' || mode === 'remote') {
  await app.register(
    serviceGuard,
    mode === 'jwt'
      ? {
          mode: 'jwt',
          issuer,
          resource,
          // Only for the bench's check of its own assertion (--jwt-introspect-always): jwt mode that calls the service.
          ...(process.env.JWT_INTROSPECT === 'always' && {
            introspect: 'always' as const,
            introspectionUrl: env('INTROSPECTION_URL'),
            clientId: env('CLIENT_ID'),
            clientSecret: env('CLIENT_SECRET'),
          }),
        }
      : {
          mode: 'remote',
          introspectionUrl: env('INTROSPECTION_URL'),
          clientId: env('CLIENT_ID'),
          clientSecret: env('CLIENT_SECRET'),
          resource,
        },
  );
  app.get('/api/notes', { preHandler: app.serviceAuthorize('read') }, async (request) => {
    const token = await request.serviceToken();
    return { client: token?.clientId ?? null };
  });
} else if (mode === 'jose') {
  const keys = createRemoteJWKSet(new URL(env('JWKS_URL')));
  const refuse = (reply: FastifyReply, status: number, error: string) =>
    reply.code(status).header('www-authenticate', `Bearer error="${error}"`).send({ error });
  app.get('/api/notes', async (request: FastifyRequest, reply) => {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer ')) return refuse(reply, 401, 'invalid_token');
    try {
      const { payload } = await jwtVerify(header.slice(7), keys, {
        issuer,
        audience: resource,
        typ: 'at+jwt',
        algorithms: ['RS256', 'ES256', 'EdDSA'],
        clockTolerance: 5,
        requiredClaims: ['sub', 'client_id', 'jti', 'iat', 'exp'],
      });
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      if (!scopes.includes('read')) return refuse(reply, 403, 'insufficient_scope');
      return { client: typeof payload.client_id === 'string' ? payload.client_id : null };
    } catch {
      return refuse(reply, 401, 'invalid_token');
    }
  });
} else {
  throw new Error(`GUARD_MODE: jwt, remote or jose, not ${mode}`);
}

await app.listen({ host: '127.0.0.1', port: Number(env('PORT')) });
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
