import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamIdentity } from '../../../oauth/assertions/federated-subject-store.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import type { UserRecord } from '../../../oauth/store.js';
import { UpstreamFailure } from '../../../oauth/federation/upstream-failure.js';
import { findUpstream } from '../../../oauth/federation/upstream-providers.js';
import { createUpstreamUser } from '../../../oauth/federation/upstream-user.js';
import { attemptOrigin } from '../../attempt-origin.js';
import { checkLoginCredentials, findUser, isDisabled } from '../../../oauth/users/users.js';
import { renderPage } from '../../hooks/end-user-pages.js';
import { hasPasskeys } from '../../../oauth/passkeys/passkeys.js';
import { passkeyScriptTags } from '../../passkeys/passkey-scripts.js';
import { passkeysUsable, relyingParty } from '../../passkeys/relying-party.js';
import { continueAfterUpstream } from './upstream-continue.js';
import { auditLinkPasswordFailed, auditUpstreamUserCreated } from './upstream-audit.js';
import { keepProvenLink } from './upstream-link-proven.js';
import { upstreamFailurePage } from './upstream-failure-page.js';

// /login/upstream/link (issue 37 item 3): an upstream identity seen for the first time whose email (or user name) a
// local user has, where the provider does not link by verified email. Nobody is linked on the upstream's word: the
// user signs in to the local account once with its password (and its second step, as at /login), then the identity is
// linked to it (upstream-link-proven.ts). Or, where the provider creates users, they say it is not theirs and get a
// separate account. Or with one of the account's passkeys (upstream-link-passkey.ts).

export const LINK_PATH = '/login/upstream/link';
const LINK_MS = 5 * 60_000;
// As after a wrong password at /login.
const FAILURE_DELAY_MS = 300;

export function startLink(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, identity: UpstreamIdentity, userIds: number[]) {
  request.session.set('upstreamLink', { identity, userId: userIds[0]!, userIds, until: deps.now().getTime() + LINK_MS });
  return reply.redirect(LINK_PATH, 303);
}

interface LinkForm {
  username?: string;
  password?: string;
  action?: string;
}

export const linkBody = {
  type: 'object',
  properties: {
    password: { type: 'string', maxLength: 1024, description: "The local account's password." },
    action: { type: 'string', enum: ['new'], description: 'new: a separate account instead of linking.' },
    username: {
      type: 'string',
      maxLength: 255,
      description: 'Which account, when several here hold the email; else ignored (for password managers).',
    },
    _csrf: { type: 'string', description: 'CSRF token of the form.' },
  },
} as const;

type PendingLink = NonNullable<Awaited<ReturnType<typeof pendingLink>>>;

/** The waiting link, its provider and local user; null when there is none (or it expired, or the user is gone). */
export async function pendingLink(deps: OAuthDeps, request: FastifyRequest) {
  const link = request.session.get('upstreamLink');
  if (link === undefined || link.until <= deps.now().getTime()) return null;
  const entry = findUpstream(deps.config, link.identity.providerId);
  const user = await findUser(deps, link.userId);
  return entry === null || user === null || isDisabled(user) ? null : { link, entry, user, several: (link.userIds?.length ?? 1) > 1 };
}

/** What made the account a match, for the page to name: its email when that is the upstream's, else its user name. */
function matchedBy(upstreamEmail: string | null, user: UserRecord): string {
  const sameEmail = upstreamEmail !== null && user.email !== null && user.email.toLowerCase() === upstreamEmail.toLowerCase();
  return sameEmail ? upstreamEmail : user.username;
}

