import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { argon2Hasher } from './storage/argon2-hasher.js';
import { ajvJsonSchemaChecker } from './storage/ajv-json-schema-checker.js';
import { sharedSchemaCompilers } from './http/schema-compilers.js';
import type { Config } from './config/types.js';
import { requireFormContentType } from './http/api-content-type.js';
import { createControllers, resolveControllerClasses, type ControllerClasses } from './http/controllers/registry.js';
import { applyErrorResponse, errorResponse } from './http/error-response.js';
import { answerClientError } from './http/client-errors.js';
import type { Extensions } from './http/extensions.js';
import { apiRateLimitsPlugin } from './http/plugins/api-rate-limits.js';
import { requestSpanAttributesPlugin } from './http/plugins/request-span-attributes.js';
import { errorHandlerPlugin } from './http/plugins/error-handler.js';
import { sharedSchemasPlugin } from './http/schemas.js';
import { formsPlugin } from './http/plugins/forms.js';
import { jsonBodiesPlugin } from './http/plugins/json-bodies.js';
import { loggerOptions } from './http/plugins/logger-options.js';
import { OneLinePerRequest } from './http/plugins/request-log.js';
import { corsPlugin } from './http/plugins/cors.js';
import { requestIdOf } from './http/request-id.js';
import { securityHeaders, securityHeadersPlugin, strictTransportSecurity } from './http/plugins/security-headers.js';
import { metricsPlugin } from './http/plugins/metrics.js';
import { createServiceMetrics } from './http/metrics/service-metrics.js';
import { addMetricsListener } from './http/metrics-listener.js';
import { signingKeyRotationPlugin } from './http/plugins/signing-key-rotation.js';
import { logoutDeliveryPlugin, logoutDeliveryReporter } from './http/plugins/logout-delivery.js';
import { sessionsPlugin } from './http/plugins/sessions.js';
import { viewsPlugin } from './http/plugins/views.js';
import { publicBasePathPlugin } from './http/plugins/public-base-path.js';
import { publicBasePath } from './http/public-base-path.js';
import { pageLanguagesPlugin } from './http/plugins/page-languages.js';
import { applicationsRoutes } from './http/routes/applications/index.js';
import { authorizeRoutes } from './http/routes/authorize/index.js';
import { authorizedApplicationsRoutes } from './http/routes/authorized-applications/index.js';
import { accountRoutes } from './http/routes/account/index.js';
import { passkeyRoutes } from './http/routes/passkeys/index.js';
import { endSessionRoutes } from './http/routes/end-session/index.js';
import { healthRoutes } from './http/routes/health/index.js';
import { introspectRoutes } from './http/routes/introspect/index.js';
import { loginRoutes } from './http/routes/login/index.js';
import { federationRoutes } from './http/routes/federation/index.js';
import { secondFactorRoutes } from './http/routes/second-factor/index.js';
import { jwksRoutes } from './http/routes/jwks/index.js';
import { metadataRoutes } from './http/routes/metadata/index.js';
import { resourcesRoutes } from './http/routes/resources/index.js';
import { auditRoutes } from './http/routes/audit/index.js';
import { registerRoutes } from './http/routes/register/index.js';
import { deviceAuthorizationRoutes } from './http/routes/device-authorization/index.js';
import { parRoutes } from './http/routes/par/index.js';
import { deviceRoutes } from './http/routes/device/index.js';
import { deviceFlowEnabled } from './oauth/device/device-code-grant-type.js';
import { revokeRoutes } from './http/routes/revoke/index.js';
import { tokenInfoRoutes } from './http/routes/token-info/index.js';
import { tokenRoutes } from './http/routes/token/index.js';
import { usersRoutes } from './http/routes/users/index.js';
import { userinfoRoutes } from './http/routes/userinfo/index.js';
import type { OAuthDeps } from './oauth/deps.js';
import { createTokenSigner } from './oauth/keys/token-signer.js';
import type { SigningKeyRecord } from './oauth/keys/signing-keys.js';
import { recordKeysMadeByService } from './oauth/audit/signing-key-events.js';
import { createLogoutDeliveryWorker } from './oauth/openid/backchannel-logout/logout-delivery-worker.js';
import { introspectionRules } from './oauth/tokens/introspection-policy.js';
import type { PasswordHasher } from './oauth/users/passwords.js';
import { InvalidRequest } from './oauth/errors.js';
import type { Stores } from './oauth/store.js';
import { withClientMetadataDocuments } from './oauth/clients/metadata-documents/client-metadata-document-applications.js';
import type { DocumentFetchOptions } from './oauth/clients/metadata-documents/client-metadata-document-fetch.js';
import { createDatabase, databaseOptions, type Database } from './storage/database.js';
import { migrationStatus } from './storage/migrate.js';
import { isDatabaseUnavailable } from './storage/prisma-errors.js';
import { createStores } from './storage/stores.js';
import { createAttemptLimits, type AttemptReporter } from './oauth/limits/attempt-limits.js';
import { recordAuditEventAlone } from './oauth/audit/audit-trail.js';
import { lockoutEvent } from './oauth/audit/lockout-event.js';
import { auditWriteFailed } from './http/audit-actor.js';
import { extensionFailed } from './http/extension-failure-report.js';
import { watchRegistrationCaps } from './oauth/clients/registration/registration-cap.js';
import { proxyWarningPlugin } from './http/plugins/proxy-warning.js';
import { shutdownConnectionsPlugin } from './http/plugins/shutdown-connections.js';
import { requestTimeouts, trustedProxies } from './http/server-options.js';

