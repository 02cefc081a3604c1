import { CLI_ACTOR } from '../oauth/audit/audit-trail.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { UserRecord } from '../oauth/store.js';
import { identitiesOfUser, removeUserIdentity, type UserIdentity } from '../oauth/users/user-identities.js';
import { printJson, printTable, UsageError, type CliIo } from './io.js';
import { required } from './subcommands.js';

// `users identities` and `users remove-identity` (issue 37): a user's sign-in identities, as the admin's Users page
// shows and removes them (and `users show --json` includes them). users.ts finds the user; these print and remove.

export const IDENTITIES_HELP = `  identities <username>                      the user's sign-in identities: provider, issuer, subject, upstream
                                             email, linked at, last sign-in
  remove-identity <username> --issuer I --subject S
                                             removes one (the next sign-in through it links it again as a first
                                             one would); the last one too: the user then signs in with a password
                                             set by set-password, or a passkey`;

export const IDENTITY_OPTIONS = { issuer: { type: 'string' }, subject: { type: 'string' } } as const;

const identityJson = (identity: UserIdentity) => ({
  issuer: identity.issuer,
  subject: identity.subject,
  provider_id: identity.providerId,
  provider: identity.providerName,
  email: identity.email,
  created_at: identity.createdAt.toISOString(),
  last_signed_in_at: identity.lastSignedInAt?.toISOString() ?? null,
});

/** The user's identities as `users identities --json` prints them, and `users show --json` includes them. */
export const identitiesJson = async (deps: OAuthDeps, userId: number) => (await identitiesOfUser(deps, userId)).map(identityJson);

export async function printIdentities(io: CliIo, deps: OAuthDeps, user: UserRecord, json: boolean | undefined): Promise<void> {
  if (json) return printJson(io, await identitiesJson(deps, user.id));
  const identities = await identitiesOfUser(deps, user.id);
  if (identities.length === 0) return io.stdout(`${user.username} has no sign-in identity\n`);
  printTable(
    io,
    ['PROVIDER', 'ISSUER', 'SUBJECT', 'EMAIL', 'LINKED AT', 'LAST SIGN-IN'],
    identities.map((identity) => {
      const { provider, issuer, subject, email, created_at, last_signed_in_at } = identityJson(identity);
      return [provider, issuer, subject, email ?? '', created_at, last_signed_in_at ?? 'never'];
    }),
  );
}

export async function removeIdentity(
  io: CliIo,
  deps: OAuthDeps,
  user: UserRecord,
  values: { issuer?: string | boolean | undefined; subject?: string | boolean | undefined; json?: boolean | undefined },
): Promise<void> {
  const key = { issuer: required(asText(values.issuer), 'issuer'), subject: required(asText(values.subject), 'subject') };
  const removal = await removeUserIdentity(deps, CLI_ACTOR, user.id, key, { keepSignIn: false });
  if (removal.outcome !== 'removed')
    throw new UsageError(`${user.username} has no identity with issuer ${key.issuer} and subject ${key.subject}`);
  if (values.json) printJson(io, { username: user.username, identity_removed: identityJson(removal.identity) });
  else io.stdout(`removed the identity ${key.subject} at ${removal.identity.providerName} from ${user.username}\n`);
}

const asText = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);
