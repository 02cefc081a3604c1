// A tiny protected API for bench/dpop.ts, in its own process: @oauth-service/guard in remote mode with its default
// cache and `dpop: {}`, so it accepts both a Bearer token and a DPoP-bound one with a fresh proof (RFC 9449 section 7).
//   PORT=... INTROSPECTION_URL=... CLIENT_ID=... CLIENT_SECRET=... node --import tsx bench/dpop-api.ts
// GET /api/notes answers {"client": ..., "jkt": ...} for a valid token holding `read`; GET /healthz.
import Fastify from 'fastify';
import { serviceGuard } from '@oauth-service/guard';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const app = Fastify();
app.get('/healthz', async () => ({ ok: true }));
await app.register(serviceGuard, {
  mode: 'remote',
  introspectionUrl: env('INTROSPECTION_URL'),
  clientId: env('CLIENT_ID'),
  clientSecret: env('CLIENT_SECRET'),
  dpop: {},
});
app.get('/api/notes', { preHandler: app.serviceAuthorize('read') }, async (request) => {
  const token = await request.serviceToken();
  return { client: token?.clientId ?? null, jkt: token?.dpopJkt ?? null };
});

await app.listen({ host: '127.0.0.1', port: Number(env('PORT')) });
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