export interface BuildServerOptions {
  config: Readonly<Config>;
  extensions?: Extensions;
  /** An open, migrated database; when absent one is opened from the config and closed with the server. */
  database?: Database;
  /** The clock; tests pass a fixed instant. */
  now?: () => Date;
  /** Stores on `database` to share with the caller (tests), so both see one application cache. */
  stores?: Stores;
  /** Where log lines go (default stdout); tests read them. */
  logStream?: NodeJS.WritableStream;
  /** How user and admin passwords are hashed and checked (argon2id); tests count the checks. */
  passwords?: PasswordHasher;
  /** CAs trusted for Client ID Metadata Documents' https instead of the default ones (tests' self-signed certificate). */
  clientMetadataDocumentCa?: DocumentFetchOptions['ca'];
}

/** The composition root: wires every layer and registers each endpoint group by name. Never listens. */
export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  // SPEC 7: a controller that is not a subclass of the built-in one stops the boot before anything is opened.
  const controllerClasses = resolveControllerClasses(options.extensions?.controllers);
  const db = options.database ?? (await createDatabase(databaseOptions(options.config)));
  try {
    return await serverOn(db, controllerClasses, options);
  } catch (error) {
    // A boot that fails once the database is open (an extension's controller constructor throws) closes the database
    // it opened: the caller gets the error with nothing left open (a data folder's lock, a pool's connections).
    if (!options.database) await db.close().catch(() => undefined);
    throw error;
  }
}

