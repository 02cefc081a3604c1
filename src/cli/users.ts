import { revokeAuthorizations, type RevokedAuthorizations } from '../oauth/authorization/authorizations.js';
import type { OAuthDeps } from '../oauth/deps.js';
import { UsernameTaken, type UserRecord } from '../oauth/store.js';
import { UserInvalid } from '../oauth/users/user-profile.js';
import {
  createUser,
  deleteUser,
  disableUser,
  enableUser,
  findUserByUsername,
  listUsers,
  newUserErrors,
  searchUsers,
  setPasswordByAdmin,
  updateUserProfile,
} from '../oauth/users/users.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, printTable, UsageError, type CliIo } from './io.js';
import { required, runSubcommand } from './subcommands.js';
import { CLAIM_OPTIONS, CLAIMS_HELP, claimLines, profileFromOptions, userJson } from './user-claims-options.js';
import { checkUsername, readPassword } from './user-input.js';
import { auditedChange, CLI_ACTOR, recordChangeEvent } from '../oauth/audit/audit-trail.js';
import { mfaPolicyEvent, secondFactorResetEvent } from '../oauth/audit/second-factor-events.js';
import { passkeysResetEvent } from '../oauth/audit/passkey-events.js';
import { removeAllPasskeys } from '../oauth/passkeys/passkeys.js';
import { isMfaPolicy, MFA_POLICIES, removeSecondFactor, setMfaPolicy } from '../oauth/second-factor/second-factors.js';
import { userEvent } from '../oauth/audit/audit-subjects.js';
import { IDENTITIES_HELP, identitiesJson, IDENTITY_OPTIONS, printIdentities, removeIdentity } from './user-identities.js';

const HELP = `Usage: oauth-service users <subcommand> [options]     (every subcommand: --json, --config PATH, --help)

The local users who log in at /login and approve applications. Passwords are stored as argon2id hashes.
A user is named by <username> or --username U.

  create <username> [--password P] [claim options]
      the password from --password or the first line of stdin
  list [--search TEXT]                       id, username, email and state (never a hash); --search matches
                                             username, name or email, any case, at most 50 users
  show <username>                            the user's subject (the OpenID Connect sub) and claims (--json: and
                                             their sign-in identities)
  update <username> [claim options]          changes only the claims given (updated_at moves when one changes)
  set-password <username> [--password P]     likewise from stdin when --password is absent
  disable <username>                         the user can no longer log in, and every token and grant of theirs
                                             is revoked at once (enable does not bring them back)
  enable <username>                          lets a disabled user log in again
  delete <username>                          revokes the user's tokens and grants, then deletes the user
  revoke-tokens <username>                   revokes every live token and grant of the user
  set-mfa <username> --mfa off|optional|required
                                             the user's second-factor policy: required asks for a second factor at
                                             every sign-in (set up at the next one), off never of the user's accord
  reset-second-factor <username>             removes the user's authenticator and recovery codes (a lost phone)
  reset-passkeys <username>                  removes all the user's passkeys (a lost security key or phone); they
                                             sign in with their password and register passkeys again
${IDENTITIES_HELP}

Passwords must be at least 8 characters. Prefer stdin: --password ends up in the shell history.
Usernames cannot be changed (the OpenID Connect sub never is the username, so renaming would be safe later).

${CLAIMS_HELP}`;

const USER_OPTIONS = { username: { type: 'string' } } as const;
const PASSWORD_OPTIONS = { ...USER_OPTIONS, password: { type: 'string' } } as const;
const CREATE_OPTIONS = { ...PASSWORD_OPTIONS, ...CLAIM_OPTIONS } as const;
const UPDATE_OPTIONS = { ...USER_OPTIONS, ...CLAIM_OPTIONS } as const;

export function runUsersCommand(args: string[], io: CliIo): Promise<number> {
  const subcommands = {
    create,
    list,
    show,
    update,
    'set-password': setPassword,
    disable,
    enable,
    delete: remove,
    'revoke-tokens': revokeTokens,
    'set-mfa': setMfa,
    'reset-second-factor': resetSecondFactor,
    'reset-passkeys': resetPasskeys,
    identities: (args: string[], io: CliIo) =>
      withNamedUser(args, io, USER_OPTIONS, (deps, user, values) => printIdentities(io, deps, user, values.json)),
    'remove-identity': (args: string[], io: CliIo) =>
      withNamedUser(args, io, { ...USER_OPTIONS, ...IDENTITY_OPTIONS }, (deps, user, values) => removeIdentity(io, deps, user, values)),
  };
  return runSubcommand('users', HELP, subcommands, args, io);
}

