import type { FastifyInstance } from 'fastify';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { ajvJsonSchemaChecker } from '../../src/storage/ajv-json-schema-checker.js';
import { createAttemptLimits } from '../../src/oauth/limits/attempt-limits.js';
import { createTokenSigner } from '../../src/oauth/keys/token-signer.js';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import type { Config, ConfigInput } from '../../src/config/types.js';
import type { Extensions } from '../../src/http/extensions.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { PasswordHasher } from '../../src/oauth/users/passwords.js';
import { createStores } from '../../src/storage/stores.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface TestServer {
  app: FastifyInstance;
  config: Readonly<Config>;
  /** The domain's dependencies on the same database, for factories and assertions. */
  deps: OAuthDeps;
  testDatabase: TestDatabase;
  /** The server's clock: real time, moved forward by advance() (expiry tests). */
  clock: { readonly now: Date; advance(seconds: number): void };
  close(): Promise<void>;
}

export interface TestServerOptions {
  config?: ConfigInput & Record<string, unknown>;
  /** Environment variables the config is loaded with (secrets such as KEY_ENCRYPTION_KEY come only from there). */
  env?: Record<string, string>;
  extensions?: Extensions;
  /** Reuse a database (e.g. two servers on one database); else a fresh one is made and dropped. */
  testDatabase?: TestDatabase;
  /** Receives the server's log lines (set config.log.level to see them). */
  logStream?: NodeJS.WritableStream;
  /** The server's password hasher (argon2id by default); tests wrap it to count checks. */
  passwords?: PasswordHasher;
  /** CAs the server trusts for Client ID Metadata Documents over https (a test's self-signed certificate). */
  clientMetadataDocumentCa?: string | Buffer | Array<string | Buffer>;
}

/** A server on a fresh migrated database (PGlite, or PostgreSQL with DATABASE_URL), for inject() or listen(). */
export async function buildTestServer({
  config: input = {},
  env,
  extensions,
  testDatabase,
  logStream,
  passwords,
  clientMetadataDocumentCa,
}: TestServerOptions = {}): Promise<TestServer> {
  const ownDatabase = !testDatabase;
  const db = testDatabase ?? (await createTestDatabase());
  const config = loadConfig({
    input: { log: { level: process.env.TEST_LOG_LEVEL ?? 'silent' }, sessionSecret: 'a'.repeat(40), ...input },
    env,
  });
  // Real time plus an offset that tests move forward, so servers built at different moments agree.
  let offsetMs = 0;
  const clock = {
    get now() {
      return new Date(Date.now() + offsetMs);
    },
    advance(seconds: number) {
      offsetMs += seconds * 1000;
    },
  };
  const now = () => clock.now;
  const stores = createStores(db.database, { keyEncryptionKey: config.keys.encryptionKey ?? null });
  const app = await buildServer({ config, extensions, database: db.database, now, stores, logStream, passwords, clientMetadataDocumentCa });
  const deps: OAuthDeps = {
    stores,
    config,
    now,
    hooks: extensions ?? {},
    passwords: argon2Hasher,
    limits: createAttemptLimits(config.rateLimit),
    signer: createTokenSigner({ stores, config, now }),
    jsonSchemas: ajvJsonSchemaChecker(),
  };
  return {
    app,
    config,
    deps,
    testDatabase: db,
    clock,
    async close() {
      await app.close();
      if (ownDatabase) await db.drop();
    },
  };
}

/** A form-urlencoded body from a record, as clients send it. */
export function form(params: Record<string, string | string[]>): string {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(key, item);
  }
  return body.toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function basicAuth(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}
