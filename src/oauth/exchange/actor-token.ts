import type { OAuthDeps } from '../deps.js';
import { InvalidRequest, UnauthorizedClient } from '../errors.js';
import { resourceOwnerSubject } from '../openid/subject.js';
import type { ApplicationRecord } from '../store.js';
import { actorDepth, MAX_ACTOR_DEPTH, type ActorClaim } from './actor-claim.js';
import { activeAccessToken, requireProofOfPossession } from './subject-token.js';
import { TOKEN_TYPES } from './token-exchange-grant-type.js';

// RFC 8693 section 1.1 and 2.1: with an actor_token the exchange is delegation, and the new token says who acts
// (the act claim); without one it is impersonation, and the new token is indistinguishable from the subject's own.
// The actor is an access token this server issued to the requesting client itself: a client speaks for itself
// (or for the user whose token it holds), never for a token it took from another client. Impersonation is only for
// the clients config tokenExchange.impersonationClients names.

/**
 * The act claim of the new token: the actor outermost, the subject token's own actors nested under it; null for
 * impersonation (which keeps the subject token's actors: they still act for the user). `dpopJkt` is the thumbprint of
 * the request's DPoP proof (null without one): a bound actor token needs it, as a bound subject token does.
 */
export async function actorOf(
  deps: OAuthDeps,
  parameters: { actorToken: string | undefined; actorTokenType: string | undefined },
  client: ApplicationRecord,
  { subjectAct, dpopJkt }: { subjectAct: ActorClaim | null; dpopJkt: string | null },
): Promise<ActorClaim | null> {
  const { actorToken, actorTokenType } = parameters;
  if (actorToken === undefined) {
    if (actorTokenType !== undefined) throw new InvalidRequest('actor_token_type is sent only with an actor_token.');
    if (!deps.config.tokenExchange.impersonationClients.includes(client.uid))
      throw new UnauthorizedClient('This client may not impersonate: send an actor_token (delegation).');
    return subjectAct;
  }
  if (actorTokenType === undefined) throw InvalidRequest.missingParameter('actor_token_type');
  if (actorTokenType !== TOKEN_TYPES.accessToken) throw new InvalidRequest(`The actor_token_type must be ${TOKEN_TYPES.accessToken}.`);
  const token = await activeAccessToken(deps, actorToken, 'actor');
  if (token.applicationId !== client.id) throw new InvalidRequest('The actor token was issued to another client.');
  requireProofOfPossession(token, dpopJkt, 'actor');
  if (actorDepth(subjectAct) >= MAX_ACTOR_DEPTH)
    throw new InvalidRequest(`The subject token has too many actors (at most ${MAX_ACTOR_DEPTH}).`);
  const sub =
    token.resourceOwnerId === null ? client.uid : ((await resourceOwnerSubject(deps, token.resourceOwnerId, client)) ?? client.uid);
  return { sub, client_id: client.uid, ...(subjectAct !== null && { act: subjectAct }) };
}
