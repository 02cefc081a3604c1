import { withControlCharactersEscaped } from '../oauth/control-characters.js';
import type { OAuthDeps } from '../oauth/deps.js';
import {
  createResource,
  deleteResource,
  findResource,
  findResourceByUri,
  listResources,
  resourceAttributes,
  ResourceInvalid,
  updateResource,
  type ResourceField,
  type ResourceFields,
} from '../oauth/resources/resources.js';
import type { ResourceRecord } from '../oauth/store.js';
import { configFrom, withDatabase } from './context.js';
import { AUTHORIZATION_DETAILS_HELP, AUTHORIZATION_DETAILS_OPTIONS, declarationFromOptions } from './resource-authorization-details.js';
import { parseOptions, printJson, printTable, UsageError, type CliIo } from './io.js';
import { onePositional, required, runSubcommand } from './subcommands.js';
import { auditedChange, CLI_ACTOR } from '../oauth/audit/audit-trail.js';
import { resourceEvent, resourceUpdatedEvent } from '../oauth/audit/audit-subjects.js';

const HELP = `Usage: oauth-service resources <subcommand> [options]     (every subcommand: --json, --config PATH, --help)

The APIs registered as resources (RFC 8707): clients name one with the resource parameter, and its tokens are
meant for it alone (their aud), carry only the scopes it accepts, and have its format and lifetime.

  create --uri U --scopes "a b" [--token-format opaque|jwt] [--access-token-lifetime SECONDS] [--name N]
         [--server-client-id UID] [--authorization-details-types a,b [--authorization-details-schema T=FILE]...
         [--authorization-details-consent T=TEXT]...]
      --uri               the resource indicator: an absolute URI without a fragment, compared exactly; https,
                          or http on a loopback IP (any http while forceSslInRedirectUri is false)
      --scopes            the scopes it accepts, each one of the server's (defaultScopes and optionalScopes)
      --token-format      opaque (the default) or jwt (RFC 9068: signed, so it needs openid.enabled)
      --access-token-lifetime
                          60 to 86400 seconds; left out, the server's accessTokenExpiresIn
      --server-client-id  the client_id of the API's own application: it may introspect the tokens meant for it
${AUTHORIZATION_DETAILS_HELP}
  list                    every resource
  show <id|uri>           one resource
  update <id|uri> [--uri U] [--scopes "a b"] [--token-format F] [--access-token-lifetime S] [--name N]
         [--server-client-id UID] [--authorization-details-* ...]
      Changes only the options given; "" clears --access-token-lifetime, --server-client-id, --name and
      --authorization-details-types; a schema or text given changes that type's alone.
  delete <id|uri>         unregisters it: requests naming it get invalid_target; issued tokens keep their aud
`;

const FIELD_OPTIONS = {
  uri: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'token-format': { type: 'string' },
  'access-token-lifetime': { type: 'string' },
  'server-client-id': { type: 'string' },
  ...AUTHORIZATION_DETAILS_OPTIONS,
} as const;

/** The option of each field the domain validates. */
const OPTION_OF: Record<ResourceField, keyof typeof FIELD_OPTIONS> = {
  uri: 'uri',
  name: 'name',
  scopes: 'scopes',
  token_format: 'token-format',
  access_token_lifetime: 'access-token-lifetime',
  server_client_id: 'server-client-id',
  authorization_details_types: 'authorization-details-types',
};

type FieldValues = Partial<Record<Exclude<keyof typeof FIELD_OPTIONS, `authorization-details${string}`>, string>>;

function changesOf(values: FieldValues): Partial<ResourceFields> {
  return {
    uri: values.uri,
    name: values.name,
    scopes: values.scopes,
    tokenFormat: values['token-format'],
    accessTokenLifetime: values['access-token-lifetime'],
    serverClientId: values['server-client-id'],
  };
}

export function runResourcesCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('resources', HELP, { create, list, show, update, delete: remove }, args, io);
}

async function create(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, FIELD_OPTIONS);
  if (values.help) return (io.stdout(HELP), 0);
  const fields: ResourceFields = {
    uri: required(values.uri, 'uri'),
    name: values.name ?? '',
    scopes: required(values.scopes, 'scopes'),
    tokenFormat: values['token-format'] ?? '',
    accessTokenLifetime: values['access-token-lifetime'] ?? '',
    serverClientId: values['server-client-id'] ?? '',
    authorizationDetailsTypes: declarationFromOptions(values, {}) ?? '',
  };
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const create = (tx: OAuthDeps) => createResource(tx, fields);
    const resource = await inWords(() => auditedChange(deps, CLI_ACTOR, create, (r) => resourceEvent('resource.created', r)));
    print(io, Boolean(values.json), `created resource ${resource.id}`, resource);
    return 0;
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {});
  if (values.help) return (io.stdout(HELP), 0);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const resources = await listResources(deps);
    if (values.json) printJson(io, resources.map(resourceAttributes));
    else if (resources.length === 0) io.stdout("no resources (register one with 'resources create')\n");
    else
      printTable(
        io,
        ['ID', 'URI', 'NAME', 'SCOPES', 'FORMAT', 'LIFETIME', 'SERVER CLIENT'],
        resources.map((resource) => [
          String(resource.id),
          printable(resource.uri),
          printable(resource.name),
          resource.scopes.join(' '),
          resource.tokenFormat,
          resource.accessTokenLifetime === null ? 'default' : `${resource.accessTokenLifetime}s`,
          resource.serverClientId ?? '',
        ]),
      );
    return 0;
  });
}

