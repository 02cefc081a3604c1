import { withControlCharactersEscaped } from '../oauth/control-characters.js';
import type { Config } from '../config/types.js';
import { applicationJson } from '../oauth/clients/application-json.js';
import { usesClientSecret } from '../oauth/clients/client-authentication-setting.js';
import { isFapi2, signingAlgorithmFor } from '../oauth/clients/fapi2-profile.js';
import type { SigningAlgorithm } from '../oauth/keys/signing-keys.js';
import { sectorOf } from '../oauth/openid/subject.js';
import type { ApplicationRecord } from '../oauth/store.js';
import { printJson, printTable, type CliIo } from './io.js';

// What `apps` prints. A stored secret (or its hash) is never printed: the plain secret exists only in the
// result of create, rotate-secret, or an update that made a client need one, and is shown that once.

// Names come from the admin UI, and a self-registered client's name, URIs and contacts from the client itself:
// control characters would reach the terminal as escape sequences.
export const printable = withControlCharactersEscaped;

/** `config.pushedAuthorizationRequests.required` makes every client push its requests. */
function details(application: ApplicationRecord, config: ShownSettings): string[] {
  const parRequired = config.pushedAuthorizationRequests.required;
  return [
    `  id:             ${application.id}`,
    `  uid:            ${application.uid}   (the client_id)`,
    `  name:           ${printable(application.name)}`,
    `  redirect URIs:  ${application.redirectUris.map(printable).join('\n                  ') || '(none)'}`,
    `  scopes:         ${application.scopes.join(' ') || (application.registeredBy === 'admin' ? '(the server defaults)' : '(the default scopes registration allows)')}`,
    `  type:           ${application.confidential ? 'confidential' : 'public client (no secret; PKCE required)'}`,
    // OpenID Connect: where logout may return to, how ID tokens are signed, what UserInfo answers.
    `  logout URIs:    ${application.postLogoutRedirectUris.map(printable).join('\n                  ') || '(none)'}`,
    `  ID token alg:   ${signingAlgorithm(application, application.idTokenSignedResponseAlg, config)}`,
    `  UserInfo:       ${userinfoResponse(application)}`,
    `  subject:        ${subjectType(application)}`,
    `  logout tokens:  ${backchannelLogout(application)}`,
    `  access tokens:  ${application.accessTokenFormat === 'jwt' ? 'JWT (RFC 9068)' : 'opaque'}`,
    `  DPoP:           ${requirement(application, application.dpopBoundAccessTokens, 'DPoP-bound tokens only, RFC 9449')}`,
    `  PAR:            ${parRequired ? 'required (pushedAuthorizationRequests.required: every client pushes its requests, RFC 9126)' : requirement(application, application.requirePushedAuthorizationRequests, 'pushed authorization requests only, RFC 9126')}`,
    `  signed request: ${application.requireSignedRequestObject ? 'required (signed request objects only, RFC 9101)' : 'optional'}${registeredAlg(application.requestObjectSigningAlg)}`,
    `  JARM alg:       ${signingAlgorithm(application, application.authorizationSignedResponseAlg, config)}`,
    `  profile:        ${application.profile === 'fapi2' ? 'fapi2 (FAPI 2.0 Security Profile)' : 'none'}`,
    `  refresh tokens: ${application.refreshTokens === 'always' ? 'always (the default)' : 'only with offline_access granted (OpenID Connect Core 11)'}`,
    `  grant types:    ${application.grantTypes?.join(' ') ?? '(every grant the server enables but the device grant)'}`,
    `  client auth:    ${clientAuthentication(application)}${registeredAlg(application.tokenEndpointAuthSigningAlg)}`,
    `  created at:     ${application.createdAt.toISOString()}`,
  ];
}

// What the server signs with (fapi2-profile.ts): the registered algorithm, else the default (a fapi2 client's is
// chosen from keys.algorithms, and replaces a stored RS256).
function signingAlgorithm(application: ApplicationRecord, registered: SigningAlgorithm | null, config: ShownSettings): string {
  const alg = signingAlgorithmFor(application, registered, config.keys);
  if (alg === registered) return alg;
  return isFapi2(application) ? `${alg} (profile fapi2: the first of keys.algorithms FAPI 2.0 allows, else ES256)` : `${alg} (the default)`;
}

