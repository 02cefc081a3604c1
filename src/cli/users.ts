import { revokeAuthorizations, type RevokedAuthorizations } from '../oauth/authorizations.js';
import type { OAuthDeps } from '../oauth/deps.js';
import { UsernameTaken, type UserRecord } from '../oauth/store.js';
import { createUser, deleteUser, findUserByUsername, listUsers, setUserPassword } from '../oauth/users.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, printTable, UsageError, type CliIo } from './io.js';
import { required, runSubcommand } from './subcommands.js';
import { checkUsername, readPassword } from './user-input.js';

const HELP = `Usage: oauth-service users <subcommand> [options]     (every subcommand: --json, --config PATH, --help)

The local users who log in at /login and approve applications. Passwords are stored as argon2id hashes.

  create --username U [--password P]         the password from --password or the first line of stdin
  list                                       id, username and creation time (never a hash)
  set-password --username U [--password P]   likewise from stdin when --password is absent
  delete --username U                        revokes the user's tokens and grants, then deletes the user
  revoke-tokens --username U                 revokes every live token and grant of the user

Passwords must be at least 8 characters. Prefer stdin: --password ends up in the shell history.
`;

const USER_OPTIONS = { username: { type: 'string' } } as const;
const PASSWORD_OPTIONS = { ...USER_OPTIONS, password: { type: 'string' } } as const;

export function runUsersCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand(
    'users',
    HELP,
    { create, list, 'set-password': setPassword, delete: remove, 'revoke-tokens': revokeTokens },
    args,
    io,
  );
}

const userJson = (user: UserRecord) => ({ id: user.id, username: user.username, created_at: user.createdAt.toISOString() });

async function create(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, PASSWORD_OPTIONS);
  if (values.help) return (io.stdout(HELP), 0);
  const username = checkUsername(required(values.username, 'username'));
  const password = await readPassword(io, values.password, `password for ${username}: `);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    let user: UserRecord;
    try {
      user = await createUser(deps, username, password);
    } catch (error) {
      if (error instanceof UsernameTaken) throw new UsageError(error.message);
      throw error;
    }
    if (values.json) printJson(io, userJson(user));
    else io.stdout(`created user ${user.username} (id ${user.id})\n`);
    return 0;
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {});
  if (values.help) return (io.stdout(HELP), 0);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const users = await listUsers(deps);
    if (values.json) printJson(io, users.map(userJson));
    else if (users.length === 0) io.stdout("no users (create one with 'users create')\n");
    else
      printTable(
        io,
        ['ID', 'USERNAME', 'CREATED AT'],
        users.map((user) => [String(user.id), user.username, user.createdAt.toISOString()]),
      );
    return 0;
  });
}

interface NamedUserValues {
  help?: boolean;
  json?: boolean;
  config?: string;
  username?: string;
  password?: string;
}

/**
 * The shared shape of the subcommands that act on one existing user: parse --username, open the database,
 * find the user (exit 2 when there is none), then run the action.
 */
async function withNamedUser(
  args: string[],
  io: CliIo,
  options: typeof USER_OPTIONS | typeof PASSWORD_OPTIONS,
  action: (deps: OAuthDeps, user: UserRecord, values: NamedUserValues) => Promise<void>,
): Promise<number> {
  const { values } = parseOptions(args, options) as { values: NamedUserValues };
  if (values.help) return (io.stdout(HELP), 0);
  const username = required(values.username, 'username');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    await action(deps, await findUser(deps, username), values);
    return 0;
  });
}

function setPassword(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, PASSWORD_OPTIONS, async (deps, user, values) => {
    const password = await readPassword(io, values.password, `new password for ${user.username}: `);
    if (!(await setUserPassword(deps, user.username, password))) throw noUser(user.username);
    if (values.json) printJson(io, { ...userJson(user), password_changed: true });
    else io.stdout(`changed the password of ${user.username}\n`);
  });
}

function remove(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const revoked = await deleteUser(deps, user);
    if (values.json) printJson(io, { ...userJson(user), deleted: true, revoked });
    else io.stdout(`deleted user ${user.username} after revoking ${describe(revoked)}\n`);
  });
}

function revokeTokens(args: string[], io: CliIo): Promise<number> {
  return withNamedUser(args, io, USER_OPTIONS, async (deps, user, values) => {
    const revoked = await revokeAuthorizations(deps, user.id);
    if (values.json) printJson(io, { ...userJson(user), revoked });
    else io.stdout(`revoked ${describe(revoked)} of ${user.username}\n`);
  });
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const describe = ({ tokens, grants }: RevokedAuthorizations) => `${plural(tokens, 'token')} and ${plural(grants, 'grant')}`;

async function findUser(deps: OAuthDeps, username: string): Promise<UserRecord> {
  const user = await findUserByUsername(deps, username);
  if (!user) throw noUser(username);
  return user;
}

const noUser = (username: string) => new UsageError(`no user named ${username}`);
