import { resolve } from 'node:path';
import { buildServer } from '../app.js';
import { problemAt } from '../config/env-overrides.js';
import { ConfigError } from '../config/loader.js';
import { insecureIssuerWarning, missingSessionSecret } from '../config/production-settings.js';
import type { Config } from '../config/types.js';
import { closeWithin, shutdownGraceMs } from '../http/graceful-close.js';
import { loadExtensions } from '../http/load-extensions.js';
import { compileDeferredSchemas } from '../http/schema-compilers.js';
import { isOpenIdProvider } from '../oauth/server-metadata.js';
import { createDatabase } from '../storage/database.js';
import { createsEmbeddedDatabase } from '../storage/embedded-database.js';
import { developmentKeyEncryptionKey } from '../storage/development-key.js';
import { migrate } from '../storage/migrate.js';
import { setupCounts } from '../storage/setup-counts.js';
import { baseUrlConfigured, configFileOf, configFrom, databaseOptionsFor, listeningBaseUrl, openIdConfigured } from './context.js';
import { parseOptions, type CliIo } from './io.js';
import { checkListenPorts, freePort, listenError, METRICS_SETTING } from './listen-check.js';
import { startBanner } from './serve-banner.js';

const HELP = `Usage: oauth-service serve [--config PATH|none]

Applies pending migrations, then serves HTTP on HOST:PORT until SIGTERM or SIGINT, when it stops
accepting connections and finishes the requests in flight: for requestTimeoutSeconds, at most 5 s, after
which it closes the connections still open. Without BASE_URL (or baseUrl), the base URL is derived from
the address it listens on. On the embedded database it owns the data folder while it runs, and CLI
commands act on its database through a Unix socket in that folder.
`;

export async function runServeCommand(args: string[], io: CliIo): Promise<number | null> {
  const { values } = parseOptions(args, {});
  if (values.help) return (io.stdout(HELP), 0);
  const configured = configFrom(io, values.config);
  try {
    return await serve(configured, io);
  } catch (error) {
    throw hostProblem(error, configured, io.env) ?? error;
  }
}

async function serve(configured: Readonly<Config>, io: CliIo): Promise<null> {
  const refusal = missingSessionSecret(configured, io.env);
  if (refusal) throw new ConfigError([refusal], 'the environment', refusal);
  const extensions = await loadExtensions(configured.extensions);
  // Before anything creates or migrates a database (issue 32).
  await checkListenPorts(configured);
  const options = databaseOptionsFor(configured, 'server');
  if (!options.databaseUrl && createsEmbeddedDatabase(options.dataDir, options.embedded ?? { role: 'server' })) {
    io.stderr(`creating the embedded database in ${resolve(options.dataDir)} (first start: this takes several seconds)\n`);
  }
  const database = await createDatabase(options);
  const derivedBaseUrl = !baseUrlConfigured(configured);
  const configFile = configFileOf(configured);
  let app: Awaited<ReturnType<typeof buildServer>>;
  let config: Readonly<Config>;
  let counts: Awaited<ReturnType<typeof setupCounts>>;
  try {
    const applied = await migrate(database);
    // Read before listening: between the listen and the signal handlers below nothing may wait (a SIGTERM there
    // would end the process without the graceful shutdown).
    counts = await setupCounts(database);
    const development = developmentKey(configured);
    const keyed = development ? { ...configured, keys: { ...configured.keys, encryptionKey: development.key } } : configured;
    config = derivedBaseUrl ? await withListeningUrl(keyed) : keyed;
    app = await buildServer({ config, extensions, database });
    if (development) {
      app.log.warn(
        { path: development.path, created: development.created },
        `KEY_ENCRYPTION_KEY is not set: the signing keys are encrypted with a development key kept in ${development.path}, beside the data. Set KEY_ENCRYPTION_KEY (openssl rand -hex 32) before going to production.`,
      );
    }
    if (!config.openid.enabled && config.databaseUrl === null && !openIdConfigured(configured)) {
      // Issue 31 item 7: the quick start is an OpenID Provider, production on the same folder is not unless told.
      app.log.info(
        'OpenID Connect is off: openid.enabled is automatic (null), which is on only outside production (NODE_ENV is production). ' +
          'Set openid.enabled to true, with KEY_ENCRYPTION_KEY (openssl rand -hex 32), to be an OpenID Provider.',
      );
    }
    for (const deprecation of config.deprecations) app.log.warn({ event: 'config.deprecated' }, deprecation);
    if (!config.openid.enabled && counts.jwtAccessTokenHolders > 0) {
      // A JWT access token is signed with the keys OpenID Connect publishes: while it is off these get opaque tokens.
      app.log.warn(
        { event: 'config.jwt_access_tokens_off', count: counts.jwtAccessTokenHolders },
        `${counts.jwtAccessTokenHolders} application(s) or resource(s) are set to JWT access tokens (RFC 9068), which are signed with OpenID Connect's keys: while openid.enabled is off they get opaque tokens, which introspection answers. Set openid.enabled to true, or their access token format to opaque.`,
      );
    }
    if (applied.length) app.log.info({ migrations: applied }, 'applied migrations');
  } catch (error) {
    await database.close();
    throw error;
  }
  app.addHook('onClose', () => database.close());

  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
    await database.shareWithCliCommands((message) => app.log.warn(message));
  } catch (error) {
    // Closing the database too: an open PGlite would keep the process alive after the error.
    await app.close();
    throw listenError(error, `${config.host}:${config.port}`, 'PORT');
  }
  try {
    await listenForMetrics(app, config);
  } catch (error) {
    await app.close();
    throw error;
  }
  app.log.info({ address, database: database.location, config: configFile }, 'oauth-service listening');
  if (derivedBaseUrl) app.log.info({ baseUrl: config.baseUrl }, 'baseUrl not configured (BASE_URL): derived from the listening address');
  const insecureIssuer = insecureIssuerWarning(config, io.env);
  if (insecureIssuer) app.log.warn({ event: 'config.insecure_issuer', baseUrl: config.baseUrl }, insecureIssuer);
  // The banner is for the person at the terminal: on stderr, so that stdout carries the log lines alone (with
  // log.format json, one JSON object a line for a collector).
  io.stderr(
    startBanner({
      baseUrl: config.baseUrl,
      address,
      database: database.location,
      configFile,
      adminConfigured: Boolean(config.admin.passwordHash || config.admin.password),
      derivedBaseUrl,
      cli: cliCommand(io),
      openid: isOpenIdProvider(config),
      insecureIssuer,
      applications: counts.applications,
      users: counts.users,
    }),
  );

  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    app.log.info('shutting down: finishing in-flight requests');
    closeWithin(app, shutdownGraceMs(config.requestTimeoutSeconds)).then(
      () => app.log.info('stopped'),
      (error: unknown) => app.log.error({ err: error }, 'error while stopping'),
    );
  };
  io.onSignal('SIGTERM', shutdown);
  io.onSignal('SIGINT', shutdown);
  // What no request has compiled yet, while the service already answers: its first requests do not wait for it.
  compileDeferredSchemas(() => closing).catch((error: unknown) => app.log.error({ err: error }, 'a route schema does not compile'));
  return null;
}

