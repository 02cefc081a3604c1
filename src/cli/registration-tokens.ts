import {
  createRegistrationToken,
  listRegistrationTokens,
  MAX_TOKEN_SECONDS,
  MAX_TOKEN_USES,
  RegistrationTokenInvalid,
  revokeRegistrationToken,
  tokenState,
} from '../oauth/clients/registration/registration-tokens.js';
import type { RegistrationTokenRecord } from '../oauth/clients/registration/registration-store.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, printTable, UsageError, type CliIo } from './io.js';
import { onePositional, runSubcommand } from './subcommands.js';
import type { OAuthDeps } from '../oauth/deps.js';
import { auditedChange, CLI_ACTOR } from '../oauth/audit/audit-trail.js';
import { objectEvent } from '../oauth/audit/audit-subjects.js';

const HELP = `Usage: oauth-service registration-tokens <subcommand> [options]     (every subcommand: --json, --config PATH, --help)

Initial access tokens (RFC 7591 section 3). With registration.policy "initialAccessToken", a client registers at
POST /oauth/register only with one, sent as "Authorization: Bearer <token>". Only its SHA-256 hash is stored:
the token is printed once, by create.

  create [--uses N] [--expires-in SECONDS] [--grant-types "G ..."] [--scopes "S ..."]
      --uses          how many registrations it may make, 1 to ${MAX_TOKEN_USES}; left out: any number
      --expires-in    how long it is valid, 1 to ${MAX_TOKEN_SECONDS} seconds; left out: until revoked
      --grant-types   grant types its clients may register beyond registration.allowedGrantTypes, such as
                      client_credentials (which self-registered clients get only this way or by apps approve)
      --scopes        scopes its clients may register beyond registration.allowedScopes (server scopes)
      --json prints {"id", "token", "expires_at", "uses_remaining", "grant_types", "scopes"}
  list                every token (never the token itself): id, SHA-256 (apply's token_sha256), state, uses left,
                      expiry, what it allows
  revoke <id>         the token stops working at once
`;

export function runRegistrationTokensCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('registration-tokens', HELP, { create, list, revoke }, args, io);
}

function positiveInteger(value: string | undefined, option: string, max: number): number | null {
  if (value === undefined) return null;
  const number = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= max)) throw new UsageError(`--${option} must be an integer from 1 to ${max}, not '${value}'`);
  return number;
}

const words = (value: string | undefined) => (value ?? '').split(/[\s,]+/).filter(Boolean);

async function create(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {
    uses: { type: 'string' },
    'expires-in': { type: 'string' },
    'grant-types': { type: 'string' },
    scopes: { type: 'string' },
  });
  if (values.help) return (io.stdout(HELP), 0);
  const uses = positiveInteger(values.uses, 'uses', MAX_TOKEN_USES);
  const expiresInSeconds = positiveInteger(values['expires-in'], 'expires-in', MAX_TOKEN_SECONDS);
  const allows = { grantTypes: words(values['grant-types']), scopes: words(values.scopes) };
  const config = configFrom(io, values.config);
  return withDatabase(config, async (deps) => {
    const create = (tx: OAuthDeps) => createRegistrationToken(tx, { uses, expiresInSeconds, ...allows });
    const event = (r: Awaited<ReturnType<typeof create>>) => objectEvent('registration_token.created', 'registration_token', r.record.id);
    const { plainToken, record } = await auditedChange(deps, CLI_ACTOR, create, event).catch((error: unknown) => {
      throw error instanceof RegistrationTokenInvalid ? new UsageError(error.message) : error;
    });
    if (values.json) {
      printJson(io, {
        id: record.id,
        token: plainToken,
        token_sha256: record.token,
        expires_at: iso(record.expiresAt),
        uses_remaining: record.usesRemaining,
        grant_types: record.grantTypes,
        scopes: record.scopes,
      });
      return 0;
    }
    io.stdout(
      `created initial access token ${record.id} (${usesText(record)}, ${record.expiresAt ? `expires ${iso(record.expiresAt)}` : 'does not expire'}${allowsText(record, ', allows ')}):\n` +
        `  ${plainToken}\nIt is shown only now; store it where the client's operator can get it.\n`,
    );
    if (config.registration.policy !== 'initialAccessToken')
      io.stderr(`note: registration.policy is '${config.registration.policy}': tokens are asked for only under 'initialAccessToken'\n`);
    return 0;
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {});
  if (values.help) return (io.stdout(HELP), 0);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const tokens = await listRegistrationTokens(deps);
    const now = deps.now();
    if (values.json)
      printJson(
        io,
        tokens.map((token) => attributes(token, now)),
      );
    else if (tokens.length === 0) io.stdout("no initial access tokens (make one with 'registration-tokens create')\n");
    else
      printTable(
        io,
        ['ID', 'SHA-256', 'STATE', 'USES LEFT', 'EXPIRES AT', 'CREATED AT', 'ALLOWS'],
        tokens.map((token) => [
          String(token.id),
          `${token.token.slice(0, SHA256_PREFIX)}…`,
          tokenState(token, now),
          token.usesRemaining === null ? 'unlimited' : String(token.usesRemaining),
          iso(token.expiresAt) ?? 'never',
          token.createdAt.toISOString(),
          allowsText(token) || '-',
        ]),
      );
    return 0;
  });
}

async function revoke(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const reference = onePositional(positionals, '<id>');
  if (!/^[1-9][0-9]{0,14}$/.test(reference)) throw new UsageError(`no initial access token with id ${reference}`);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const revoke = (tx: OAuthDeps) => revokeRegistrationToken(tx, Number(reference));
    const event = (revoked: boolean) => objectEvent('registration_token.revoked', 'registration_token', reference, revoked);
    if (!(await auditedChange(deps, CLI_ACTOR, revoke, event))) throw new UsageError(`no live initial access token with id ${reference}`);
    if (values.json) printJson(io, { revoked: true, id: Number(reference) });
    else io.stdout(`revoked initial access token ${reference}\n`);
    return 0;
  });
}

const iso = (date: Date | null) => date?.toISOString() ?? null;
const usesText = (token: RegistrationTokenRecord) =>
  token.usesRemaining === null
    ? 'any number of registrations'
    : `${token.usesRemaining} registration${token.usesRemaining === 1 ? '' : 's'}`;
/** Issue 29: what the token allows beyond the registration policy, e.g. "grant types client_credentials, scopes read write". */
const allowsText = (token: RegistrationTokenRecord, prefix = '') => {
  const parts = [
    ...(token.grantTypes.length > 0 ? [`grant types ${token.grantTypes.join(' ')}`] : []),
    ...(token.scopes.length > 0 ? [`scopes ${token.scopes.join(' ')}`] : []),
  ];
  return parts.length === 0 ? '' : `${prefix}${parts.join(', ')}`;
};

// What finds a token in an apply file (its token_sha256) beside its id: the table shows the first digits, --json all.
const SHA256_PREFIX = 12;

function attributes(token: RegistrationTokenRecord, now: Date) {
  return {
    id: token.id,
    token_sha256: token.token,
    state: tokenState(token, now),
    uses_remaining: token.usesRemaining,
    expires_at: iso(token.expiresAt),
    created_at: token.createdAt.toISOString(),
    revoked_at: iso(token.revokedAt),
    grant_types: token.grantTypes,
    scopes: token.scopes,
  };
}
