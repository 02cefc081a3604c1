import { readFileSync } from 'node:fs';
import { requireDecryptableSigningKeys } from '../oauth/keys/signing-key-check.js';
import { describeSigningKeys, ensureSigningKeys, retireSigningKey, rotateSigningKey } from '../oauth/keys/signing-key-service.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm, type SigningKeyRecord } from '../oauth/keys/signing-keys.js';
import { parseKeyEncryptionKey } from '../storage/key-encryption.js';
import { rewrapSigningKeys } from '../storage/signing-key-repository.js';
import { configFrom, withDatabase } from './context.js';
import { onePositional, runSubcommand } from './subcommands.js';
import { parseOptions, printJson, printTable, UsageError, type CliIo } from './io.js';
import { CLI_ACTOR, recordChangeEvent } from '../oauth/audit/audit-trail.js';
import { objectEvent } from '../oauth/audit/audit-subjects.js';

const HELP = `Usage: oauth-service keys list|rotate|retire|rewrap [options] [--json] [--config PATH]

The keys that sign ID tokens and JWT access tokens, shared by every instance through the database. Private keys
are stored encrypted under KEY_ENCRYPTION_KEY (32 random bytes, hex or base64: openssl rand -hex 32), which every
command that makes a key needs, as does the service.

  keys list                 every key: kid, algorithm, state, when it signs and when it is due to rotate
  keys rotate [--alg ALG]   make a new key (RS256 unless --alg ES256 or EdDSA): published at once, signing after
                            keys.publishAheadSeconds, so relying parties have it before they meet its tokens
  keys retire <kid>         retire a key at once (a compromised one): it leaves the JWKS, and stops signing and the
                            service refuses what it signed within 5 s on every instance (introspection answers
                            active false), relying parties once they refetch the JWKS (a guard in jwt mode: within
                            its jwksMaxAgeSeconds); a new key signs at once if it was the last one of its
                            algorithm (a kid may start with '-': give it after '--')
  keys rewrap --from-key-file PATH | --from-env NAME
                            re-encrypt every stored private key, from the key-encryption key it was stored under (in
                            the file PATH, e.g. data/key-encryption-key, the development key; or in the environment
                            variable NAME) to KEY_ENCRYPTION_KEY, in one transaction. Stop every instance first, then
                            start them with the new KEY_ENCRYPTION_KEY
`;

export function runKeysCommand(args: string[], io: CliIo): Promise<number> {
  return runSubcommand('keys', HELP, { list, rotate, retire, rewrap }, args, io);
}

const describe = (key: SigningKeyRecord & { state?: string }) => ({
  kid: key.kid,
  alg: key.alg,
  ...(key.state !== undefined && { state: key.state }),
  created_at: key.createdAt.toISOString(),
  signs_from: key.signsFrom.toISOString(),
  rotate_at: key.rotateAt.toISOString(),
  retired_at: key.retiredAt?.toISOString() ?? null,
});

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {});
  if (values.help) return (io.stdout(HELP), 0);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    const keys = (await describeSigningKeys(deps)).map(describe);
    if (values.json) return (printJson(io, keys), 0);
    if (keys.length === 0) return (io.stdout('no signing keys yet: the service makes the first one when it first signs\n'), 0);
    printTable(
      io,
      ['kid', 'alg', 'state', 'signs from', 'rotate at'],
      keys.map((key) => [key.kid, key.alg, key.state ?? '', key.signs_from, key.rotate_at]),
    );
    return 0;
  });
}

async function rotate(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { alg: { type: 'string' } });
  if (values.help) return (io.stdout(HELP), 0);
  const alg = (values.alg ?? 'RS256') as SigningAlgorithm;
  if (!SIGNING_ALGORITHMS.includes(alg)) throw new UsageError(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  return withDatabase(configFrom(io, values.config), async (deps) => {
    // The boot's check (issue 31 item 6): without KEY_ENCRYPTION_KEY the CLI falls back to the development key, and
    // a key made under another key than the stored ones would break a server that decrypts those (every code
    // exchange a 500). The refusal names the keys and `keys rewrap`.
    await requireDecryptableSigningKeys(deps);
    // A first key of any algorithm signs at once; a rotation by hand then makes the successor. Both are said and
    // audited: the first ones are keys as much as the successor.
    const made = await ensureSigningKeys(deps);
    const key = await rotateSigningKey(deps, alg);
    const details = { alg, ...(made.length > 0 && { made: made.map((first) => first.kid) }) };
    await recordChangeEvent(deps, CLI_ACTOR, objectEvent('signing_key.rotated', 'signing_key', key.kid, true, details));
    if (values.json) return (printJson(io, { ...describe(key), ...(made.length > 0 && { made: made.map(describe) }) }), 0);
    for (const first of made) io.stdout(`first ${first.alg} key ${first.kid}: published and signing now (there was none)\n`);
    io.stdout(`new ${key.alg} key ${key.kid}: published now, signs from ${key.signsFrom.toISOString()}\n`);
    return 0;
  });
}

