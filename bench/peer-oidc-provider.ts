// node-oidc-provider (npm oidc-provider 9.x, a devDependency used only here) as the peer of issue 21. Started
// by bench/peers.ts:  PORT=... CLIENT_ID=... CLIENT_SECRET=... JWT_CLIENT_ID=... JWT_CLIENT_JWKS=... DEVICE_CLIENT_ID=...
// FAPI_CLIENT_ID=... COOKIE_KEY=... node --import tsx bench/peer-oidc-provider.ts
//
// Configured as a user would for machine-to-machine tokens: one confidential client (client_secret_basic,
// grant client_credentials), one that authenticates with private_key_jwt (ES256, its public keys inline), a public
// client of the device grant, features clientCredentials, introspection and deviceFlow enabled, devInteractions off, and
// its default adapter, the in-memory one (no database: tokens live in an LRU in this process). Everything
// else is the library's default (opaque access tokens, its own dev signing keys, no logging). Endpoints:
// POST /token, POST /token/introspection and POST /device/auth. GET /healthz is answered here, before the provider, for the
// bench's readiness check (one string comparison per request).
//
// Issue 36: a FAPI 2.0 client (the same key, private_key_jwt, PAR required, DPoP-bound tokens, features.fapi profile
// '2.0' for it alone, so the issue-34 clients stay as they were), endpoints POST /par and GET /auth. Its users sign in
// once, before the run, through the interaction at /interaction/<uid>: answered here as a login page would be after
// the password, for the test account `bench-user`, with a grant of the scopes asked for (the consent), as the
// library's documentation shows (interactionDetails, Grant, interactionFinished). The measured authorization
// requests never reach it: the session cookie and that grant (loadExistingGrant's default) answer them with a code.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 0);
const fapiClientId = process.env.FAPI_CLIENT_ID ?? 'bench-fapi-client';
const jwks = JSON.parse(process.env.JWT_CLIENT_JWKS ?? '{"keys":[]}') as unknown;
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
      jwks,
    },
    {
      client_id: fapiClientId,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['https://client.example/callback'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks,
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
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
    fapi: {
      enabled: true,
      profile: (_ctx: unknown, client?: { clientId: string }) => (client?.clientId === fapiClientId ? '2.0' : undefined),
    },
    pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: true },
    dPoP: { enabled: true },
  },
  // Signed cookies, as in production (the library warns without keys): the session cookie is checked on every request.
  cookies: { keys: [process.env.COOKIE_KEY ?? 'bench-cookie-key'] },
});

/** The end of a sign-in: bench-user, the scopes asked for granted to the client. */
async function completeInteraction(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { params } = await provider.interactionDetails(request, response);
  const accountId = 'bench-user';
  const grant = new provider.Grant({ accountId, clientId: String(params.client_id) });
  grant.addOIDCScope(String(params.scope ?? ''));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}
const handle = provider.callback();
const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  if (request.url?.startsWith('/interaction/')) {
    completeInteraction(request, response).catch((error: Error) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message);
    });
    return;
  }
  void handle(request, response);
});
const close = () => void server.close();
process.once('SIGTERM', close);
process.once('SIGINT', close);
server.listen(port, '127.0.0.1');