async function show(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<id|uri>');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    print(io, Boolean(values.json), null, await findNamed(deps, reference));
    return 0;
  });
}

async function update(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, FIELD_OPTIONS, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<id|uri>');
  const changes = changesOf(values);
  const detailsGiven = Object.keys(AUTHORIZATION_DETAILS_OPTIONS).some((option) => values[option as keyof typeof values] !== undefined);
  if (!detailsGiven && Object.values(changes).every((value) => value === undefined)) {
    const options = Object.keys(FIELD_OPTIONS).map((option) => `--${option}`);
    throw new UsageError(`nothing to update: give ${options.slice(0, -1).join(', ')} or ${options.at(-1)}`);
  }
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const current = await findNamed(deps, reference);
    const authorizationDetailsTypes = declarationFromOptions(values, current.authorizationDetailsTypes);
    const update = (tx: OAuthDeps) => updateResource(tx, current.id, { ...changes, authorizationDetailsTypes });
    const updated =
      (await inWords(() => auditedChange(deps, CLI_ACTOR, update, (r) => resourceUpdatedEvent(current, r)))) ?? throwNotFound(reference);
    print(io, Boolean(values.json), `updated resource ${updated.id}`, updated);
    return 0;
  });
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<id|uri>');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const resource = await findNamed(deps, reference);
    const remove = (tx: OAuthDeps) => deleteResource(tx, resource.id);
    if (!(await auditedChange(deps, CLI_ACTOR, remove, (deleted) => resourceEvent('resource.deleted', deleted ? resource : null))))
      throwNotFound(reference);
    if (values.json) printJson(io, { deleted: true, id: resource.id, uri: resource.uri });
    else io.stdout(`deleted resource ${resource.id} (${printable(resource.uri)})\n`);
    return 0;
  });
}

/** By exact URI first (what clients send), then by numeric id. */
async function findNamed(deps: OAuthDeps, reference: string): Promise<ResourceRecord> {
  const byUri = await findResourceByUri(deps, reference);
  if (byUri) return byUri;
  const byId = /^[1-9][0-9]{0,14}$/.test(reference) ? await findResource(deps, Number(reference)) : null;
  return byId ?? throwNotFound(reference);
}

function throwNotFound(reference: string): never {
  throw new UsageError(`no resource with id or URI ${reference}`);
}

/** The domain's refusals as one usage line (exit 2), each prefixed with its option. */
async function inWords<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ResourceInvalid)) throw error;
    const problems = Object.entries(error.fieldErrors).map(
      ([field, messages]) => `--${OPTION_OF[field as ResourceField]}: ${messages.join(' ')}`,
    );
    throw new UsageError(problems.join('; '));
  }
}

// Names and URIs come from the admin UI too: control characters would reach the terminal as escape sequences.
const printable = withControlCharactersEscaped;

function print(io: CliIo, json: boolean, headline: string | null, resource: ResourceRecord): void {
  if (json) return printJson(io, resourceAttributes(resource));
  const lines = [
    `  id:             ${resource.id}`,
    `  uri:            ${printable(resource.uri)}   (the resource indicator)`,
    `  name:           ${printable(resource.name) || '(none)'}`,
    `  scopes:         ${resource.scopes.join(' ')}`,
    `  token format:   ${resource.tokenFormat === 'jwt' ? 'JWT (RFC 9068)' : 'opaque'}`,
    `  lifetime:       ${resource.accessTokenLifetime === null ? "the server's accessTokenExpiresIn" : `${resource.accessTokenLifetime} seconds`}`,
    `  server client:  ${resource.serverClientId ?? '(none)'}`,
    `  authorization_details types: ${Object.keys(resource.authorizationDetailsTypes).map(printable).join(', ') || '(none)'}`,
    `  created at:     ${resource.createdAt.toISOString()}`,
    `  updated at:     ${resource.updatedAt.toISOString()}`,
  ];
  io.stdout(`${[...(headline === null ? [] : [headline]), ...lines].join('\n')}\n`);
}
