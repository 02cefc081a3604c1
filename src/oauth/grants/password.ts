import { recordDomainEvent } from '../audit/audit-trail.js';
import { signInEvent, type SignInOutcome } from '../audit/sign-in-events.js';
import { requireClient } from '../clients/client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidGrant, InvalidRequest, TooManyRequests } from '../errors.js';
import type { ResourceOwner } from '../hooks.js';
import { shownJson } from '../json-nesting.js';
import { secondStepNeeded, serverRequiresSecondFactor } from '../second-factor/second-factors.js';
import { verifyUserPassword } from '../users/passwords.js';
import { optionalParameter, requireParameter, resourceParameters } from '../request-parameters.js';
import { resolveAudience } from '../resources/resource-indicators.js';
import { issueAccessToken } from '../tokens/token-issuer.js';
import { isDisabled, MAX_PASSWORD_LENGTH } from '../users/users.js';
import { canonicalUsername, findUserNamed } from '../users/usernames.js';
import { admitClient, issuesRefreshToken, recordDpopProof } from './client-admission.js';
import type { GrantHandler, GrantResult } from './grant.js';
import type { PasswordOutcome } from '../limits/attempt-limits.js';
import type { CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import type { ApplicationRecord, UserRecord } from '../store.js';
import { grantedScopes } from './requested-scopes.js';
import { reusableToken } from './reuse.js';

const MAX_USERNAME_LENGTH = 255;

/** RFC 6749 section 4.3: username and password of a local user (or the extension's resolver). Off by default. */
export const passwordGrant: GrantHandler = async (deps, { parameters, credentials, address, dpopProof }) => {
  const username = requireParameter(parameters, 'username');
  const password = requireParameter(parameters, 'password');
  const application = await requireClient(deps, credentials);
  await admitClient(deps, 'password', application, dpopProof);
  // As /login's form takes them: no user name is longer, and a refused one is written to the audit trail and the
  // limiter's keys, which a 15 KB name would fill.
  if ([...username].length > MAX_USERNAME_LENGTH || [...password].length > MAX_PASSWORD_LENGTH) {
    throw new InvalidRequest(`The username may have at most ${MAX_USERNAME_LENGTH} characters, the password ${MAX_PASSWORD_LENGTH}.`);
  }
  // RFC 6749 section 4.3.2: the server MUST protect this endpoint against brute force; it shares the
  // failure limits of /login, so neither is a way round the other's lockout.
  const attempt = await deps.limits.users.begin(
    'password_grant',
    canonicalUsername(username),
    { address, requestId: credentials?.requestId },
    deps.now,
  );
  // A sign-in like /login's, in the audit trail (issue 32 item 7), named as coming from this client's token request.
  const recordSignIn = (result: SignInOutcome) =>
    recordDomainEvent(deps, signInEvent(result, username, address, { via: 'password_grant', client_id: application.uid }));
  if (attempt.refused) {
    await recordSignIn({ outcome: 'locked_out' });
    throw new TooManyRequests(attempt.retryAfter, 'Too many failed sign-in attempts.');
  }
  let outcome: PasswordOutcome = 'unchecked';
  let owner: ResourceOwner | null = null;
  try {
    const signedIn = await resourceOwnerFromCredentials(deps, username, password);
    owner = signedIn?.owner ?? null;
    outcome = owner ? 'succeeded' : 'failed';
    if (!owner) throw new InvalidGrant();
    // behaviour.md 3.19: a user whose sign-in asks for a second factor never signs in with the password alone. Counted
    // as a failure, as a wrong password is: /login tells as much (its second step), under the same limits.
    if (await secondFactorDue(deps, signedIn!.user, application)) {
      outcome = 'failed';
      throw new InvalidGrant(SECOND_FACTOR_DUE);
    }
    const result = await issueFor(
      deps,
      application,
      owner,
      optionalParameter(parameters, 'scope'),
      resourceParameters(parameters),
      dpopProof ?? null,
    );
    if (!(await ownerStillEnabled(deps, owner))) {
      await deps.stores.accessTokens.revoke(result.issued.record.id, deps.now());
      outcome = 'failed';
      throw new InvalidGrant();
    }
    return result;
  } finally {
    attempt.settle(outcome, deps.now());
    // 'unchecked': the request failed before the password was looked at (a bad scope, an unknown resource).
    if (outcome !== 'unchecked') await recordSignIn(outcome === 'succeeded' && owner ? { outcome, user: owner } : { outcome: 'failed' });
  }
};

/**
 * docs/extending.md: the hook answers `{ id }` with an integer id, or null to refuse. Anything else is the extension's
 * mistake, never a sign-in: `true` or `{}` issued tokens of no user for any password (an extensions audit), and an id
 * of another type reached the database as a 500 of PostgreSQL's. A 500 naming the hook (logged, never shown).
 */
function checkedOwner(answer: unknown): ResourceOwner | null {
  if (answer === null || answer === undefined) return null;
  const id = typeof answer === 'object' ? (answer as { id?: unknown }).id : undefined;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return answer as ResourceOwner;
  throw new Error(
    `the resourceOwnerFromCredentials hook returned ${shownJson(answer)}: it must return { id: <a positive integer>, ... } or null`,
  );
}

/**
 * Read again once the token is stored: an admin may have disabled or deleted the user while the password was being
 * verified. Disabling sets disabled_at first and then revokes the user's tokens (deleting does the same before it
 * deletes), so a token stored before that revocation is revoked by it, and one stored after it is seen here as the
 * token of a user who is no longer enabled, revoked, and never handed out. Owners from the extension's resolver
 * are not local users: theirs is the extension's to decide.
 */
async function ownerStillEnabled(deps: OAuthDeps, owner: ResourceOwner): Promise<boolean> {
  if (deps.hooks.resourceOwnerFromCredentials) return true;
  const user = await deps.stores.users.findById(owner.id);
  return user !== null && !isDisabled(user);
}

async function issueFor(
  deps: OAuthDeps,
  application: ApplicationRecord,
  owner: ResourceOwner,
  scopeParameter: string | undefined,
  resources: string[],
  dpopProof: CheckedDpopProof | null,
): Promise<GrantResult> {
  const scopes = grantedScopes(deps, application, scopeParameter, { allowEmpty: true });
  const audience = await resolveAudience(deps, resources, scopes);
  const withRefreshToken = issuesRefreshToken(deps, application, scopes);
  const dpopJkt = dpopProof ? dpopProof.jkt : null;
  // RFC 9449 section 11.1: the proof is recorded against replay only now that the grant issues (client-admission.ts).
  if (dpopProof) await recordDpopProof(deps, dpopProof);

  const reused = await reusableToken(deps, application, {
    applicationId: application.id,
    resourceOwnerId: owner.id,
    scopes,
    at: deps.now(),
    withRefreshToken,
    audience: audience.uris,
    dpopJkt,
  });
  if (reused) return { issued: reused, application };
  const issued = await issueAccessToken(deps, {
    application,
    resourceOwnerId: owner.id,
    scopes,
    grantType: 'password',
    withRefreshToken,
    audience,
    dpopJkt,
  });
  return { issued, application };
}

const SECOND_FACTOR_DUE =
  'This user signs in with a second factor, which the password grant cannot ask for: sign in through the authorization endpoint.';

/**
 * Whether /login would ask this local user for a second step (their policy, their app, the server's policy for the
 * client); an owner from the extension's resolver (no local user) is the extension's to decide.
 */
async function secondFactorDue(deps: OAuthDeps, user: UserRecord | null, application: ApplicationRecord): Promise<boolean> {
  return user !== null && secondStepNeeded(deps, user, serverRequiresSecondFactor(deps.config, application.uid));
}

/** The owner the credentials sign in, with the local user behind it (null for the extension's resolver's); or null. */
async function resourceOwnerFromCredentials(
  deps: OAuthDeps,
  username: string,
  password: string,
): Promise<{ owner: ResourceOwner; user: UserRecord | null } | null> {
  if (deps.hooks.resourceOwnerFromCredentials) {
    const owner = checkedOwner(await deps.hooks.resourceOwnerFromCredentials(username, password));
    return owner && { owner, user: null };
  }
  const user = await findUserNamed(deps.stores.users, username);
  // A disabled user is refused like a wrong password (invalid_grant), after the same verification.
  const verified = await verifyUserPassword(deps.passwords, user, password);
  return verified && user && !isDisabled(user) ? { owner: { id: user.id }, user } : null;
}
