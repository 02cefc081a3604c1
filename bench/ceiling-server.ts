// The database ceiling of issue 21: the least a server can do to introspect a hashed token (and to issue one)
// on this machine with Fastify and pg. Started by bench/peers.ts:
//   DATABASE_URL=... PORT=... POOL_SIZE=... CLIENT_ID=... CLIENT_SECRET_SHA256=... node --import tsx bench/ceiling-server.ts
//
// POST /oauth/introspect, per request, exactly:
//   1. Fastify parses HTTP and routes; the form body is read as a string and parsed with URLSearchParams.
//   2. The Basic header is base64-decoded and split at ':' (no form-decoding of id and secret); the secret's
//      SHA-256 is compared in constant time with CLIENT_SECRET_SHA256, computed once by the caller: no query for
//      the client, no application cache, no per-client rules.
//   3. SHA-256 (hex) of the token, then one named prepared statement, a unique-index lookup on
//      oauth_access_tokens.token returning four columns; no join, no refresh-token fallback, no audience or
//      DPoP checks.
//   4. Liveness from revoked_at and created_at + expires_in; the answer is {active, scope, client_id,
//      token_type, exp, iat} (client_id is the caller's, not read from the row), serialised by Fastify's
//      default JSON.stringify (no response schema).
// POST /oauth/token grant_type=client_credentials: steps 1 and 2, then 32 random bytes, their SHA-256 and one
// named prepared INSERT into oauth_access_tokens, answered {access_token, token_type, expires_in}.
// Nothing else: no logging, hooks, metrics, rate limit, security headers, schemas or error rendering.
// It does the cheap things the service does, so it stays a ceiling: statements as prebuilt query configs whose
// fields pg does not copy per call (src/storage/sql-client.ts) and random bytes from a block
// (src/oauth/random-pool.ts); one randomBytes(32) per token cost more than the rest of its token issue.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { randomBase64url } from '../src/oauth/random-pool.js';

const EXPIRES_IN = 7200;
const clientId = process.env.CLIENT_ID ?? '';
const secretHash = Buffer.from(process.env.CLIENT_SECRET_SHA256 ?? '', 'hex');
const applicationId = Number(process.env.APPLICATION_ID ?? 0);
// TIMESTAMP columns hold UTC wall time.
pg.types.setTypeParser(1114, (value: string) => new Date(`${value.replace(' ', 'T')}Z`));
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const lookup: pg.QueryConfig = Object.create({
  name: 'ceiling_token',
  text: 'SELECT scopes, expires_in, created_at, revoked_at FROM oauth_access_tokens WHERE token = $1',
});
const insert: pg.QueryConfig = Object.create({
  name: 'ceiling_insert',
  text: `INSERT INTO oauth_access_tokens (application_id, token, expires_in, scopes, created_at, previous_refresh_token)
    VALUES ($1, $2, $3, '', $4, '')`,
});

const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest();

function authenticated(header: string | undefined): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString();
  const colon = decoded.indexOf(':');
  return colon > 0 && decoded.slice(0, colon) === clientId && timingSafeEqual(sha256(decoded.slice(colon + 1)), secretHash);
}

const app = Fastify();
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
  done(null, new URLSearchParams(body as string)),
);

app.post('/oauth/introspect', async (request, reply) => {
  if (!authenticated(request.headers.authorization)) return reply.code(401).send({ error: 'invalid_client' });
  const token = (request.body as URLSearchParams).get('token');
  if (!token) return reply.code(400).send({ error: 'invalid_request' });
  const { rows } = await pool.query<{ scopes: string; expires_in: number | null; created_at: Date; revoked_at: Date | null }>(lookup, [
    sha256(token).toString('hex'),
  ]);
  const row = rows[0];
  const iat = row && Math.floor(row.created_at.getTime() / 1000);
  const exp = row?.expires_in == null ? null : iat! + row.expires_in;
  if (!row || row.revoked_at !== null || (exp !== null && exp * 1000 <= Date.now())) return { active: false };
  return { active: true, scope: row.scopes, client_id: clientId, token_type: 'Bearer', ...(exp !== null && { exp }), iat };
});

app.post('/oauth/token', async (request, reply) => {
  if (!authenticated(request.headers.authorization)) return reply.code(401).send({ error: 'invalid_client' });
  if ((request.body as URLSearchParams).get('grant_type') !== 'client_credentials')
    return reply.code(400).send({ error: 'unsupported_grant_type' });
  const token = randomBase64url(32);
  await pool.query(insert, [applicationId, sha256(token).toString('hex'), EXPIRES_IN, new Date().toISOString()]);
  reply.header('cache-control', 'no-store');
  return { access_token: token, token_type: 'Bearer', expires_in: EXPIRES_IN };
});

app.get('/healthz', async () => ({ status: 'ok' }));

const close = () => void app.close().then(() => pool.end());
process.once('SIGTERM', close);
process.once('SIGINT', close);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