// The profile fapi2 (fapi2-profile.ts) requires DPoP-bound tokens and pushed requests whatever the client's own settings.
const requirement = (application: ApplicationRecord, setting: boolean, what: string) =>
  isFapi2(application) ? `required (profile fapi2: ${what})` : setting ? `required (${what})` : 'optional';

// OpenID Connect Registration 1.0 section 2: what the client registered it signs with; another algorithm is refused.
const registeredAlg = (alg: string | null) => (alg === null ? '' : `; signed with ${alg} only (registered)`);

// Back-Channel Logout 1.0: where logout tokens go, and whether each must name the session.
const backchannelLogout = ({ backchannelLogoutUri: uri, backchannelLogoutSessionRequired: sid }: ApplicationRecord) =>
  uri === null ? '(none: no back-channel logout URI)' : `POSTed to ${printable(uri)}${sid ? ', each naming the session (sid)' : ''}`;

// Issue 34: how it proves itself at the token endpoint, and where a private_key_jwt client's keys are.
function clientAuthentication({ tokenEndpointAuthMethod: method, confidential, jwks, jwksUri }: ApplicationRecord): string {
  const keys = jwksUri !== null ? `, keys at ${printable(jwksUri)}` : jwks !== null ? ', keys stored inline' : '';
  return `${method ?? (confidential ? 'its secret, Basic or in the body (the default)' : 'none')}${keys}`;
}

const userinfoResponse = ({ userinfoSignedResponseAlg: alg }: ApplicationRecord) =>
  alg === null ? 'plain JSON (the default)' : `signed JWT, ${alg}`;

// OpenID Connect Core 8.1: a pairwise client's users have a sub of its sector's.
const subjectType = (application: ApplicationRecord) =>
  application.subjectType === 'public'
    ? 'public (the default)'
    : `pairwise, sector ${printable(sectorOf(application) ?? '(none: its redirect URIs name several hosts)')}`;

// Issue 19: where the application came from, its approval and state, and for a self-registered client the
// metadata it supplied about itself (unverified text, printed through `printable`, as the admin page escapes it).
function registration(application: ApplicationRecord): string[] {
  const selfRegistered = application.registeredBy !== 'admin';
  const lines = [`  registered by:  ${registeredBy(application)}`];
  if (application.registeredBy === 'metadata_document' && application.metadataExpiresAt !== null) {
    lines.push(`  document until: ${application.metadataExpiresAt.toISOString()}   (fetched again after that)`);
  }
  const operatorAllowed = [...application.operatorGrantTypes, ...application.operatorScopes].join(' ');
  // Issue 29: what its initial access token allowed beyond the registration policy (the operator's word, not the client's).
  if (operatorAllowed !== '') lines.push(`  token allowed:  ${operatorAllowed}   (beyond registration.allowedGrantTypes / allowedScopes)`);
  if (selfRegistered) {
    lines.push(
      `  approval:       ${
        application.approvedAt === null
          ? `not approved: the consent screen tells users that nobody reviewed it ('apps approve ${printable(application.uid)}')`
          : `approved at ${application.approvedAt.toISOString()}`
      }`,
    );
  }
  lines.push(
    `  state:          ${
      application.disabledAt === null
        ? 'enabled'
        : `disabled at ${application.disabledAt.toISOString()}: it can be neither authorized nor get tokens ('apps enable')`
    }`,
    `  first used:     ${application.usedAt === null ? 'never' : application.usedAt.toISOString()}`,
  );
  return selfRegistered ? [...lines, ...clientMetadata(application)] : lines;
}

function registeredBy(application: ApplicationRecord): string {
  switch (application.registeredBy) {
    case 'admin':
      return 'an admin';
    case 'dynamic':
      return 'itself (self-registered at /oauth/register, RFC 7591)';
    case 'metadata_document':
      return `its Client ID Metadata Document at ${printable(application.uid)}`;
  }
}

// RFC 7591 section 2's display metadata and registration details, only those the client gave.
function clientMetadata(application: ApplicationRecord): string[] {
  const software = [application.softwareId, application.softwareVersion].filter((part) => part !== null).join(' ');
  const fields: Array<[string, string | null]> = [
    ['client URI', application.clientUri],
    ['logo URI', application.logoUri],
    ['policy URI', application.policyUri],
    ['terms URI', application.tosUri],
    ['contacts', application.contacts.join(', ') || null],
    ['software', software || null],
    ['grant types', application.grantTypes?.join(' ') ?? null],
    ['client auth', application.tokenEndpointAuthMethod],
    ['app type', application.applicationType],
  ];
  const given = fields.filter((field): field is [string, string] => field[1] !== null);
  if (given.length === 0) return [];
  return [
    '  as the client describes itself (unverified):',
    ...given.map(([label, value]) => `    ${`${label}:`.padEnd(14)}${printable(value)}`),
  ];
}

