import { recordDomainEvent } from '../audit/audit-trail.js';
import { tokenExchangedEvent } from '../audit/vouched-user-events.js';
import { consumeAssertion } from '../assertions/assertion-replay.js';
import { requireClient } from '../clients/client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidGrant, InvalidRequest, InvalidTarget, UnauthorizedClient } from '../errors.js';
import { actorOf } from '../exchange/actor-token.js';
import { exchangedScopes } from '../exchange/exchanged-scopes.js';
import { idJagAudience, idJagResource, signIdJag } from '../exchange/id-jag-issuer.js';
import { requireProofOfPossession, subjectExpiresAt, subjectToken, type SubjectToken } from '../exchange/subject-token.js';
import { mayUseTokenExchange, TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../exchange/token-exchange-grant-type.js';
import { optionalParameter, requireParameter, resourceParameters, type Parameters } from '../request-parameters.js';
import { audienceProblem, narrowedAudience, resolveAudience, type Audience } from '../resources/resource-indicators.js';
import type { ApplicationRecord } from '../store.js';
import { issueAccessToken } from '../tokens/token-issuer.js';
import { admitClient, recordDpopProof } from './client-admission.js';
import type { GrantHandler } from './grant.js';

/**
 * RFC 8693 section 2: a client exchanges a subject token (and, for delegation, its own actor token) for an access
 * token for the same user, narrowed, or (an ID token subject) for an ID-JAG aimed at a downstream authorization
 * server. Every check comes before any write: a refused exchange stores nothing. No refresh token (section 2.2.1
 * makes it optional): the exchange is repeated with a fresh subject token instead, and the new token expires no
 * later than its subject token (subjectExpiresAt), so that repeating it never extends access.
 */
export const tokenExchangeGrant: GrantHandler = async (deps, request) => {
  try {
    return await exchange(deps, request);
  } catch (error) {
    // Section 2.2.2: a subject or actor token "invalid for any reason, or unacceptable based on policy" MUST be
    // invalid_request; the checks shared with the JWT bearer grant (an assertion's, its jti) say invalid_grant there.
    if (error instanceof InvalidGrant) throw new InvalidRequest(error.description);
    throw error;
  }
};

const exchange: GrantHandler = async (deps, { parameters, credentials, dpopProof, address }) => {
  const subjectValue = requireParameter(parameters, 'subject_token');
  const subjectType = requireParameter(parameters, 'subject_token_type');
  const application = await requireClient(deps, credentials);
  if (!mayUseTokenExchange(deps, application)) throw new UnauthorizedClient();
  // RFC 8693 section 5 leans on client authentication to decide who may exchange what: a public client proves nothing.
  if (!application.confidential) throw new UnauthorizedClient('Token exchange is for confidential clients.');
  const requestedType = optionalParameter(parameters, 'requested_token_type') ?? TOKEN_TYPES.accessToken;
  if (requestedType === TOKEN_TYPES.idJag) return idJagExchange(deps, parameters, application, subjectValue, subjectType, address);
  if (requestedType !== TOKEN_TYPES.accessToken)
    throw new InvalidRequest(`The requested_token_type must be ${TOKEN_TYPES.accessToken} or ${TOKEN_TYPES.idJag}.`);
  const dpopJkt = await admitClient(deps, TOKEN_EXCHANGE_GRANT, application, dpopProof);
  const subject = await subjectToken(deps, subjectValue, subjectType, application);
  if (subject.type === 'access_token') requireProofOfPossession(subject.token, dpopJkt, 'subject');
  const act = await actorOf(deps, actorParameters(parameters), application, {
    subjectAct: subject.type === 'access_token' ? subject.token.act : null,
    dpopJkt,
  });
  const scopes = exchangedScopes(deps, application, subject, optionalParameter(parameters, 'scope'));
  const audience = await exchangedAudience(deps, subject, requestedResources(parameters), scopes);
  if (dpopProof) await recordDpopProof(deps, dpopProof);
  if (subject.type === 'jwt') await consumeAssertion(deps, subject.assertion);
  const issued = await issueAccessToken(deps, {
    application,
    resourceOwnerId: subject.user.id,
    scopes,
    grantType: TOKEN_EXCHANGE_GRANT,
    withRefreshToken: false,
    audience,
    dpopJkt,
    act,
    notAfter: subjectExpiresAt(subject),
    // The user's sign-in is what it was (RFC 9470 step-up at the next API sees its acr and auth_time), as the subject
    // token tells it; an assertion's is another issuer's, whose acr values mean nothing here.
    ...(subject.type === 'access_token' && {
      authTime: subject.token.authTime,
      amr: subject.token.amr,
      acr: subject.token.acr,
    }),
    ...(subject.type === 'id_token' && subject.signIn),
  });
  await recordDomainEvent(
    deps,
    tokenExchangedEvent(subject.user.id, application, address, {
      subject_token_type: subjectType,
      issued_token_type: TOKEN_TYPES.accessToken,
      // Impersonation names no actor, even where it keeps the subject token's act.
      actor: optionalParameter(parameters, 'actor_token') === undefined ? null : (act?.sub ?? null),
      audience: audience.uris,
      token_id: issued.record.id,
    }),
  );
  return { issued, application, issuedTokenType: TOKEN_TYPES.accessToken };
};

/** The draft's Token Exchange profile: an ID token of this server's for an ID-JAG, with OpenID Connect on. */
async function idJagExchange(
  deps: OAuthDeps,
  parameters: Parameters,
  application: ApplicationRecord,
  subjectValue: string,
  subjectType: string,
  address: string,
) {
  if (subjectType !== TOKEN_TYPES.idToken)
    throw new InvalidRequest(`An ID-JAG is issued for a subject_token_type of ${TOKEN_TYPES.idToken}.`);
  const entry = idJagAudience(deps, optionalParameter(parameters, 'audience'), application);
  const resource = idJagResource(entry, resourceParameters(parameters));
  // The draft's ID-JAG has no act claim: it names the client (client_id) that the user signed in to, nobody else.
  if (optionalParameter(parameters, 'actor_token') !== undefined)
    throw new InvalidRequest('An ID-JAG carries no actor: send no actor_token.');
  // The user still authorizes the client (subject-token.ts): a client the user revoked mints no ID-JAG either.
  const subject = await subjectToken(deps, subjectValue, subjectType, application);
  const signed = await signIdJag(deps, entry, subject.user, { resource, scope: optionalParameter(parameters, 'scope') });
  await recordDomainEvent(
    deps,
    tokenExchangedEvent(subject.user.id, application, address, {
      subject_token_type: subjectType,
      issued_token_type: TOKEN_TYPES.idJag,
      actor: null,
      audience: [entry.audience],
      token_id: null,
    }),
  );
  return {
    application,
    // RFC 8693 section 2.2.1: the issued token travels as access_token; N_A: it is not an access token.
    body: {
      access_token: signed.value,
      issued_token_type: TOKEN_TYPES.idJag,
      token_type: 'N_A' as const,
      expires_in: signed.expiresIn,
      ...(signed.scope !== null && { scope: signed.scope }),
      created_at: Math.floor(deps.now().getTime() / 1000),
    },
  };
}

const actorParameters = (parameters: Parameters) => ({
  actorToken: optionalParameter(parameters, 'actor_token'),
  actorTokenType: optionalParameter(parameters, 'actor_token_type'),
});

/** RFC 8693 section 2.1: resource and audience both name where the token is used; here both are registered resources. */
function requestedResources(parameters: Parameters): string[] {
  const audience = optionalParameter(parameters, 'audience');
  return [...resourceParameters(parameters), ...(audience === undefined ? [] : [audience])];
}

/**
 * An access token subject's audience may only be narrowed (RFC 8707 section 2.2, as a refresh); others are new. So is
 * a subject valid at any API (no audience): unlike a refresh, the exchange is the admin's policy (the clients given
 * the grant), not consent the client obtained from the user.
 */
async function exchangedAudience(deps: OAuthDeps, subject: SubjectToken, requested: string[], scopes: string[]): Promise<Audience> {
  if (subject.type !== 'access_token' || subject.token.audience.length === 0) return resolveAudience(deps, requested, scopes);
  const audience = await narrowedAudience(deps, requested, subject.token.audience);
  const problem = audience.uris.length === 0 ? null : audienceProblem(audience.uris, audience.resources, scopes);
  if (problem !== null) throw new InvalidTarget(problem);
  return audience;
}
