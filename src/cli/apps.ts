import {
  createApplication,
  deleteApplication,
  listApplications,
  storedApplicationFields,
  updateApplication,
  type ApplicationListFilter,
  type ApplicationFields,
} from '../oauth/clients/applications.js';
import { rotateApplicationSecret } from '../oauth/clients/application-secrets.js';
import { domain } from './apps-refusals.js';
import { findApplication, notFound } from './apps-lookup.js';
import { printChanged, printList, printShown } from './apps-output.js';
import { stateSubcommands } from './apps-state.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, UsageError, type CliIo } from './io.js';
import { onePositional, required, runSubcommand } from './subcommands.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { ApplicationRecord } from '../oauth/store.js';
import { auditedChange, CLI_ACTOR } from '../oauth/audit/audit-trail.js';
import { clientEvent } from '../oauth/audit/audit-subjects.js';
import { changedRecordFields } from '../oauth/audit/changed-fields.js';
import { CLIENT_AUTHENTICATION_HELP, CLIENT_AUTHENTICATION_OPTIONS, clientAuthenticationSettings } from './apps-client-authentication.js';

const HELP = `Usage: oauth-service apps <subcommand> [options]     (every subcommand: --json, --config PATH, --help)

  create --name N --redirect-uri U [--redirect-uri U2 ...] [--scopes "a b"] [--public] [--uid X] [--secret S]
         [--access-token-format opaque|jwt] [--dpop-bound-access-tokens] [--refresh-tokens always|offline-access]
         [--require-par] [--require-signed-request-object] [--authorization-signed-response-alg A] [--profile none|fapi2]
         [--grant-types "G ..."] [OpenID Connect options] [client authentication options]
      Registers an application and prints its uid and secret; the secret is shown only this once.
      --redirect-uri is required while the application's grant types (--grant-types, else the server's grantFlows)
      include authorization_code or implicit (the default).
      --uid and --secret import an existing client (the secret: at least 32 characters).
  list [--filter self_registered|awaiting_approval|disabled]
                            every application (never a secret), or those the filter names; STATUS says who
                            made each (admin, self-registered, metadata document), 'not approved', 'disabled'
  show <uid|id>             one application; for a self-registered client also where it came from, its
                            approval, and the metadata it supplied about itself (unverified)
  update <uid|id> [--name N] [--redirect-uri U ...] [--scopes "a b"] [--public|--confidential]
         [--access-token-format opaque|jwt] [--dpop-bound-access-tokens|--no-dpop-bound-access-tokens]
         [--refresh-tokens always|offline-access] [--require-par|--no-require-par]
         [--require-signed-request-object|--no-require-signed-request-object] [--authorization-signed-response-alg A]
         [--profile none|fapi2] [--grant-types "G ..."] [OpenID Connect options] [client authentication options]
      Changes only the options given; a client made confidential gets a new secret, shown once.
  delete <uid|id>           deletes the application with its grants and tokens
  rotate-secret <uid|id>    a new secret, shown once; the old one stops working at once (within 5 s on the
                            service's other instances, which cache applications that long)

Self-registered clients (RFC 7591 at /oauth/register, or Client ID Metadata Documents), as the admin pages do it:
  approve <uid|id>          vouch for a self-registered client: the consent screen stops telling users that nobody
                            reviewed it (an application an admin made needs no approval: an error)
  disable <uid|id>          it can no longer be authorized or get tokens (any application), and this server
                            refuses its tokens while it is disabled; nothing is revoked (JWT access tokens an API
                            verifies by itself stay valid until they expire)
  enable <uid|id>           undoes disable

OpenID Connect options (they apply once config openid.enabled is true; an empty value "" clears one):
  --post-logout-redirect-uri U [--post-logout-redirect-uri U2 ...]
      where logout may send the user back to (exact match; the same rules as --redirect-uri)
  --id-token-signed-response-alg RS256|ES256|EdDSA     how ID tokens are signed ("": RS256, the default)
  --userinfo-signed-response-alg RS256|ES256|EdDSA     UserInfo as a signed JWT ("": plain JSON, the default)
  --subject-type public|pairwise
      the sub its users get: public (the default, the user's own), or pairwise, one of the application's sector
      (OpenID Connect Core 8.1: the host of its redirect URIs, which must then be one; needs openid.pairwiseSalt)
  --backchannel-logout-uri U
      where this server POSTs a logout token when the user's session with the application ends (Back-Channel
      Logout 1.0: https, or http on a loopback IP; "": none)
  --backchannel-logout-session-required | --no-backchannel-logout-session-required
      whether each of its logout tokens must name the login session (sid); off by default

  --access-token-format opaque|jwt
      its access tokens: opaque (the default) or JWTs an API verifies by itself (RFC 9068; signed with the
      OpenID Connect keys, so jwt needs openid.enabled). A registered resource's own format wins over it.
  --dpop-bound-access-tokens | --no-dpop-bound-access-tokens
      whether every token request of the application must carry a DPoP proof (RFC 9449 section 5.2), so that
      all its tokens are bound to a key; without one it gets invalid_dpop_proof. Off by default.
  --require-par | --no-require-par
      whether its authorization requests must be pushed first (POST /oauth/par, RFC 9126; registration metadata
      require_pushed_authorization_requests); a plain one gets invalid_request. Off by default.
  --require-signed-request-object | --no-require-signed-request-object
      whether its authorization requests must be signed request objects (RFC 9101 section 10.5), sent to
      /oauth/authorize or pushed; a plain one gets invalid_request. Off by default; needs its keys (jwks, jwks-uri).
  --authorization-signed-response-alg RS256|ES256|EdDSA
      how its JWT-secured authorization responses (JARM, response_mode=jwt) are signed; "" for RS256, the default.
  --profile none|fapi2
      fapi2 applies the FAPI 2.0 Security Profile to it: confidential, private_key_jwt (mutual TLS is not
      supported), pushed requests, PKCE S256, DPoP-bound tokens, codes of at most 60 s, no implicit or password
      grant. none (the default) applies nothing more.
  --refresh-tokens always|offline-access
      when its token responses carry a refresh token (while it may use the refresh_token grant): always (the
      default), or only when the user granted offline_access (OpenID Connect Core 11, asked on the consent screen).
  --grant-types "G ..."
      the grant types it may use, each one grantFlows enables; "" (the default): every grant the server enables
      but the device grant, which a client uses only when named here (urn:ietf:params:oauth:grant-type:device_code,
      RFC 8628)

${CLIENT_AUTHENTICATION_HELP}`;