interface UserValues {
  help?: boolean;
  json?: boolean;
  config?: string;
  username?: string;
  password?: string;
  [option: string]: string | boolean | undefined;
}

function parseUserOptions(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  const { values, positionals } = parseOptions(args, options, true) as { values: UserValues; positionals: string[] };
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
  if (positionals.length === 1 && values.username !== undefined) throw new UsageError('give the username once, not also as --username');
  return { values, username: positionals[0] ?? values.username };
}

async function create(args: string[], io: CliIo): Promise<number> {
  const { values, username: given } = parseUserOptions(args, CREATE_OPTIONS);
  if (values.help) return (io.stdout(HELP), 0);
  const username = checkUsername(required(given, 'username'));
  const profile = profileFromOptions(values);
  const refused = newUserErrors(username, profile);
  if (refused.length > 0) throw new UsageError(refused.join('; '));
  const password = await readPassword(io, values.password, `password for ${username}: `);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const create = (tx: OAuthDeps) => createUser(tx, username, password, profile);
    const user = await inWords(() => auditedChange(deps, CLI_ACTOR, create, (r) => userEvent('user.created', r)));
    if (values.json) printJson(io, userJson(user));
    else io.stdout(`created user ${user.username} (id ${user.id}, subject ${user.subject})\n${claimLines(user)}`);
    return 0;
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { search: { type: 'string' } });
  if (values.help) return (io.stdout(HELP), 0);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const users = values.search === undefined ? await listUsers(deps) : await searchUsers(deps, values.search);
    if (values.json) printJson(io, users.map(userJson));
    else if (users.length === 0)
      io.stdout(values.search === undefined ? "no users (create one with 'users create')\n" : 'no user matches\n');
    else
      printTable(
        io,
        ['ID', 'USERNAME', 'EMAIL', 'STATE', 'CREATED AT'],
        users.map((user) => [
          String(user.id),
          user.username,
          user.email ?? '',
          user.disabledAt ? 'disabled' : 'active',
          user.createdAt.toISOString(),
        ]),
      );
    return 0;
  });
}

/**
 * The shared shape of the subcommands that act on one existing user: parse the username, open the database,
 * find the user (exit 2 when there is none), then run the action.
 */
async function withNamedUser(
  args: string[],
  io: CliIo,
  options: Record<string, { type: 'string' | 'boolean' }>,
  action: (deps: OAuthDeps, user: UserRecord, values: UserValues) => Promise<void>,
): Promise<number> {
  const { values, username: given } = parseUserOptions(args, options);
  if (values.help) return (io.stdout(HELP), 0);
  const username = required(given, 'username');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    await action(deps, await findUser(deps, username), values);
    return 0;
  });
}

function show(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    if (values.json) printJson(io, { ...userJson(user), identities: await identitiesJson(deps, user.id) });
    else io.stdout(`${user.username} (id ${user.id}, subject ${user.subject})${describeState(user)}\n${claimLines(user)}`);
  });
}

function update(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, UPDATE_OPTIONS, async (deps, user, values) => {
    const profile = profileFromOptions(values);
    if (Object.keys(profile).length === 0) throw new UsageError("nothing to change: give claim options (see 'users --help')");
    const update = (tx: OAuthDeps) => updateUserProfile(tx, user, profile);
    const event = (r: UserRecord | null) => userEvent('user.updated', r, { fields: Object.keys(profile) });
    const updated = (await inWords(() => auditedChange(deps, CLI_ACTOR, update, event))) ?? throwNoUser(user.username);
    if (values.json) printJson(io, userJson(updated));
    else io.stdout(`updated user ${updated.username}\n${claimLines(updated)}`);
  });
}

function setPassword(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, PASSWORD_OPTIONS, async (deps, user, values) => {
    const password = await readPassword(io, values.password, `new password for ${user.username}: `);
    const set = (tx: OAuthDeps) => setPasswordByAdmin(tx, user, password);
    const event = (changed: boolean) => userEvent('user.password_changed', changed ? user : null);
    if (!(await auditedChange(deps, CLI_ACTOR, set, event))) throwNoUser(user.username);
    if (values.json) printJson(io, { ...userJson(user), password_changed: true });
    else io.stdout(`changed the password of ${user.username}\n`);
  });
}

