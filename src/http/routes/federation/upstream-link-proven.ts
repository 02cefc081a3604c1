import type { FastifyRequest } from 'fastify';
import type { UpstreamIdentity } from '../../../oauth/assertions/federated-subject-store.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { UpstreamFailure } from '../../../oauth/federation/upstream-failure.js';
import { linkUpstreamIdentity } from '../../../oauth/federation/upstream-user.js';
import type { UserRecord } from '../../../oauth/store.js';
import { auditIdentityLinked } from './upstream-audit.js';

// The link of an upstream identity to the local account that proved itself at /login/upstream/link (issue 37 item 3),
// written when the sign-in into that account completes (finishSignIn): after the password *and* the account's second
// step, as /login asks them. Linked at the password alone, the identity was a way into an account with a second
// factor for whoever knew its password only: the upstream account is theirs, and its own amr may say "mfa".

declare module '@fastify/secure-session' {
  interface SessionData {
    /**
     * An upstream identity waiting for the proof of the local account `userId`, or of any of `userIds` when several
     * hold its email (epoch ms `until`). `proven`: the account proved itself this way; the link is written once its
     * sign-in completes.
     */
    upstreamLink: { identity: UpstreamIdentity; userId: number; userIds?: number[]; until: number; proven?: 'password' | 'passkey' };
  }
}

/** The account `user` proved itself by `by`: its sign-in, once complete, links the identity waiting in the session. */
export function keepProvenLink(request: FastifyRequest, user: UserRecord, by: 'password' | 'passkey'): void {
  const link = request.session.get('upstreamLink');
  if (link !== undefined) request.session.set('upstreamLink', { identity: link.identity, userId: user.id, until: link.until, proven: by });
}

/**
 * At the end of `user`'s sign-in: the identity their proof was for is linked to them (and the upstream sign-in in the
 * session stays theirs). An identity linked meanwhile to another account, or that cannot be linked, is not: the
 * sign-in goes on as the local account that proved itself, without the upstream's part.
 */
export async function linkProvenIdentity(deps: OAuthDeps, request: FastifyRequest, user: UserRecord): Promise<void> {
  const link = request.session.get('upstreamLink');
  if (link?.proven === undefined || link.userId !== user.id) return;
  request.session.set('upstreamLink', undefined);
  const { identity } = link;
  let linked: UserRecord | null = null;
  if (link.until > deps.now().getTime()) {
    try {
      linked = await linkUpstreamIdentity(deps, identity, user);
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
    }
  }
  if (linked?.id !== user.id) {
    request.log.info(
      { event: 'login.upstream_link_dropped', provider: identity.providerId, userId: user.id },
      'upstream identity not linked',
    );
    if (request.session.get('upstreamSignIn')?.userId === user.id) request.session.set('upstreamSignIn', undefined);
    return;
  }
  await auditIdentityLinked(deps, request, linked, identity, link.proven);
  request.log.info(
    { event: 'login.upstream_linked', provider: identity.providerId, userId: user.id, by: link.proven },
    'upstream identity linked after proof',
  );
}
