import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { UpstreamFailure } from '../../../oauth/federation/upstream-failure.js';
import {
  endUpstreamLoginSessions,
  InvalidLogoutToken,
  upstreamEndSessionUrl,
  verifyUpstreamLogoutToken,
} from '../../../oauth/federation/upstream-logout.js';
import { findUpstream } from '../../../oauth/federation/upstream-providers.js';
import { liveLoginSession } from '../../../oauth/sessions/login-sessions.js';
import { announceEndedSession } from '../../end-login-session.js';
import { noStore } from '../../no-store.js';

// Issue 37 item 4 at the HTTP edge: where POST /logout goes after ending our session, and the upstream's back-channel
// logout endpoint, POST /login/upstream/:id/backchannel-logout (the backchannel_logout_uri to register at it).

/**
 * The upstream's end-session URL for the browser's current session (read before it ends), or null. An upstream that
 * cannot be reached does not keep the user signed in here: the logout goes on to /login, and the log says why.
 */
export async function upstreamLogoutTarget(deps: OAuthDeps, request: FastifyRequest): Promise<string | null> {
  const key = request.session.get('sessionKey');
  if (typeof key !== 'string') return null;
  const found = await liveLoginSession(deps, key);
  if (found === null) return null;
  try {
    return await upstreamEndSessionUrl(deps, found.session, `${deps.config.baseUrl.replace(/\/+$/, '')}/login`);
  } catch (error) {
    const reason = error instanceof UpstreamFailure ? error.reason : (error as Error).message;
    request.log.info(
      { event: 'logout.upstream_unreachable', provider: found.session.upstreamProviderId, reason },
      'upstream session not ended',
    );
    return null;
  }
}

export const backchannelLogoutBody = {
  type: 'object',
  required: ['logout_token'],
  properties: { logout_token: { type: 'string', minLength: 1, maxLength: 16384, description: 'The upstream’s logout token (a JWT).' } },
} as const;

/**
 * A body that is no form with one logout_token (none, two, a JSON object): the upstream's server gets the JSON error of
 * section 2.8 as for a refused token, not the HTML page of the end-user routes around it. Other errors go on to those.
 */
export function backchannelLogoutBodyRefused(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.validation === undefined) throw error;
  noStore(reply, { pragma: false });
  return reply.code(400).send({
    error: 'invalid_request',
    error_description: 'The request must carry one logout_token, a JWT, as a form (Back-Channel Logout 1.0 section 2.5).',
  });
}

/** Back-Channel Logout 1.0 section 2.8: 200 once the sessions are ended, 400 with an OAuth error body when refused. */
export async function receiveBackchannelLogout(
  deps: OAuthDeps,
  request: FastifyRequest<{ Params: { id: string }; Body: { logout_token: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  noStore(reply, { pragma: false });
  const entry = findUpstream(deps.config, request.params.id);
  if (entry === null) return reply.code(404).send({ error: 'invalid_request', error_description: 'No identity provider has this id.' });
  try {
    const names = await verifyUpstreamLogoutToken(deps, entry, request.body.logout_token);
    const ended = await endUpstreamLoginSessions(deps, entry, names);
    for (const session of ended)
      await announceEndedSession(deps, request, session, {
        type: 'user.signed_out',
        outcome: 'success',
        actor: 'system',
        subjectType: 'user',
        subjectId: String(session.userId),
        userId: session.userId,
        ip: request.ip,
        details: { via: 'upstream_backchannel_logout', provider: entry.id },
      });
    request.log.info({ event: 'logout.upstream_backchannel', provider: entry.id, ended: ended.length }, 'upstream back-channel logout');
    return reply.code(200).send();
  } catch (error) {
    if (!(error instanceof InvalidLogoutToken) && !(error instanceof UpstreamFailure)) throw error;
    request.log.info({ event: 'logout.upstream_backchannel_refused', provider: entry.id, reason: error.message }, 'logout token refused');
    return reply.code(400).send({ error: 'invalid_request', error_description: error.message });
  }
}
