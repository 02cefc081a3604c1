import type { ApplicationRecord } from '../oauth/store.js';
import { printJson, printTable, type CliIo } from './io.js';

// What `apps` prints. A stored secret (or its hash) is never printed: the plain secret exists only in the
// result of create, rotate-secret, or an update that made a client confidential, and is shown that once.

/** The admin JSON API's shape (reference 13, flat fields); `secret` only when given. */
export function applicationJson(application: ApplicationRecord, secret?: string | null) {
  return {
    id: application.id,
    uid: application.uid,
    ...(secret !== undefined && { secret }),
    name: application.name,
    redirect_uri: application.redirectUris.join('\n'),
    scopes: application.scopes,
    confidential: application.confidential,
    post_logout_redirect_uris: application.postLogoutRedirectUris,
    id_token_signed_response_alg: application.idTokenSignedResponseAlg,
    userinfo_signed_response_alg: application.userinfoSignedResponseAlg,
    access_token_format: application.accessTokenFormat,
    dpop_bound_access_tokens: application.dpopBoundAccessTokens,
    created_at: application.createdAt.toISOString(),
    updated_at: application.updatedAt.toISOString(),
  };
}

// Names come from the admin UI too: control characters would reach the terminal as escape sequences.
const printable = (text: string) =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function details(application: ApplicationRecord): string[] {
  return [
    `  id:             ${application.id}`,
    `  uid:            ${application.uid}   (the client_id)`,
    `  name:           ${printable(application.name)}`,
    `  redirect URIs:  ${application.redirectUris.join('\n                  ') || '(none)'}`,
    `  scopes:         ${application.scopes.join(' ') || '(the server defaults)'}`,
    `  type:           ${application.confidential ? 'confidential' : 'public client (no secret; PKCE required)'}`,
    // OpenID Connect: where logout may return to, how ID tokens are signed, what UserInfo answers.
    `  logout URIs:    ${application.postLogoutRedirectUris.join('\n                  ') || '(none)'}`,
    `  ID token alg:   ${application.idTokenSignedResponseAlg ?? 'RS256 (the default)'}`,
    `  UserInfo:       ${userinfoResponse(application)}`,
    `  access tokens:  ${application.accessTokenFormat === 'jwt' ? 'JWT (RFC 9068)' : 'opaque'}`,
    `  DPoP:           ${application.dpopBoundAccessTokens ? 'required (DPoP-bound tokens only, RFC 9449)' : 'optional'}`,
    `  created at:     ${application.createdAt.toISOString()}`,
  ];
}

const userinfoResponse = ({ userinfoSignedResponseAlg: alg }: ApplicationRecord) =>
  alg === null ? 'plain JSON (the default)' : `signed JWT, ${alg}`;

/** After create, rotate-secret or update: the application and, when there is one, the new plain secret. */
export function printChanged(
  io: CliIo,
  json: boolean,
  headline: string,
  application: ApplicationRecord,
  plainSecret: string | null | undefined,
): void {
  if (json) return printJson(io, applicationJson(application, plainSecret));
  const lines = [headline, ...details(application)];
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

export function printShown(io: CliIo, json: boolean, application: ApplicationRecord, hashedSecrets: boolean): void {
  if (json) return printJson(io, applicationJson(application));
  const secret = !application.confidential
    ? 'none (public client)'
    : `${hashedSecrets ? 'hashed' : 'set'}, not shown (a new one: 'apps rotate-secret ${application.uid}')`;
  const lines = [...details(application), `  updated at:     ${application.updatedAt.toISOString()}`, `  secret:         ${secret}`];
  io.stdout(`${lines.join('\n')}\n`);
}

export function printList(io: CliIo, json: boolean, applications: ApplicationRecord[]): void {
  if (json)
    return printJson(
      io,
      applications.map((application) => applicationJson(application)),
    );
  if (applications.length === 0) return io.stdout("no applications (create one with 'apps create')\n");
  printTable(
    io,
    ['ID', 'UID', 'NAME', 'TYPE', 'SCOPES', 'REDIRECT URIS'],
    applications.map((application) => [
      String(application.id),
      application.uid,
      printable(application.name),
      application.confidential ? 'confidential' : 'public',
      application.scopes.join(' '),
      application.redirectUris.join(' '),
    ]),
  );
}