/** Why a host cannot be listened on, by the code of the error its lookup or its listen ended with. */
const HOST_FAILURES: Record<string, string> = {
  ENOTFOUND: 'no such host',
  EADDRNOTAVAIL: 'not an address of this machine',
};

/**
 * A host (HOST, METRICS_HOST or their keys) that cannot be listened on is a wrong setting like any other: a config
 * problem (exit code 2) named the way the loader names one, not getaddrinfo's error. Null for any other error.
 */
function hostProblem(error: unknown, config: Readonly<Config>, env: Record<string, string | undefined>): ConfigError | null {
  const { code, hostname, address } = error as NodeJS.ErrnoException & { hostname?: string; address?: string };
  const failure = code === undefined ? undefined : HOST_FAILURES[code];
  const host = hostname ?? address;
  const path = host === config.host ? 'host' : host === config.metrics.host ? 'metrics.host' : null;
  if (failure === undefined || path === null) return null;
  const problem = problemAt(path, `cannot listen on ${JSON.stringify(host)}: ${failure}`, env);
  return new ConfigError([problem], configFileOf(config) ?? 'the environment');
}

/**
 * baseUrl as a browser on this machine reaches HOST:PORT. PORT 0 is resolved to a free port first, because
 * the base URL (the issuer) must be known before the routes are built.
 */
async function withListeningUrl(config: Readonly<Config>): Promise<Readonly<Config>> {
  const { host } = config;
  const port = config.port === 0 ? await freePort(host) : config.port;
  return Object.freeze({ ...config, port, baseUrl: listeningBaseUrl(host, port) });
}

/** GET /metrics on its own listener (config metrics, issue 29 item 13), stopped with the service (app.ts). */
async function listenForMetrics(
  app: Awaited<ReturnType<typeof buildServer>>,
  { metrics: { host, port } }: Readonly<Config>,
): Promise<void> {
  if (!app.metricsListener || port === null) return;
  try {
    const address = await app.metricsListener.listen({ host, port });
    app.log.info({ address: `${address}/metrics` }, 'metrics listening');
  } catch (error) {
    throw listenError(error, `${host}:${port} (metrics)`, METRICS_SETTING);
  }
}

/**
 * How the operator runs the CLI: `oauth-service` in the image (the compiled build, NODE_ENV=production, the
 * executable on PATH), `npm run cli --` in a checkout (`npm start`, or tsx).
 */
function cliCommand(io: CliIo): string {
  const compiled = import.meta.url.endsWith('.js');
  return compiled && io.env.NODE_ENV === 'production' ? 'oauth-service' : 'npm run cli --';
}

/** The development fallback for KEY_ENCRYPTION_KEY: embedded database, OpenID Connect on, no key given. */
function developmentKey(config: Readonly<Config>) {
  if (!config.openid.enabled || config.keys.encryptionKey || config.databaseUrl !== null) return null;
  return developmentKeyEncryptionKey(config.dataDir);
}
