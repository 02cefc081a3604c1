import { buildServer } from '../app.js';
import { loadExtensions } from '../http/load-extensions.js';
import { createDatabase, databaseOptions } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import { configFrom } from './context.js';
import { parseOptions, type CliIo } from './io.js';

const HELP = `Usage: oauth-service serve [--config PATH]

Applies pending migrations, then serves HTTP on HOST:PORT until SIGTERM or SIGINT, when it stops
accepting connections and finishes the requests in flight.
`;

export async function runServeCommand(args: string[], io: CliIo): Promise<number | null> {
  const { values } = parseOptions(args, {});
  if (values.help) return io.stdout(HELP), 0;
  const config = configFrom(io, values.config);
  const extensions = await loadExtensions(config.extensions);
  const database = await createDatabase(databaseOptions(config));
  const applied = await migrate(database);
  const app = await buildServer({ config, extensions, database });
  if (applied.length) app.log.info({ migrations: applied }, 'applied migrations');
  app.addHook('onClose', () => database.close());

  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info({ address, database: database.location }, 'oauth-service listening');
  io.stdout(startBanner(config.baseUrl, address, database.location, Boolean(config.admin.passwordHash || config.admin.password)));

  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    app.log.info('shutting down: finishing in-flight requests');
    app.close().then(
      () => app.log.info('stopped'),
      (error: unknown) => app.log.error({ err: error }, 'error while stopping'),
    );
  };
  io.onSignal('SIGTERM', shutdown);
  io.onSignal('SIGINT', shutdown);
  return null;
}

function startBanner(baseUrl: string, address: string, database: string, adminConfigured: boolean): string {
  const lines = [
    '',
    `oauth-service is running at ${baseUrl} (listening on ${address})`,
    `database: ${database}`,
    '',
    'Next steps:',
    '  create an application:  npm run cli -- apps create --name "My app" --redirect-uri https://app.example.com/callback',
    '  create a user:          npm run cli -- users create --username alice   (password read from stdin)',
    adminConfigured
      ? `  admin UI:               ${baseUrl}/oauth/applications`
      : '  admin UI:               set ADMIN_PASSWORD (or admin.passwordHash) and restart, then open /oauth/applications',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