/** The page that asks for the local account's password or one of its passkeys (or a separate account). */
async function linkPage(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, { link, entry, user }: PendingLink, error?: string) {
  const { t } = request.pageLanguage;
  const several = (link.userIds?.length ?? 1) > 1;
  // Several accounts hold the email: the user names theirs (and proves it by its password; a passkey is one account's).
  const passkeys = !several && (await offersPasskeys(deps, user.id));
  const username = several ? ((request.body as LinkForm | undefined)?.username ?? '') : user.username;
  // The password, unless the user name is still to be typed (several accounts: after an error without one).
  const focus = !several || (Boolean(error) && username.trim() !== '') ? 'password' : error ? 'username' : null;
  return renderPage(request, reply, 'upstream-link.eta', {
    title: t('upstream.linkTitle', { name: entry.name }),
    intro: t('upstream.linkIntro', { name: entry.name, who: matchedBy(link.identity.email, user) }),
    username,
    chooseAccount: several,
    error,
    focus,
    csrfToken: reply.generateCsrf(),
    mayCreate: entry.createUsers,
    passkeyScripts: passkeys ? passkeyScriptTags() : [],
  });
}

function expired(request: FastifyRequest, reply: FastifyReply) {
  request.session.set('upstreamLink', undefined);
  request.session.set('notice', request.pageLanguage.t('upstream.linkExpired'));
  return reply.redirect('/login', 303);
}

/** The page offers the account's passkeys where browsers can use them (a domain rp id) and it has some. */
const offersPasskeys = async (deps: OAuthDeps, userId: number): Promise<boolean> =>
  passkeysUsable(relyingParty(deps.config)) && (await hasPasskeys(deps, userId));

export async function showLink(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply) {
  const pending = await pendingLink(deps, request);
  if (pending === null) return expired(request, reply);
  return linkPage(deps, request, reply, pending);
}

export async function submitLink(deps: OAuthDeps, request: FastifyRequest<{ Body: LinkForm }>, reply: FastifyReply) {
  const pending = await pendingLink(deps, request);
  if (pending === null) return expired(request, reply);
  const { link, entry, user, several } = pending;
  try {
    if (request.body?.action === 'new') {
      request.session.set('upstreamLink', undefined);
      // The form offers it only where the provider creates users; a hand-made post gets what that provider answers.
      if (!entry.createUsers) throw new UpstreamFailure('no_user', 'no local user, and createUsers is off');
      const created = await createUpstreamUser(deps, entry, link.identity);
      await auditUpstreamUserCreated(deps, request, created, entry.id);
      signInAs(request, created.id);
      return await continueAfterUpstream(deps, request, reply, created);
    }
    const username = several ? (request.body?.username ?? '') : user.username;
    const check = await checkLoginCredentials(deps, username, request.body?.password ?? '', attemptOrigin(request));
    const candidates = link.userIds ?? [link.userId];
    if (check.outcome !== 'succeeded' || !candidates.includes(check.user.id)) {
      request.log.info({ event: 'login.upstream_link_failed', provider: entry.id, userId: user.id }, 'proof of the local account failed');
      await auditLinkPasswordFailed(deps, request, username, check.outcome === 'locked_out' ? 'locked_out' : 'failed', entry.id);
      await sleep(FAILURE_DELAY_MS);
      const status = check.outcome === 'locked_out' ? 429 : 401;
      const error =
        check.outcome === 'locked_out'
          ? request.pageLanguage.t('login.lockedOut', { seconds: check.retryAfter })
          : request.pageLanguage.t('upstream.linkFailed');
      return linkPage(deps, request, reply.code(status), pending, error);
    }
    keepProvenLink(request, check.user, 'password');
    signInAs(request, check.user.id);
    // The upstream's amr is its own account's: our second step for this one runs as after /login's password.
    return await continueAfterUpstream(deps, request, reply, check.user, { upstreamFactorsCount: false });
  } catch (error) {
    if (error instanceof UpstreamFailure) return upstreamFailurePage(deps, request, reply, entry, error);
    throw error;
  }
}

/** The upstream sign-in waiting in the session is now this user's (the one proven, or the one just created). */
export function signInAs(request: FastifyRequest, userId: number): void {
  const upstream = request.session.get('upstreamSignIn');
  if (upstream !== undefined) request.session.set('upstreamSignIn', { ...upstream, userId });
}