async function retire(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  const kid = onePositional(positionals, 'the kid of the key to retire');
  return withDatabase(configFrom(io, values.config), async (deps) => {
    // As rotate: retiring the last key of an algorithm makes its successor under this key-encryption key.
    await requireDecryptableSigningKeys(deps);
    const { retired, made } = await retireSigningKey(deps, kid);
    // An unknown kid is a bad argument, as an unknown id is to every other command: exit code 2, --json or not.
    if (!retired) throw new UsageError(`no signing key ${kid}, or it is retired already`);
    const event = objectEvent('signing_key.retired', 'signing_key', kid, true, { made: made.map((key) => key.kid) });
    await recordChangeEvent(deps, CLI_ACTOR, event);
    if (values.json) return (printJson(io, { kid, retired, made: made.map(describe) }), 0);
    io.stdout(
      `retired ${kid}: it is out of the JWKS; what it signed is refused here within 5 s on every instance, and by APIs ` +
        `once they refetch the JWKS (a guard in jwt mode: within its jwksMaxAgeSeconds, 600 s by default)\n`,
    );
    for (const key of made) io.stdout(`new ${key.alg} key ${key.kid} signs from now\n`);
    return 0;
  });
}

async function rewrap(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { 'from-key-file': { type: 'string' }, 'from-env': { type: 'string' } });
  if (values.help) return (io.stdout(HELP), 0);
  const from = storedUnder(values['from-key-file'], values['from-env'], io);
  const config = configFrom(io, values.config);
  if (!config.keys.encryptionKey)
    throw new UsageError('keys rewrap re-encrypts under KEY_ENCRYPTION_KEY: set it to the new key (openssl rand -hex 32)');
  const to = parseKeyEncryptionKey(config.keys.encryptionKey);
  if (from.equals(to)) throw new UsageError('the old key is KEY_ENCRYPTION_KEY itself: there is nothing to re-encrypt');
  const { rewrapped, unchanged, totpSecrets } = await withDatabase(config, async (deps, database) => {
    const result = await rewrapSigningKeys(database, from, to);
    const event = objectEvent('signing_keys.rewrapped', 'signing_key', result.rewrapped.join(' ') || '-', true, result);
    await recordChangeEvent(deps, CLI_ACTOR, event);
    return result;
  });
  if (values.json) return (printJson(io, { rewrapped, unchanged, totp_secrets: totpSecrets }), 0);
  io.stdout(
    `re-encrypted ${rewrapped.length} signing key${rewrapped.length === 1 ? '' : 's'} under KEY_ENCRYPTION_KEY${rewrapped.length ? `: ${rewrapped.join(', ')}` : ''}\n`,
  );
  if (unchanged.length) io.stdout(`under it already: ${unchanged.join(', ')}\n`);
  if (totpSecrets) io.stdout(`re-encrypted ${totpSecrets} TOTP secret${totpSecrets === 1 ? '' : 's'} of users' second factors\n`);
  io.stdout('start every instance with this KEY_ENCRYPTION_KEY');
  io.stdout(values['from-key-file'] ? `; the old key in ${values['from-key-file']} is no longer needed: delete it\n` : '\n');
  return 0;
}

/** The key-encryption key the keys are stored under now: in the file --from-key-file names, or the variable --from-env names. */
function storedUnder(file: string | undefined, variable: string | undefined, io: CliIo): Buffer {
  if ((file === undefined) === (variable === undefined)) {
    throw new UsageError('give the key the signing keys are stored under now: --from-key-file PATH or --from-env NAME');
  }
  const source = file !== undefined ? `--from-key-file ${file}` : `--from-env ${variable}`;
  let text: string | undefined;
  try {
    text = file !== undefined ? readFileSync(file, 'utf8') : io.env[variable!];
  } catch (error) {
    throw new UsageError(`${source}: ${(error as Error).message}`);
  }
  if (!text) throw new UsageError(`${source}: ${file !== undefined ? 'the file is empty' : `${variable} is not set`}`);
  try {
    return parseKeyEncryptionKey(text);
  } catch {
    throw new UsageError(`${source}: not a key-encryption key (32 bytes, as 64 hex characters or base64)`);
  }
}