function disable(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    // Run again, it changes nothing and says so, as `apps disable` does: no second user.disabled event.
    if (user.disabledAt !== null) {
      if (values.json) printJson(io, { ...userJson(user), revoked: { tokens: 0, grants: 0 } });
      else io.stdout(`user ${user.username} was already disabled at ${user.disabledAt.toISOString()}\n`);
      return;
    }
    const disable = (tx: OAuthDeps) => disableUser(tx, user);
    const event = (r: Awaited<ReturnType<typeof disableUser>>) => userEvent('user.disabled', r?.user, r?.revoked);
    const disabled = (await auditedChange(deps, CLI_ACTOR, disable, event)) ?? throwNoUser(user.username);
    if (values.json) printJson(io, { ...userJson(disabled.user), revoked: disabled.revoked });
    else io.stdout(`disabled user ${user.username} and revoked ${describe(disabled.revoked)}\n`);
  });
}

function enable(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const enable = (tx: OAuthDeps) => enableUser(tx, user);
    const enabled = (await auditedChange(deps, CLI_ACTOR, enable, (r) => userEvent('user.enabled', r))) ?? throwNoUser(user.username);
    if (values.json) printJson(io, userJson(enabled));
    else io.stdout(`enabled user ${user.username}: they can log in again\n`);
  });
}

function remove(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const remove = (tx: OAuthDeps) => deleteUser(tx, user);
    const revoked = await auditedChange(deps, CLI_ACTOR, remove, (r) => userEvent('user.deleted', user, r));
    if (values.json) printJson(io, { ...userJson(user), deleted: true, revoked });
    else io.stdout(`deleted user ${user.username} after revoking ${describe(revoked)}\n`);
  });
}

function revokeTokens(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const revoke = (tx: OAuthDeps) => revokeAuthorizations(tx, user.id);
    const revoked = await auditedChange(deps, CLI_ACTOR, revoke, (r) => userEvent('user.tokens_revoked', user, r));
    if (values.json) printJson(io, { ...userJson(user), revoked });
    else io.stdout(`revoked ${describe(revoked)} of ${user.username}\n`);
  });
}

function setMfa(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, { ...USER_OPTIONS, mfa: { type: 'string' } }, async (deps, user, values) => {
    const policy = values.mfa;
    if (!isMfaPolicy(policy)) throw new UsageError(`--mfa must be one of ${MFA_POLICIES.join(', ')}`);
    // The second factors' store writes outside any transaction (one statement each): the event follows the change.
    if (!(await setMfaPolicy(deps, user, policy))) throwNoUser(user.username);
    await recordChangeEvent(deps, CLI_ACTOR, mfaPolicyEvent(user.id, policy));
    if (values.json) printJson(io, { ...userJson(user), mfa: policy });
    else io.stdout(`set the second-factor policy of ${user.username} to ${policy}\n`);
  });
}

function resetSecondFactor(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const removed = await removeSecondFactor(deps, user.id);
    await recordChangeEvent(deps, CLI_ACTOR, removed ? secondFactorResetEvent(user.id) : null);
    if (values.json) printJson(io, { ...userJson(user), second_factor_removed: removed });
    else io.stdout(removed ? `removed the second factor of ${user.username}\n` : `${user.username} has no second factor\n`);
  });
}

function resetPasskeys(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const removed = await removeAllPasskeys(deps, user.id);
    await recordChangeEvent(deps, CLI_ACTOR, removed.length > 0 ? passkeysResetEvent(user.id, removed) : null);
    const names = removed.map(({ id, name }) => ({ id, name }));
    if (values.json) printJson(io, { ...userJson(user), passkeys_removed: names });
    else if (removed.length === 0) io.stdout(`${user.username} has no passkey\n`);
    else io.stdout(`removed ${plural(removed.length, 'passkey')} of ${user.username}: ${names.map(({ name }) => name).join(', ')}\n`);
  });
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const describe = ({ tokens, grants }: RevokedAuthorizations) => `${plural(tokens, 'token')} and ${plural(grants, 'grant')}`;
const describeState = (user: UserRecord) => (user.disabledAt ? `, disabled since ${user.disabledAt.toISOString()}` : '');

/** The domain's refusals as one usage line (exit 2). */
async function inWords<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UserInvalid) throw new UsageError(error.messages.join('; '));
    if (error instanceof UsernameTaken) throw new UsageError(error.message);
    throw error;
  }
}

async function findUser(deps: OAuthDeps, username: string): Promise<UserRecord> {
  return (await findUserByUsername(deps, username)) ?? throwNoUser(username);
}

function throwNoUser(username: string): never {
  throw new UsageError(`no user named ${username}`);
}
