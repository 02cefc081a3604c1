import { hashedPasswordForm } from '../oauth/users/passwords.js';
import { argon2Hasher } from '../storage/argon2-hasher.js';
import { parseOptions, printJson, type CliIo } from './io.js';
import { runSubcommand } from './subcommands.js';
import { readPassword } from './user-input.js';

/** The admin password guards every application's secret: longer than a user's (MIN_PASSWORD_LENGTH). */
export const MIN_ADMIN_PASSWORD_LENGTH = 12;

const HELP = `Usage: oauth-service admin hash-password [--json]

Reads the admin password from the first line of stdin (on a terminal it is prompted for, without echo) and
prints its argon2id hash: the value of ADMIN_PASSWORD_HASH, or of admin.passwordHash in the config file, so
that the plain password is stored nowhere.

  ADMIN_PASSWORD_HASH=$(echo 'a long admin password' | oauth-service admin hash-password)

The password must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters. Neither the configuration nor the database is read.
`;

export function runAdminCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('admin', HELP, { 'hash-password': hashPassword }, args, io);
}

async function hashPassword(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {});
  if (values.help) return (io.stdout(HELP), 0);
  const password = await readPassword(io, undefined, 'admin password: ', {
    minLength: MIN_ADMIN_PASSWORD_LENGTH,
    what: 'the admin password',
    from: 'one line on stdin',
  });
  const hash = await argon2Hasher.hash(hashedPasswordForm(password));
  if (values.json) printJson(io, { ADMIN_PASSWORD_HASH: hash });
  else io.stdout(`${hash}\n`);
  return 0;
}
