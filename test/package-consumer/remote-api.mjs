// An API that installed @oauth-service/guard from its tarball (npm install ./oauth-service-guard-<version>.tgz)
// and protects a route in remote mode against a running oauth-service. Run by .ci/run from a scratch project that
// holds only this file, the guard and fastify: `node remote-api.mjs` with OAUTH_INTROSPECTION_URL,
// OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET (the API's client) and ACCESS_TOKEN (a token that client may introspect).
// Exits 1 with the reason when the API does not answer 401 without a token and 200 with the valid one.
import Fastify from 'fastify';
import { serviceGuard } from '@oauth-service/guard';

const env = (name) => process.env[name] || fail(`${name} is not set`);
function fail(message) {
  console.error(`remote-api: ${message}`);
  process.exit(1);
}

const app = Fastify();
await app.register(serviceGuard, {
  mode: 'remote',
  introspectionUrl: env('OAUTH_INTROSPECTION_URL'),
  clientId: env('OAUTH_CLIENT_ID'),
  clientSecret: env('OAUTH_CLIENT_SECRET'),
});
app.get('/notes', { preHandler: app.serviceAuthorize() }, async (request) => ({ clientId: (await request.serviceToken())?.clientId }));

const anonymous = await app.inject({ method: 'GET', url: '/notes' });
if (anonymous.statusCode !== 401 || !String(anonymous.headers['www-authenticate']).startsWith('Bearer')) {
  fail(`without a token: expected 401 with a Bearer challenge, got ${anonymous.statusCode} ${anonymous.body}`);
}
const unknown = await app.inject({ method: 'GET', url: '/notes', headers: { authorization: 'Bearer not-a-token' } });
if (unknown.statusCode !== 401) fail(`with an unknown token: expected 401, got ${unknown.statusCode} ${unknown.body}`);
const authorized = await app.inject({ method: 'GET', url: '/notes', headers: { authorization: `Bearer ${env('ACCESS_TOKEN')}` } });
if (authorized.statusCode !== 200 || authorized.json().clientId !== env('OAUTH_CLIENT_ID')) {
  fail(`with a valid token: expected 200 naming the client, got ${authorized.statusCode} ${authorized.body}`);
}
await app.close();
console.log('remote-api: 401 without a token, 401 with an unknown one, 200 with a valid one');
