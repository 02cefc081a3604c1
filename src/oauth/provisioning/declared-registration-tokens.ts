import { REGISTRABLE_GRANT_TYPES } from '../clients/registration/client-registration-metadata.js';
import type { OAuthDeps } from '../deps.js';
import { namesRealMoment } from '../calendar-date.js';
import {
  listRegistrationTokens,
  MAX_TOKEN_SECONDS,
  MAX_TOKEN_USES,
  revokeRegistrationToken,
  tokenState,
} from '../clients/registration/registration-tokens.js';
import type { RegistrationTokenRecord } from '../clients/registration/registration-store.js';
import type { DeclaredObject } from './declared-object.js';
import type { KindHandler, Outcome } from './outcome.js';

// `registration_tokens` of a provisioning file: initial access tokens (RFC 7591 section 3), declared by the SHA-256
// of the token, which is all the database keeps of one. The plain token never is in the file: the operator makes it
// (`openssl rand -base64 32 | tr -d =/+ | tr -d '\n'`, 43 characters or more) and hands it to the client's operator;
// the file holds `printf %s "$TOKEN" | sha256sum`. A token cannot be changed once made (revoke it and declare another),
// so `uses` is what it starts with: its uses left go down as clients register. A token that expired or was used up
// is still the one declared (its lifecycle ran as the file said); a revoked one declared again is a problem.

export interface DeclaredRegistrationToken {
  path: string;
  hash: string;
  uses: number | null;
  expiresAt: Date | null;
  grantTypes: string[];
  scopes: string[];
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const declaredRegistrationTokens: KindHandler<DeclaredRegistrationToken> = {
  member: 'registration_tokens',
  fields: ['token_sha256', 'uses', 'expires_at', 'grant_types', 'scopes'],
  identityField: 'token_sha256',
  identity: (token) => token.hash,

  read(object) {
    const hash = object.string('token_sha256', { required: true })?.toLowerCase();
    if (hash !== undefined && !SHA256_HEX.test(hash)) object.problem('token_sha256', 'must be the SHA-256 of the token, 64 hex digits');
    const uses = object.integer('uses', 1, MAX_TOKEN_USES);
    const expiresAt = timestamp(object, 'expires_at');
    const grantTypes = object.tokens('grant_types', 'one grant type');
    grantTypes.forEach((grant, index) => {
      if (!(REGISTRABLE_GRANT_TYPES as readonly string[]).includes(grant))
        object.problem(
          `grant_types[${index}]`,
          `${grant} is not a grant type a client can register (${REGISTRABLE_GRANT_TYPES.join(', ')})`,
        );
    });
    const scopes = object.tokens('scopes', 'one scope');
    // A member of the wrong type is a problem already, which stops the run: null stands in for it.
    if (hash === undefined || !SHA256_HEX.test(hash)) return null;
    return { path: object.path, hash, uses: uses ?? null, expiresAt, grantTypes: [...new Set(grantTypes)], scopes: [...new Set(scopes)] };
  },

  async apply(deps, declared, outcome) {
    const existing = (await listRegistrationTokens(deps)).find((token) => token.token === declared.hash);
    const name = declared.hash.slice(0, 12);
    if (existing === undefined) {
      if (refusedOnCreation(deps, declared, outcome)) return;
      const { hash: token, uses: usesRemaining, expiresAt, grantTypes, scopes } = declared;
      await deps.stores.registrations.createToken({ token, usesRemaining, expiresAt, grantTypes, scopes });
      outcome.changes.push({ kind: 'registration_token', name, action: 'created', fields: [] });
    } else if (existing.revokedAt !== null) {
      // Declaring it again would claim a state that cannot hold: nothing makes a revoked token usable again.
      outcome.problems.push(
        `${declared.path}: the token ${name}... was revoked (id ${existing.id}) and cannot be used again: ` +
          'declare a new token, or leave this one out of the file',
      );
    } else if (differs(existing, declared)) {
      outcome.problems.push(
        `${declared.path}: the token ${name}... exists (id ${existing.id}) with another expires_at, grant_types or scopes, ` +
          'and a token cannot be changed: revoke it (registration-tokens revoke) and declare a new one',
      );
    } else outcome.changes.push({ kind: 'registration_token', name, action: 'unchanged', fields: [] });
  },

  // Revoked, not deleted (nothing deletes a token): the live ones the file does not name stop working at once.
  async prune(deps, declared, outcome) {
    const hashes = new Set(declared.map((token) => token.hash));
    for (const token of await listRegistrationTokens(deps)) {
      if (hashes.has(token.token) || tokenState(token, deps.now()) !== 'usable') continue;
      await revokeRegistrationToken(deps, token.id);
      outcome.changes.push({ kind: 'registration_token', name: token.token.slice(0, 12), action: 'revoked', fields: [] });
    }
  },
};

/** An ISO 8601 time with its offset (2027-01-31T00:00:00Z); null when absent (none) or wrong (a problem). */
function timestamp(object: DeclaredObject, key: string): Date | null {
  const value = object.nullableString(key);
  if (value === null || value === undefined) return null;
  const form = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  const date = form && namesRealMoment(value) ? new Date(value) : null;
  if (date !== null && !Number.isNaN(date.getTime())) return date;
  object.problem(
    key,
    `must be a time on the calendar with its offset, such as 2027-01-31T00:00:00Z, not ${JSON.stringify(value.slice(0, 40))}`,
  );
  return null;
}

// What createRegistrationToken refuses too, named by its place in the file: an expiry in the past or too far, a
// scope this server does not have.
function refusedOnCreation(deps: OAuthDeps, declared: DeclaredRegistrationToken, outcome: Outcome): boolean {
  const problems: string[] = [];
  const seconds = declared.expiresAt && (declared.expiresAt.getTime() - deps.now().getTime()) / 1000;
  if (seconds !== null && seconds <= 0) problems.push(`${declared.path}.expires_at: is in the past`);
  if (seconds !== null && seconds > MAX_TOKEN_SECONDS) problems.push(`${declared.path}.expires_at: is more than ten years away`);
  const serverScopes = new Set([...deps.config.defaultScopes, ...deps.config.optionalScopes]);
  declared.scopes.forEach((scope, index) => {
    if (!serverScopes.has(scope))
      problems.push(`${declared.path}.scopes[${index}]: ${scope} is not one of defaultScopes or optionalScopes`);
  });
  outcome.problems.push(...problems);
  return problems.length > 0;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value) => b.includes(value));

function differs(existing: RegistrationTokenRecord, declared: DeclaredRegistrationToken): boolean {
  return (
    existing.expiresAt?.getTime() !== declared.expiresAt?.getTime() ||
    !sameList(existing.grantTypes, declared.grantTypes) ||
    !sameList(existing.scopes, declared.scopes)
  );
}