async function serverOn(
  db: Database,
  controllerClasses: ControllerClasses,
  {
    config,
    extensions = {},
    database,
    now = () => new Date(),
    stores,
    logStream,
    passwords = argon2Hasher,
    clientMetadataDocumentCa,
  }: BuildServerOptions,
): Promise<FastifyInstance> {
  // The reporter reaches the server's log and metrics, which exist by the time the first request fails.
  const reporter: AttemptReporter = {
    // reqId as the request's own lines name it, where the failure knows its request.
    clientAuthenticationFailed: (clientId, address, reqId) => {
      app.log.info(
        { event: 'client.authentication_failed', clientId: clientId?.slice(0, 200) ?? null, address, ...(reqId && { reqId }) },
        'client authentication failed',
      );
      app.metrics.clientAuthenticationFailed(clientId);
    },
    passwordCheckFailed: (kind) => app.metrics.passwordCheckFailed(kind),
    lockedOut: (kind, address, seconds, name, reqId) => {
      app.log.warn(
        { event: 'lockout', kind, address, seconds, ...(reqId && { reqId }) },
        `locked out after repeated failures: ${kind} from ${address}`,
      );
      app.metrics.lockout(kind);
      void recordAuditEventAlone(
        deps,
        lockoutEvent(kind, address, seconds, name),
        auditWriteFailed(() => app.log),
      );
    },
  };
  const limits = createAttemptLimits(config.rateLimit, reporter);
  // Issue 29 item 5: how full the caps on self-registered clients are, to the metrics, and a warn line when nearly full.
  const observeCap = watchRegistrationCaps({
    counted: (kind, live, cap) => app.metrics.registrationCap(kind, live, cap),
    nearlyFull: (kind, live, cap) =>
      app.log.warn(
        { event: 'registration.cap_nearly_full', registeredBy: kind, live, cap },
        `self-registered clients (${kind}) hold ${live} of the ${cap} places their cap allows`,
      ),
  });
  const domainStores = withClientMetadataDocuments(stores ?? createStores(db, { keyEncryptionKey: config.keys.encryptionKey ?? null }), {
    config,
    now,
    warn: (details, message) => app.log.warn(details, message),
    ca: clientMetadataDocumentCa,
    observeCap,
  });
  // Keys the service makes by itself are in the audit trail, as the CLI's are (actor system).
  const keysMade = (keys: SigningKeyRecord[]) =>
    recordKeysMadeByService(
      { stores: domainStores, now },
      keys,
      auditWriteFailed(() => app.log),
    );
  const signer = createTokenSigner({ stores: domainStores, config, now, keysMade });
  // Back-Channel Logout 1.0: delivers the logout tokens requests queue; its reports reach the server's log and metrics.
  const logoutWorker = createLogoutDeliveryWorker(
    { stores: domainStores, config, now, signer },
    logoutDeliveryReporter(() => app),
  );
  const deps: OAuthDeps = {
    stores: domainStores,
    config,
    now,
    signer,
    hooks: extensions,
    passwords,
    limits,
    introspectionRules: introspectionRules(config.introspection.allow),
    jsonSchemas: ajvJsonSchemaChecker(),
    ...(clientMetadataDocumentCa !== undefined && { documentCa: clientMetadataDocumentCa }),
    observeCap,
    auditWriteFailed: auditWriteFailed(() => app.log),
    keysMade,
    extensionFailed: (hook, error) => extensionFailed(app.log)(hook, error),
    ...(config.openid.enabled && { logoutDeliveries: logoutWorker }),
  };

  const applySecurityHeaders = securityHeaders(strictTransportSecurity(config));
  const app = Fastify({
    logger: loggerOptions(config.log, logStream),
    logController: new OneLinePerRequest(),
    genReqId: (raw) => requestIdOf(raw.headers['x-request-id']),
    trustProxy: trustedProxies(config.trustProxy),
    bodyLimit: config.bodyLimit,
    ...requestTimeouts(config.requestTimeoutSeconds),
    routerOptions: { maxParamLength: 200 },
    ajv: { customOptions: { allowUnionTypes: true } },
    schemaController: { compilersFactory: sharedSchemaCompilers() },
    // Malformed URLs and over-long path parameters are answered like any other bad request (no onSend hook
    // runs for these, so the security headers are set here), never with Fastify's own body.
    frameworkErrors: (error, request, rawReply) => {
      // Not the error itself: Fastify's message for a malformed URL (and its stack) quotes the URL, query and all. The
      // request line as every other request's is logged, the status with it (no onResponse hook runs here).
      request.log.info({ req: request, res: { statusCode: 400 }, fastifyError: error.code }, 'malformed request line');
      const reply = rawReply as FastifyReply;
      const response = errorResponse(new InvalidRequest(), config.realm);
      applyErrorResponse(reply, response).header('content-type', 'application/json; charset=utf-8');
      applySecurityHeaders(reply);
      void reply.send(JSON.stringify(response.body));
    },
    clientErrorHandler: answerClientError,
    // Graceful shutdown: close() lets in-flight requests finish and answers new ones on open keep-alive sockets with 503.
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  if (!database) app.addHook('onClose', () => db.close());

  await app.register(errorHandlerPlugin, { isUnavailable: isDatabaseUnavailable, realm: config.realm });
  await app.register(requestSpanAttributesPlugin, { clientIdAttribute: config.telemetry.clientIdAttribute });
  await app.register(sharedSchemasPlugin);
  const { readReplica } = db;
  const metrics = createServiceMetrics({
    poolStats: () => db.poolStats(),
    readPoolStats: readReplica?.poolStats,
    clientIdLabels: config.metrics.clientIdLabels,
  });
  // Issue 29 item 13: /metrics on the public port only behind METRICS_TOKEN; else on the metrics listener only.
  const token = config.metrics.token ?? null;
  await app.register(metricsPlugin, { metrics, ...(token !== null && { route: { token } }) });
  await addMetricsListener(app, metrics, config);
  readReplica?.onFallback((error) => {
    app.log.warn({ err: error }, 'read replica unreachable: token reads go to the primary for a few seconds');
    app.metrics.readReplicaFallback();
  });
  readReplica?.onRecovery(() => app.log.info('read replica reachable again: token reads are back on it'));
  const removedApiPaths = [
    ...(config.introspection.enabled ? [] : ['/oauth/introspect']),
    ...(deviceFlowEnabled(config) ? [] : ['/oauth/device_authorization']),
  ];
  app.addHook('onRequest', requireFormContentType(removedApiPaths));
  await app.register(formsPlugin);
  await app.register(jsonBodiesPlugin);
  await app.register(securityHeadersPlugin, { apply: applySecurityHeaders });
  await app.register(corsPlugin, { allowedOrigins: config.cors.allowedOrigins, userinfo: config.openid.enabled });
  await app.register(shutdownConnectionsPlugin);
  const basePath = publicBasePath(config.baseUrl);
  if (basePath !== '') await app.register(publicBasePathPlugin, { basePath });
  await app.register(viewsPlugin, { basePath });
  await app.register(pageLanguagesPlugin, { defaultLocale: config.defaultLocale });
  await app.register(apiRateLimitsPlugin, { config });
  await app.register(proxyWarningPlugin, { trustProxy: config.trustProxy });

  // One instance per controller key (the built-in class or the extension's subclass), shared by its routes.
  const routes = { deps, controllers: createControllers(controllerClasses, deps, { metrics: app.metrics }) };
  await app.register(healthRoutes, {
    pendingMigrations: async () => (await migrationStatus(db)).pending,
    primaryWritable: () => db.primaryWritable(),
  });
  await app.register(tokenRoutes, { ...routes });
  await app.register(revokeRoutes, { ...routes });
  if (config.introspection.enabled) await app.register(introspectRoutes, { ...routes });
  await app.register(tokenInfoRoutes, { ...routes });
  await app.register(metadataRoutes, { ...routes });
  if (config.registration.policy !== 'off') await app.register(registerRoutes, { ...routes });
  if (deviceFlowEnabled(config)) await app.register(deviceAuthorizationRoutes, { ...routes });
  await app.register(parRoutes, { ...routes });
  if (config.openid.enabled) {
    await app.register(signingKeyRotationPlugin, { deps });
    await app.register(logoutDeliveryPlugin, { worker: logoutWorker });
    await app.register(jwksRoutes, { ...routes });
    await app.register(userinfoRoutes, { ...routes });
  }
  // The login session (a cookie) and its CSRF secrets exist only for the pages and forms: the API group, metadata
  // and health never read or set a cookie, and skip the session's hooks on every request (issue 21).
  // Named: @fastify/otel names a plugin's hook spans after the function, whose source text an arrow function's name is.
  await app.register(async function endUserAndAdminPages(pages) {
    await pages.register(sessionsPlugin, { secret: config.sessionSecret, secure: config.baseUrl.startsWith('https:'), basePath });
    await pages.register(loginRoutes, { ...routes });
    await pages.register(federationRoutes, { ...routes });
    await pages.register(authorizeRoutes, { ...routes });
    await pages.register(authorizedApplicationsRoutes, { ...routes });
    await pages.register(accountRoutes, { ...routes });
    await pages.register(passkeyRoutes, { ...routes });
    await pages.register(secondFactorRoutes, { ...routes });
    await pages.register(applicationsRoutes, { ...routes, authenticateAdmin: extensions.authenticateAdmin });
    await pages.register(usersRoutes, { ...routes, authenticateAdmin: extensions.authenticateAdmin });
    await pages.register(resourcesRoutes, { ...routes, authenticateAdmin: extensions.authenticateAdmin });
    await pages.register(auditRoutes, { ...routes, authenticateAdmin: extensions.authenticateAdmin });
    if (config.openid.enabled) await pages.register(endSessionRoutes, { ...routes });
    if (deviceFlowEnabled(config)) await pages.register(deviceRoutes, { ...routes });
  });

  app.decorate('database', db);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The database the server was built with (tests and the CLI's serve command use it). */
    database: Database;
  }
}