/** What the list says of an application's origin, approval and state. */
function status(application: ApplicationRecord): string {
  const origin = { admin: 'admin', dynamic: 'self-registered', metadata_document: 'metadata document' }[application.registeredBy];
  return [
    origin,
    application.registeredBy !== 'admin' && application.approvedAt === null && 'not approved',
    application.disabledAt !== null && 'disabled',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * The JSON of a changed application. `create` always names the secret, null for a public client (SPEC:
 * `{"id", "uid", "secret", ...}`); the others only when a new one was made.
 */
function changedJson(application: ApplicationRecord, plainSecret: string | null | undefined) {
  const json = applicationJson(application, plainSecret ?? null);
  return plainSecret === null ? { ...json, secret: null } : json;
}

/** After create, rotate-secret or update: the application and, when there is one, the new plain secret. */
export function printChanged(
  io: CliIo,
  json: boolean,
  headline: string,
  application: ApplicationRecord,
  plainSecret: string | null | undefined,
  config: ShownSettings,
): void {
  if (json) return printJson(io, changedJson(application, plainSecret));
  const lines = [headline, ...details(application, config)];
  if (plainSecret) {
    lines.push(
      `  secret:         ${plainSecret}`,
      '',
      'The secret is shown only this once; the database keeps only its hash. Store it now',
      `(a lost secret can be replaced with 'apps rotate-secret ${application.uid}').`,
    );
  }
  io.stdout(`${lines.join('\n')}\n`);
}

/** The server's settings an application's printout depends on. */
export type ShownSettings = Pick<Config, 'hashApplicationSecrets' | 'pushedAuthorizationRequests' | 'keys'>;

export function printShown(io: CliIo, json: boolean, application: ApplicationRecord, config: ShownSettings): void {
  if (json) return printJson(io, applicationJson(application));
  const lines = [
    ...details(application, config),
    `  updated at:     ${application.updatedAt.toISOString()}`,
    `  secret:         ${secretState(application, config.hashApplicationSecrets)}`,
    ...registration(application),
  ];
  io.stdout(`${lines.join('\n')}\n`);
}

// A private_key_jwt client has no secret (usesClientSecret): one it kept from before is never accepted.
function secretState(application: ApplicationRecord, hashedSecrets: boolean): string {
  if (!application.confidential) return 'none (public client)';
  if (!usesClientSecret(application)) return `none: authenticates with ${application.tokenEndpointAuthMethod}`;
  const rotate = `'apps rotate-secret ${application.uid}'`;
  if (application.secret === null) return `none yet (make one: ${rotate})`;
  return `${hashedSecrets ? 'hashed' : 'set'}, not shown (a new one: ${rotate})`;
}

/** `filter`: the --filter given, for the message when nothing matched. */
export function printList(io: CliIo, json: boolean, applications: ApplicationRecord[], filter?: string): void {
  if (json)
    return printJson(
      io,
      applications.map((application) => applicationJson(application)),
    );
  if (applications.length === 0) {
    return io.stdout(
      filter === undefined ? "no applications (create one with 'apps create')\n" : `no applications match --filter ${filter}\n`,
    );
  }
  printTable(
    io,
    ['ID', 'UID', 'NAME', 'TYPE', 'STATUS', 'SCOPES', 'REDIRECT URIS'],
    applications.map((application) => [
      String(application.id),
      printable(application.uid),
      printable(application.name),
      application.confidential ? 'confidential' : 'public',
      status(application),
      application.scopes.join(' '),
      application.redirectUris.map(printable).join(' '),
    ]),
  );
}

/** After approve, disable or enable: the application as the admin JSON API answers it, or one sentence. */
export function printStateChanged(io: CliIo, json: boolean, application: ApplicationRecord, sentence: string): void {
  if (json) return printJson(io, applicationJson(application));
  io.stdout(`${sentence}\n`);
}
