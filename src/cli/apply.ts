import { readFile } from 'node:fs/promises';
import { CLI_ACTOR } from '../oauth/audit/audit-trail.js';
import { ProvisioningInvalid } from '../oauth/provisioning/outcome.js';
import { applyProvisioning, readProvisioning } from '../oauth/provisioning/provisioning.js';
import { UNSTORABLE_TEXT, unstorableText } from '../oauth/storable-text.js';
import { printChanges } from './apply-output.js';
import { configFrom, withDatabase } from './context.js';
import { parseOptions, printJson, readStdin, UsageError, type CliIo } from './io.js';
import { required } from './subcommands.js';
import { withoutByteOrderMark } from '../config/byte-order-mark.js';
import { firstDuplicateKey } from '../config/duplicate-json-keys.js';
import { jsonSyntaxProblem } from '../config/json-syntax-error.js';

const HELP = `Usage: oauth-service apply -f FILE [--dry-run] [--prune] [--json] [--config PATH]

Makes the applications, users, resources (APIs) and registration tokens a JSON file declares exist as declared:
creates the missing ones and updates the others, in one transaction (all of it or nothing). Applying the same
file again changes nothing. Prints each change (created, updated with the fields it changed, deleted, revoked)
and a count; --json prints every object, unchanged ones too.

  -f, --file FILE   the provisioning file; '-' reads it from stdin
  --dry-run         print what would change, change nothing
  --prune           also remove what the file does not declare, of the kinds it declares (a kind it leaves out
                    is not touched): applications an admin made (never self-registered clients), users (their
                    tokens and grants revoked first), resources; registration tokens that still work are revoked

The file, every member optional (docs/operations.md, "Provisioning"):
  {"applications": [{"uid": "billing", "name": "Billing", "redirect_uris": ["https://billing.example.com/cb"],
       "scopes": ["read"], "confidential": true, "secret_env": "BILLING_CLIENT_SECRET",
       "post_logout_redirect_uris": [], "id_token_signed_response_alg": null,
       "userinfo_signed_response_alg": null, "access_token_format": "opaque", "dpop_bound_access_tokens": false}],
   "users": [{"username": "alice", "password_hash": "$argon2id$v=19$m=19456,t=2,p=1$...",
       "claims": {"email": "alice@example.com", "email_verified": true, "address": {"country": "FR"}}}],
   "resources": [{"uri": "https://api.example.com", "name": "API", "scopes": ["read"], "token_format": "opaque",
       "access_token_lifetime": 900, "server_client_id": "billing"}],
   "registration_tokens": [{"token_sha256": "<64 hex digits>", "uses": 10, "expires_at": "2027-01-31T00:00:00Z",
       "grant_types": [], "scopes": []}]}
Applications are identified by uid (the client_id), users by username, resources by URI, registration tokens by
the SHA-256 of the token. A field left out takes the value create gives it (a user's claims left out are cleared).
No plain secret is in the file: a confidential application without secret_env (an environment variable holding a
secret of 32 characters or more) gets a generated secret when it is created, printed only then, and keeps it; a
user's password is an argon2id hash ('admin hash-password'), or none until 'users set-password' sets one.
A file the rules refuse exits with code 2 and every problem named by its place (applications[2].redirect_uris[0]);
nothing is changed then.
`;

export async function runApplyCommand(args: string[], io: CliIo): Promise<number> {
  const options = { file: { type: 'string', short: 'f' }, 'dry-run': { type: 'boolean' }, prune: { type: 'boolean' } } as const;
  const { values } = parseOptions(args, options);
  if (values.help) return (io.stdout(HELP), 0);
  const file = required(values.file, 'file');
  const json = Boolean(values.json);
  try {
    const provisioning = readProvisioning(await parsedFile(io, file), io.env);
    const dryRun = Boolean(values['dry-run']);
    return await withDatabase(
      configFrom(io, values.config),
      async (deps) => {
        const changes = await applyProvisioning(deps, provisioning, { dryRun, prune: Boolean(values.prune), by: CLI_ACTOR });
        printChanges(io, changes, { file, dryRun, json });
        return 0;
      },
      { readOnly: dryRun },
    );
  } catch (error) {
    // docs/operations.md "Provisioning": with --json every refusal, the file's own included, is a JSON document.
    if (json && (error instanceof ProvisioningInvalid || error instanceof UnusableFile)) {
      const problems = error instanceof ProvisioningInvalid ? error.problems : [error.message];
      return (printJson(io, { file, valid: false, problems }), 2);
    }
    if (!(error instanceof ProvisioningInvalid)) throw error;
    throw new UsageError(`${file} cannot be applied, nothing was changed:\n${error.problems.map((problem) => `  ${problem}`).join('\n')}`);
  }
}

/** A file that cannot be read or is not JSON: one line without --json (a usage error, exit code 2). */
class UnusableFile extends UsageError {}

async function parsedFile(io: CliIo, file: string): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = file === '-' ? await readStdin(io) : await readFile(file);
  } catch (error) {
    throw new UnusableFile(`cannot read ${file}: ${(error as Error).message}`);
  }
  let text: string;
  try {
    // Not replaced by U+FFFD: a file saved as Latin-1 would make "café" a user "caf\ufffd" (RFC 8259 section 8.1: UTF-8).
    text = withoutByteOrderMark(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new UnusableFile(`${file} is not UTF-8 text: save it as UTF-8 (RFC 8259 section 8.1)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UnusableFile(`${file} is not valid JSON: ${jsonSyntaxProblem(text, error as SyntaxError)}`);
  }
  // An escaped lone surrogate ("\ud800") would be stored as U+FFFD: the file would differ from the database forever.
  const unstorable = unstorableText(parsed);
  if (unstorable !== null) throw new UnusableFile(`${file} holds the text ${JSON.stringify(unstorable)}, which ${UNSTORABLE_TEXT}`);
  let duplicate: string | null;
  try {
    duplicate = firstDuplicateKey(text);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new UnusableFile(`${file} is nested too deeply to be a provisioning file`);
  }
  if (duplicate !== null) throw new UnusableFile(`${file} names a member twice in one object, at ${duplicate}: the first would be lost`);
  return parsed;
}
