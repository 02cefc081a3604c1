import type { Readonly, Config } from '../../../config/types.js';
import { REGISTRABLE_GRANT_TYPES } from './client-registration-metadata.js';
import { InvalidToken } from '../../errors.js';
import { generateSecret, sha256Hex } from '../../secrets.js';
import type { RegistrationStore, RegistrationTokenRecord, LockedRegistrations } from './registration-store.js';

// Initial access tokens (RFC 7591 section 3, policy initialAccessToken): an admin makes one with
// `oauth-service registration-tokens create`, and a client presents it as a Bearer token to register. Only the
// SHA-256 hex of a token is stored; the plain token is shown once, when it is made.

type TokenDeps = {
  stores: { registrations: RegistrationStore };
  now: () => Date;
  config: Pick<Readonly<Config>, 'defaultScopes' | 'optionalScopes'>;
};

export interface NewRegistrationToken {
  /** Shown once: only its hash is stored. */
  plainToken: string;
  record: RegistrationTokenRecord;
}

export const MAX_TOKEN_USES = 1_000_000;
export const MAX_TOKEN_SECONDS = 10 * 365 * 86_400;

export interface RegistrationTokenOptions {
  uses: number | null;
  expiresInSeconds: number | null;
  /** Issue 29: what its clients may have beyond the registration policy (none when left out). */
  grantTypes?: readonly string[];
  scopes?: readonly string[];
}

/** A token's allowance that is not a registrable grant type or not a server scope (the operator mistyped it). */
export class RegistrationTokenInvalid extends Error {}

/**
 * A new initial access token: `uses` registrations (null: unlimited), until `expiresInSeconds` (null: never), its
 * clients allowed `grantTypes` and `scopes` beyond the registration policy.
 */
export async function createRegistrationToken(
  deps: TokenDeps,
  { uses, expiresInSeconds, grantTypes = [], scopes = [] }: RegistrationTokenOptions,
): Promise<NewRegistrationToken> {
  if (uses !== null && !(Number.isInteger(uses) && uses >= 1 && uses <= MAX_TOKEN_USES)) throw new RangeError('uses out of range');
  if (expiresInSeconds !== null && !(Number.isInteger(expiresInSeconds) && expiresInSeconds >= 1 && expiresInSeconds <= MAX_TOKEN_SECONDS))
    throw new RangeError('expiresInSeconds out of range');
  const grant = grantTypes.find((name) => !(REGISTRABLE_GRANT_TYPES as readonly string[]).includes(name));
  if (grant !== undefined)
    throw new RegistrationTokenInvalid(`grant type ${grant} cannot be registered (one of ${REGISTRABLE_GRANT_TYPES.join(', ')})`);
  const serverScopes = new Set([...deps.config.defaultScopes, ...deps.config.optionalScopes]);
  const scope = scopes.find((name) => !serverScopes.has(name));
  if (scope !== undefined) throw new RegistrationTokenInvalid(`scope ${scope} is not one of defaultScopes or optionalScopes`);
  const plainToken = generateSecret();
  const expiresAt = expiresInSeconds === null ? null : new Date(deps.now().getTime() + expiresInSeconds * 1000);
  const record = await deps.stores.registrations.createToken({
    token: sha256Hex(plainToken),
    usesRemaining: uses,
    expiresAt,
    grantTypes: [...new Set(grantTypes)],
    scopes: [...new Set(scopes)],
  });
  return { plainToken, record };
}

/** Whether a token may register now: 'usable', or why not. */
export function tokenState(record: RegistrationTokenRecord, now: Date): 'usable' | 'revoked' | 'expired' | 'used up' {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && record.expiresAt <= now) return 'expired';
  if (record.usesRemaining !== null && record.usesRemaining <= 0) return 'used up';
  return 'usable';
}

/**
 * RFC 7591 section 3 / RFC 6750 section 3.1: a missing, unknown, revoked, expired or used-up token is invalid_token.
 * The usable token's record: its hash is what registration uses, its grant types and scopes what it allows.
 */
export async function checkInitialAccessToken(deps: Omit<TokenDeps, 'config'>, token: string | null): Promise<RegistrationTokenRecord> {
  if (token === null) throw new InvalidToken('missing');
  const record = await deps.stores.registrations.findUsableToken(sha256Hex(token), deps.now());
  if (!record) throw new InvalidToken();
  return record;
}

/** Uses the checked token once; another request may have used its last use in the meantime (invalid_token). */
export async function useInitialAccessToken(locked: Pick<LockedRegistrations, 'useToken'>, hash: string, at: Date): Promise<void> {
  if (!(await locked.useToken(hash, at))) throw new InvalidToken();
}

export function listRegistrationTokens(deps: TokenDeps): Promise<RegistrationTokenRecord[]> {
  return deps.stores.registrations.listTokens();
}

/** The token stops working at once; false when there is no such token or it was revoked already. */
export function revokeRegistrationToken(deps: TokenDeps, id: number): Promise<boolean> {
  return deps.stores.registrations.revokeToken(id, deps.now());
}
