import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { upstreamShowsTwoFactors } from '../../../oauth/federation/upstream-amr.js';
import type { UpstreamSignedIn } from '../../../oauth/federation/upstream-sign-in.js';
import { secondStepNeeded } from '../../../oauth/second-factor/second-factors.js';
import type { UserRecord } from '../../../oauth/store.js';
import { afterLogin, finishSignIn } from '../../complete-sign-in.js';
import { startSecondStep } from '../second-factor/second-step.js';
import { auditUpstreamSignIn } from './upstream-audit.js';

// After the upstream (and, if asked, the proof of the local account): the user is known. The upstream sign-in is kept
// in the session for finishSignIn, then our second step runs when it would after a password, unless the upstream's amr
// shows two factors already (upstream-amr.ts), and the browser goes back where the sign-in was asked for.

const UPSTREAM_SIGN_IN_MS = 5 * 60_000;

export function keepUpstreamSignIn(
  deps: OAuthDeps,
  request: FastifyRequest,
  providerId: string,
  signedIn: UpstreamSignedIn,
  userId: number,
) {
  request.session.set('upstreamSignIn', {
    userId,
    providerId,
    subject: signedIn.claims.sub,
    sessionId: signedIn.sessionId,
    idToken: signedIn.idToken,
    amr: signedIn.amr,
    until: deps.now().getTime() + UPSTREAM_SIGN_IN_MS,
  });
}

/**
 * `upstreamFactorsCount: false`: the user proved a local account they were not linked to yet (upstream-link.ts), so
 * the upstream's factors are no proof of it: our second step runs whenever /login's would.
 */
export async function continueAfterUpstream(
  deps: OAuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  { upstreamFactorsCount = true }: { upstreamFactorsCount?: boolean } = {},
) {
  const upstream = request.session.get('upstreamSignIn');
  const upstreamAmr = upstream?.amr ?? [];
  // The upstream's sign-in, completed there, with its provider; our second step, when one is owed, records its own.
  if (upstream !== undefined) await auditUpstreamSignIn(deps, request, user, upstream.providerId);
  const returnTo = afterLogin(request);
  const requested = request.session.get('secondFactorWanted') === returnTo;
  const passkeyRequested = request.session.get('passkeyStepWanted') === returnTo;
  if (!(upstreamFactorsCount && upstreamShowsTwoFactors(upstreamAmr)) && (await secondStepNeeded(deps, user, requested, passkeyRequested)))
    return startSecondStep(deps, request, reply, user);
  return reply.redirect(await finishSignIn(deps, request, user, []), 303);
}