const FIELD_OPTIONS = {
  name: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  scopes: { type: 'string' },
  public: { type: 'boolean' },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'id-token-signed-response-alg': { type: 'string' },
  'userinfo-signed-response-alg': { type: 'string' },
  'subject-type': { type: 'string' },
  'backchannel-logout-uri': { type: 'string' },
  'backchannel-logout-session-required': { type: 'boolean' },
  'no-backchannel-logout-session-required': { type: 'boolean' },
  'access-token-format': { type: 'string' },
  'dpop-bound-access-tokens': { type: 'boolean' },
  'no-dpop-bound-access-tokens': { type: 'boolean' },
  'require-par': { type: 'boolean' },
  'no-require-par': { type: 'boolean' },
  'require-signed-request-object': { type: 'boolean' },
  'no-require-signed-request-object': { type: 'boolean' },
  'authorization-signed-response-alg': { type: 'string' },
  profile: { type: 'string' },
  'refresh-tokens': { type: 'string' },
  'grant-types': { type: 'string' },
  ...CLIENT_AUTHENTICATION_OPTIONS,
} as const;

/** --refresh-tokens always|offline-access as the domain spells it (offline_access, the scope); not given: undefined. */
function refreshTokens(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value !== 'always' && value !== 'offline-access')
    throw new UsageError(`--refresh-tokens must be always or offline-access, not ${JSON.stringify(value)}`);
  return value === 'always' ? 'always' : 'offline_access';
}

