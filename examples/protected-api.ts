// An API protected by oauth-service: one public route, one for any valid token, one for scope "write".
// Run: OAUTH_INTROSPECTION_URL=http://127.0.0.1:3000/oauth/introspect OAUTH_CLIENT_ID=... OAUTH_CLIENT_SECRET=... \
//      PORT=4000 npx tsx examples/protected-api.ts
// The API's client must be allowed to introspect other clients' tokens: in the service's config.json,
// "introspection": {"allow": [{"rule": "clients", "clientIds": ["<its client id>"]}]}
// (the answer's "sub", the user's OpenID subject as in ID tokens, tells the API who the resource owner is).
import Fastify, { type FastifyInstance } from 'fastify';
import { pathToFileURL } from 'node:url';
// In your own API: npm install @oauth-service/guard (see docs/protecting-apis.md); here it is the workspace package.
import { serviceGuard } from '@oauth-service/guard';

export interface ProtectedApiConfig {
  introspectionUrl: string;
  clientId: string;
  clientSecret: string;
  /** The guard's clock (tests move it); default Date.now. */
  now?: () => number;
  logLevel?: string;
}

export async function buildProtectedApi(config: ProtectedApiConfig): Promise<FastifyInstance> {
  const { logLevel = 'info', ...guard } = config;
  const app = Fastify({ logger: { level: logLevel } });
  await app.register(serviceGuard, { mode: 'remote', ...guard });

  app.get('/public', async () => ({ message: 'anyone can read this' }));

  app.get('/me', { preHandler: app.serviceAuthorize() }, async (request) => {
    const token = await request.serviceToken();
    return { clientId: token?.clientId, scopes: token?.scopes, resourceOwnerId: token?.resourceOwnerId };
  });

  app.post('/notes', { preHandler: app.serviceAuthorize('write') }, async (_request, reply) => reply.code(201).send({ saved: true }));

  return app;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await buildProtectedApi({
    introspectionUrl: required('OAUTH_INTROSPECTION_URL'),
    clientId: required('OAUTH_CLIENT_ID'),
    clientSecret: required('OAUTH_CLIENT_SECRET'),
    logLevel: process.env.LOG_LEVEL,
  });
  await app.listen({ port: Number(process.env.PORT ?? 4000), host: process.env.HOST ?? '127.0.0.1' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close());
}
