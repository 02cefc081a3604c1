import { constantTimeEqual } from '../secrets.js';
import {
  ADDRESS_FIELDS,
  BOOLEAN_CLAIMS,
  resolveProfile,
  STRING_CLAIMS,
  UserInvalid,
  type AddressField,
  type ProfileInput,
} from '../users/user-profile.js';
import {
  createUserWithPasswordHash,
  deleteUser,
  findUserByUsername,
  listUsers,
  passwordHashProblems,
  setUserPasswordHash,
  updateUserProfile,
} from '../users/users.js';
import type { DeclaredObject } from './declared-object.js';
import { fieldProblems, type KindHandler } from './outcome.js';

// `users` of a provisioning file: the local users who sign in, identified by username. Their claims are declared in
// full (those left out are cleared), as `users show --json` prints them; the password only as an argon2id hash
// (`oauth-service admin hash-password`), never in plain. A user declared without one is created with a password
// nobody knows (an admin sets one with `users set-password`), and keeps the one they have afterwards.

export interface DeclaredUser {
  path: string;
  username: string;
  passwordHash: string | undefined;
  profile: ProfileInput;
}

const CLAIMS = [...STRING_CLAIMS.map(({ claim }) => claim), ...BOOLEAN_CLAIMS.map(({ claim }) => claim), 'address'];

// The claim (or address member) each of the domain's field names is, in the file.
const fileField = (field: string) =>
  field === 'username' || field === 'password_hash'
    ? field
    : field.startsWith('address_')
      ? `claims.address.${field.slice('address_'.length)}`
      : `claims.${field}`;

const CLAIM_OF = new Map<string, string>([...STRING_CLAIMS, ...BOOLEAN_CLAIMS].map(({ field, claim }) => [field, claim]));

export const declaredUsers: KindHandler<DeclaredUser> = {
  member: 'users',
  fields: ['username', 'password_hash', 'claims'],
  identityField: 'username',
  identity: (user) => user.username,

  read(object) {
    const username = object.string('username', { required: true });
    const passwordHash = object.string('password_hash');
    const profile = profileOf(object.object('claims', CLAIMS));
    return username === undefined ? null : { path: object.path, username, passwordHash, profile };
  },

  async apply(deps, declared, outcome) {
    const current = await findUserByUsername(deps, declared.username);
    try {
      if (current === null) {
        await createUserWithPasswordHash(deps, declared.username, declared.passwordHash ?? null, declared.profile);
        outcome.changes.push({ kind: 'user', name: declared.username, action: 'created', fields: [] });
        return;
      }
      // Both checked before anything is written, so that the file's every problem is named, as at a creation.
      const { changes, errors } = resolveProfile(current, declared.profile);
      const hashErrors = declared.passwordHash === undefined ? {} : passwordHashProblems(declared.passwordHash);
      if (Object.keys(errors).length + Object.keys(hashErrors).length > 0) throw new UserInvalid({ ...hashErrors, ...errors });
      const fields = Object.keys(changes).map((field) => CLAIM_OF.get(field) ?? field);
      if (fields.length > 0) await updateUserProfile(deps, current, declared.profile);
      if (declared.passwordHash !== undefined && !constantTimeEqual(declared.passwordHash, current.passwordHash)) {
        await setUserPasswordHash(deps, current, declared.passwordHash);
        fields.push('password_hash');
      }
      outcome.changes.push({ kind: 'user', name: declared.username, action: fields.length > 0 ? 'updated' : 'unchanged', fields });
    } catch (error) {
      if (!(error instanceof UserInvalid)) throw error;
      outcome.problems.push(...fieldProblems(declared.path, error.fieldErrors, fileField));
    }
  },

  // Deleting a user revokes their tokens and grants first (users.ts deleteUser), in the same transaction.
  async prune(deps, declared, outcome) {
    const usernames = new Set(declared.map((user) => user.username));
    for (const user of await listUsers(deps)) {
      if (usernames.has(user.username)) continue;
      await deleteUser(deps, user);
      outcome.changes.push({ kind: 'user', name: user.username, action: 'deleted', fields: [] });
    }
  },
};

/** Every claim: the declared value, or none (null, false); the address replaced as a whole, not merged. */
function profileOf(claims: DeclaredObject | null): ProfileInput {
  const profile: ProfileInput = {};
  for (const { field, claim } of STRING_CLAIMS) profile[field] = claims?.nullableString(claim) ?? null;
  for (const { field, claim } of BOOLEAN_CLAIMS) profile[field] = claims?.boolean(claim) ?? false;
  const address = claims?.object('address', ADDRESS_FIELDS);
  profile.address = address
    ? Object.fromEntries(ADDRESS_FIELDS.map((member: AddressField) => [member, address.nullableString(member) ?? null]))
    : null;
  return profile;
}