/** --NAME or --no-NAME; neither: undefined (create: off; update: unchanged). */
function onOff(values: Record<string, unknown>, name: string): boolean | undefined {
  const yes = values[name] === true;
  const no = values[`no-${name}`] === true;
  if (yes && no) throw new UsageError(`--${name} and --no-${name} contradict each other`);
  return yes || no ? yes : undefined;
}

const dpopBoundAccessTokens = (values: Record<string, unknown>) => onOff(values, 'dpop-bound-access-tokens');
const requirePushedAuthorizationRequests = (values: Record<string, unknown>) => onOff(values, 'require-par');

/** Issue 36: the per-client request and response security settings (RFC 9101, JARM, the fapi2 profile). */
function requestSecuritySettings(values: Record<string, unknown>) {
  return {
    requirePushedAuthorizationRequests: requirePushedAuthorizationRequests(values),
    requireSignedRequestObject: onOff(values, 'require-signed-request-object'),
    authorizationSignedResponseAlg: values['authorization-signed-response-alg'] as string | undefined,
    profile: values.profile as string | undefined,
  };
}

/** The OpenID Connect settings among the options; one not given stays undefined (create: none; update: unchanged). */
function openIdSettings(values: {
  'post-logout-redirect-uri'?: string[] | undefined;
  'id-token-signed-response-alg'?: string | undefined;
  'userinfo-signed-response-alg'?: string | undefined;
  'subject-type'?: string | undefined;
  'access-token-format'?: string | undefined;
  'backchannel-logout-uri'?: string | undefined;
}) {
  return {
    postLogoutRedirectUri: values['post-logout-redirect-uri']?.join('\n'),
    idTokenSignedResponseAlg: values['id-token-signed-response-alg'],
    userinfoSignedResponseAlg: values['userinfo-signed-response-alg'],
    subjectType: values['subject-type'],
    accessTokenFormat: values['access-token-format'],
    backchannelLogoutUri: values['backchannel-logout-uri'],
    backchannelLogoutSessionRequired: onOff(values, 'backchannel-logout-session-required'),
  };
}

export function runAppsCommand(args: string[], io: CliIo): Promise<number> {
  const subcommands = { create, list, show, update, delete: remove, 'rotate-secret': rotateSecret, ...stateSubcommands(HELP) };
  return runSubcommand('apps', HELP, subcommands, args, io);
}

async function create(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { ...FIELD_OPTIONS, uid: { type: 'string' }, secret: { type: 'string' } });
  if (values.help) return (io.stdout(HELP), 0);
  const fields: ApplicationFields = {
    name: required(values.name, 'name'),
    redirectUri: (values['redirect-uri'] ?? []).join('\n'),
    scopes: values.scopes ?? '',
    confidential: !values.public,
    dpopBoundAccessTokens: dpopBoundAccessTokens(values),
    ...requestSecuritySettings(values),
    refreshTokens: refreshTokens(values['refresh-tokens']),
    grantTypes: values['grant-types'],
    ...openIdSettings(values),
    ...clientAuthenticationSettings(values),
  };
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const imported = { uid: values.uid, secret: values.secret };
    const create = (tx: OAuthDeps) => createApplication(tx, fields, imported);
    const audited = () => auditedChange(deps, CLI_ACTOR, create, (r) => clientEvent('client.created', r.application));
    const { application, plainSecret } = await domain(audited, {
      values,
      grantFlows: deps.config.grantFlows,
    });
    printChanged(io, Boolean(values.json), `created application ${application.id}`, application, plainSecret, deps.config);
    return 0;
  });
}

const LIST_FILTERS: readonly ApplicationListFilter[] = ['self_registered', 'awaiting_approval', 'disabled'];

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { filter: { type: 'string' } });
  if (values.help) return (io.stdout(HELP), 0);
  const filter = values.filter as ApplicationListFilter | undefined;
  if (filter !== undefined && !LIST_FILTERS.includes(filter)) {
    throw new UsageError(`--filter must be one of ${LIST_FILTERS.join(', ')}`);
  }
  return withDatabase(configFrom(io, values.config), async (deps) => {
    printList(io, Boolean(values.json), await listApplications(deps, filter), filter);
    return 0;
  });
}

