// node-oidc-provider (npm oidc-provider 9.x, a devDependency used only here) as the peer of issue 21. Started
// by bench/peers.ts:  PORT=... CLIENT_ID=... CLIENT_SECRET=... JWT_CLIENT_ID=... JWT_CLIENT_JWKS=... DEVICE_CLIENT_ID=...
// node --import tsx bench/peer-oidc-provider.ts
//
// Configured as a user would for machine-to-machine tokens: one confidential client (client_secret_basic,
// grant client_credentials), one that authenticates with private_key_jwt (ES256, its public keys inline), a public
// client of the device grant, features clientCredentials, introspection and deviceFlow enabled, devInteractions off, and
// its default adapter, the in-memory one (no database: tokens live in an LRU in this process). Everything
// else is the library's default (opaque access tokens, its own dev signing keys, no logging). Endpoints:
// POST /token, POST /token/introspection and POST /device/auth. GET /healthz is answered here, before the provider, for the
// bench's readiness check (one string comparison per request).
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 0);
const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: process.env.CLIENT_ID ?? 'bench-client',
      client_secret: process.env.CLIENT_SECRET ?? 'bench-secret',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    {
      client_id: process.env.JWT_CLIENT_ID ?? 'bench-jwt-client',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: JSON.parse(process.env.JWT_CLIENT_JWKS ?? '{"keys":[]}') as unknown,
    },
    {
      client_id: process.env.DEVICE_CLIENT_ID ?? 'bench-device-client',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'none',
    },
  ],
  scopes: ['read'],
  features: {
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    deviceFlow: { enabled: true },
    devInteractions: { enabled: false },
  },
});
const handle = provider.callback();
const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  void handle(request, response);
});
const close = () => void server.close();
process.once('SIGTERM', close);
process.once('SIGINT', close);
server.listen(port, '127.0.0.1');
