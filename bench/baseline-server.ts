// The baseline of SPEC 9: a bare Fastify + pg handler per endpoint doing the same queries with prepared
// statements, and nothing else (no schemas, hooks, cache, logging). Started by bench/run.ts:
//   DATABASE_URL=... PORT=... node --import tsx bench/baseline-server.ts
import Fastify, { type FastifyReply } from 'fastify';
import pg from 'pg';
import {
  Q,
  basicCredentials,
  bearer,
  isLiveAccess,
  isLiveRefresh,
  newSecret,
  one,
  sameSecret,
  seconds,
  sha256,
  type ApplicationRow,
  type TokenRow,
} from './baseline-queries.js';

const ACCESS_TOKEN_EXPIRES_IN = 7200;
const DEFAULT_SCOPE = 'read';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const app = Fastify();
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
  done(null, Object.fromEntries(new URLSearchParams(body as string))),
);

type Form = Record<string, string | undefined>;
const fail = (reply: FastifyReply, status: number, error: string) => reply.code(status).send({ error });

async function authenticate(header: string | undefined): Promise<ApplicationRow | null> {
  const credentials = basicCredentials(header);
  if (!credentials) return null;
  const application = await one<ApplicationRow>(pool, Q.applicationByUid, [credentials.id]);
  return application && sameSecret(credentials.secret, application.secret) ? application : null;
}

/** The token row of a presented value: as an access token, else as a refresh token (any hint). */
async function findToken(value: string): Promise<{ row: TokenRow; refresh: boolean } | null> {
  const hash = sha256(value);
  const access = await one<TokenRow>(pool, Q.tokenByToken, [hash]);
  if (access) return { row: access, refresh: false };
  return findRefreshToken(hash);
}

async function findRefreshToken(hash: string): Promise<{ row: TokenRow; refresh: boolean } | null> {
  const refresh = await one<TokenRow>(pool, Q.tokenByRefresh, [hash]);
  return refresh && { row: refresh, refresh: true };
}

function introspection({ row, refresh }: { row: TokenRow; refresh: boolean }) {
  if (!(refresh ? isLiveRefresh(row) : isLiveAccess(row, Date.now()))) return { active: false };
  return {
    active: true,
    ...(row.scopes && { scope: row.scopes }),
    ...(row.client_id !== null && { client_id: row.client_id }),
    ...(!refresh && { token_type: 'Bearer' }),
    iat: seconds(row.created_at),
    ...(!refresh && row.expires_in !== null && { exp: seconds(row.created_at) + row.expires_in }),
  };
}

app.post('/oauth/introspect', async (request, reply) => {
  const body = request.body as Form;
  const presentedBearer = bearer(request.headers.authorization);
  if (presentedBearer !== null) {
    // Both access tokens in one query, as the service reads them; the refresh-token lookup only on a miss.
    const [bearerHash, tokenHash] = [sha256(presentedBearer), body.token ? sha256(body.token) : ''];
    const { rows } = await pool.query<TokenRow & { token: string }>({ ...Q.tokensByTokens, values: [bearerHash, tokenHash] });
    const requester = rows.find((row) => row.token === bearerHash);
    if (!requester || !isLiveAccess(requester, Date.now())) return fail(reply, 401, 'invalid_token');
    const access = rows.find((row) => row.token === tokenHash);
    const found = !body.token ? null : access ? { row: access, refresh: false } : await findRefreshToken(tokenHash);
    if (found?.row.id === requester.id || requester.application_id !== (found?.row.application_id ?? null))
      return fail(reply, 401, 'invalid_token');
    return found ? introspection(found) : { active: false };
  }
  const client = await authenticate(request.headers.authorization);
  if (!client) return fail(reply, 401, 'invalid_client');
  if (!body.token) return fail(reply, 400, 'invalid_request');
  const found = await findToken(body.token);
  if (!found || (found.row.application_id !== null && found.row.application_id !== client.id)) return { active: false };
  return introspection(found);
});

app.get('/oauth/token/info', async (request, reply) => {
  const presented = bearer(request.headers.authorization);
  const row = presented === null ? null : await one<TokenRow>(pool, Q.tokenByToken, [sha256(presented)]);
  if (!row || !isLiveAccess(row, Date.now())) return fail(reply, 401, 'invalid_token');
  return {
    resource_owner_id: row.resource_owner_id,
    scope: row.scopes ? row.scopes.split(' ') : [],
    expires_in: row.expires_in === null ? null : Math.round((row.created_at.getTime() + row.expires_in * 1000 - Date.now()) / 1000),
    application: { uid: row.client_id },
    created_at: seconds(row.created_at),
  };
});

app.post('/oauth/token', async (request, reply) => {
  const body = request.body as Form;
  const client = await authenticate(request.headers.authorization);
  if (!client) return fail(reply, 401, 'invalid_client');
  const createdAt = new Date();
  const accessToken = newSecret();
  if (body.grant_type === 'client_credentials') {
    if (!client.confidential) return fail(reply, 400, 'unauthorized_client');
    await pool.query({
      ...Q.insertToken,
      values: [client.id, null, sha256(accessToken), null, ACCESS_TOKEN_EXPIRES_IN, DEFAULT_SCOPE, createdAt.toISOString(), '', null],
    });
    reply.header('cache-control', 'no-store');
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_EXPIRES_IN,
      scope: DEFAULT_SCOPE,
      created_at: seconds(createdAt),
    };
  }
  if (body.grant_type !== 'refresh_token' || !body.refresh_token) return fail(reply, 400, 'invalid_request');
  const old = await one<TokenRow>(pool, Q.tokenByRefresh, [sha256(body.refresh_token)]);
  if (!old || old.application_id !== client.id || !isLiveRefresh(old)) return fail(reply, 400, 'invalid_grant');
  const refreshToken = newSecret();
  const at = createdAt.toISOString();
  const rotated = await pool.query({
    ...Q.rotate,
    values: [
      client.id,
      old.resource_owner_id,
      sha256(accessToken),
      sha256(refreshToken),
      old.expires_in,
      old.scopes,
      at,
      old.refresh_token,
      old.refresh_family,
      at,
      old.id,
    ],
  });
  if (rotated.rowCount === 0) return fail(reply, 400, 'invalid_grant');
  reply.header('cache-control', 'no-store');
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    ...(old.expires_in !== null && { expires_in: old.expires_in }),
    refresh_token: refreshToken,
    ...(old.scopes && { scope: old.scopes }),
    created_at: seconds(createdAt),
  };
});

app.get('/healthz', async () => ({ status: 'ok' }));

const close = () => void app.close().then(() => pool.end());
process.once('SIGTERM', close);
process.once('SIGINT', close);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