async function show(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<uid|id>');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    printShown(io, Boolean(values.json), await findApplication(deps, reference), deps.config);
    return 0;
  });
}

async function update(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { ...FIELD_OPTIONS, confidential: { type: 'boolean' } }, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<uid|id>');
  if (values.public && values.confidential) throw new UsageError('give --public or --confidential, not both');
  const settings = {
    ...openIdSettings(values),
    dpopBoundAccessTokens: dpopBoundAccessTokens(values),
    ...requestSecuritySettings(values),
    refreshTokens: refreshTokens(values['refresh-tokens']),
    grantTypes: values['grant-types'],
    ...clientAuthenticationSettings(values),
  };
  const changes = [values.name, values['redirect-uri'], values.scopes, values.public, values.confidential, ...Object.values(settings)];
  if (changes.every((value) => value === undefined)) {
    throw new UsageError(
      'nothing to update: give --name, --redirect-uri, --scopes, --public, --confidential, --post-logout-redirect-uri, --id-token-signed-response-alg, --userinfo-signed-response-alg, --subject-type, --access-token-format, --[no-]dpop-bound-access-tokens, --[no-]require-par, --[no-]require-signed-request-object, --authorization-signed-response-alg, --profile, --refresh-tokens, --grant-types, --backchannel-logout-uri, --[no-]backchannel-logout-session-required, --token-endpoint-auth-method, --jwks-uri or --jwks-file',
    );
  }
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const current = await findApplication(deps, reference);
    // Options not given keep their values as they are when the update has the row locked (a concurrent change kept).
    const fields = (latest: ApplicationRecord): ApplicationFields => ({
      name: values.name ?? latest.name,
      redirectUri: (values['redirect-uri'] ?? latest.redirectUris).join('\n'),
      scopes: values.scopes ?? latest.scopes.join(' '),
      confidential: values.public ? false : values.confidential ? true : latest.confidential,
      ...settings,
    });
    const update = (tx: OAuthDeps) => updateApplication(tx, current.id, fields);
    // The names of the fields it changes, as apply records them; nothing is recorded when it changes none.
    const changed = changedRecordFields(storedApplicationFields(fields(current)), current);
    const eventOf = (r: Awaited<ReturnType<typeof update>>) =>
      changed.length === 0 ? null : clientEvent('client.updated', r?.application, { fields: changed });
    const updated = await domain(() => auditedChange(deps, CLI_ACTOR, update, eventOf));
    if (!updated) throw notFound(reference);
    printChanged(
      io,
      Boolean(values.json),
      `updated application ${current.id}`,
      updated.application,
      updated.plainSecret ?? undefined,
      deps.config,
    );
    return 0;
  });
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<uid|id>');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const application = await findApplication(deps, reference);
    // Reference 13: its grants and tokens go with it (ON DELETE CASCADE).
    const remove = (tx: OAuthDeps) => deleteApplication(tx, application.id);
    if (!(await auditedChange(deps, CLI_ACTOR, remove, (deleted) => clientEvent('client.deleted', deleted ? application : null))))
      throw notFound(reference);
    if (values.json) printJson(io, { deleted: true, id: application.id, uid: application.uid });
    else io.stdout(`deleted application ${application.id} (uid ${application.uid}) with its grants and tokens\n`);
    return 0;
  });
}

async function rotateSecret(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<uid|id>');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const application = await findApplication(deps, reference);
    const rotate = (tx: OAuthDeps) => rotateApplicationSecret(tx, application.id);
    const rotated = await domain(() => auditedChange(deps, CLI_ACTOR, rotate, (r) => clientEvent('client.secret_rotated', r?.application)));
    if (!rotated) throw notFound(reference);
    printChanged(
      io,
      Boolean(values.json),
      `new secret for application ${application.id}`,
      rotated.application,
      rotated.plainSecret,
      deps.config,
    );
    return 0;
  });
}
