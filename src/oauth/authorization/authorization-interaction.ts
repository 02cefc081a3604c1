import type { AuthorizationRequest } from './authorization-request.js';
import { satisfiesRequirement, type AuthenticationContext } from '../authentication-context.js';
import type { OAuthDeps } from '../deps.js';
import { serverRequiresSecondFactor } from '../second-factor/second-factors.js';
import {
  AccessDenied,
  ConsentRequired,
  InvalidRequest,
  LoginRequired,
  UnmetAuthenticationRequirements,
  type OAuthError,
} from '../errors.js';
import { requiresAcr, subjectRequested } from '../openid/claims-request.js';
import { subjectFor } from '../openid/subject.js';
import { hintNames, verifyIdTokenHint, type IdTokenHint } from '../openid/id-token-hint.js';

// What a valid authorization request needs before it can be approved (OpenID Connect Core 3.1.2.3 and
// 3.1.2.4): a sign-in (none yet, prompt=login, a sign-in older than max_age or weaker than acr_values ask for, or an
// id_token_hint naming someone else), then consent (unless it may be skipped and prompt=consent does not ask for it
// again). prompt=none turns every page into an error sent to the client.

export interface Session extends AuthenticationContext {
  subject: string;
  /** The session's sign-in was asked for by this very request and has just come back to it. */
  signedInForRequest?: boolean;
  /** The id_token_hint that asked for that sign-in, which the way back from /login no longer carries. */
  hintBeforeSignIn?: IdTokenHint | null;
}

const UNMET_AFTER_SIGN_IN = 'The sign-in did not reach any of the essential acr values of the claims parameter.';
const SUB_NOT_SIGNED_IN = 'The user who signed in is not the one the sub of the claims parameter names (OpenID Connect Core 5.5.1).';
const HINT_NOT_SIGNED_IN = 'The user who signed in is not the one the id_token_hint names (OpenID Connect Core 3.1.2.1).';

export type Interaction = { next: 'login' } | { next: 'consent' } | { next: 'approve' } | { next: 'error'; error: OAuthError };

export async function nextInteraction(
  deps: Pick<OAuthDeps, 'stores' | 'config' | 'now'>,
  request: AuthorizationRequest,
  session: Session | null,
  consentSkippable: () => Promise<boolean>,
): Promise<Interaction> {
  const { prompts, maxAge, acrValues, idTokenHint } = request.oidc;
  const silent = prompts.includes('none');
  let hintNamesAnother = false;
  if (idTokenHint !== null) {
    const hint = await verifyIdTokenHint(deps, idTokenHint);
    if (!hint) return { next: 'error', error: new InvalidRequest('The id_token_hint is not an ID token issued by this server.') };
    hintNamesAnother = session !== null && !(await hintNames(deps, hint, session));
  } else if (session?.hintBeforeSignIn) {
    hintNamesAnother = !(await hintNames(deps, session.hintBeforeSignIn, session));
  }
  const { acr } = deps.config.authentication;
  const levelMet = session !== null && satisfiesRequirement(session, { acrValues, maxAge: null }, acr, deps.now());
  // A sign-in made for this very request that still falls short (acr_values asked for phr, the user has no passkey):
  // acr_values is voluntary, so the sign-in is what it is (Core 3.1.2.1); an essential acr claim fails (5.5.1.1).
  // Either way the user is not sent back to sign in again, and again.
  const settledShort = !levelMet && session?.signedInForRequest === true;
  if (settledShort && requiresAcr(request.oidc.claims))
    return { next: 'error', error: new UnmetAuthenticationRequirements(UNMET_AFTER_SIGN_IN) };
  // What a sign-in for this very request has just answered: the way back from /login drops prompt=login, max_age and
  // id_token_hint from a URL, but a pushed or signed request still holds them, and asking again would loop.
  const freshSignIn = session?.signedInForRequest === true;
  // Core 3.1.2.1: the user the hint names was to sign in; someone else did. The client is told (login_required, the
  // error Core names), not handed a code for another user than it asked for; asking again would loop.
  if (freshSignIn && hintNamesAnother) return { next: 'error', error: new LoginRequired(HINT_NOT_SIGNED_IN) };
  const signInNeeded =
    session === null ||
    (!freshSignIn &&
      (prompts.includes('login') ||
        // Core 3.1.2.1: the user is asked which account to use. One account is signed in per browser here, so choosing
        // is signing in: the login page, where they continue with the same account or give another one.
        prompts.includes('select_account') ||
        !satisfiesRequirement(session, { acrValues: [], maxAge }, acr, deps.now()) ||
        hintNamesAnother)) ||
    (!levelMet && !settledShort) ||
    !meetsClientSecondFactorPolicy(deps, request.application.uid, session);
  // Core 5.5.1: a sub asked for by value in the claims parameter is the only user this request may be answered for.
  const claimsNameAnother =
    session !== null && !subjectRequested(request.oidc.claims, subjectFor(session, request.application, deps.config));
  // Core 5.5.1: a positive response only for that user "Authenticated as a result of the request"; a sign-in for this
  // request that gives someone else ends it, since asking again would loop. access_denied, not login_required: a sign-in
  // was had, and the client asking for one again would get the same user.
  if (claimsNameAnother && session?.signedInForRequest === true) return { next: 'error', error: new AccessDenied(SUB_NOT_SIGNED_IN) };
  if (signInNeeded || claimsNameAnother) return silent ? { next: 'error', error: new LoginRequired() } : { next: 'login' };
  if (prompts.includes('consent')) return { next: 'consent' };
  if (await consentSkippable()) return { next: 'approve' };
  return silent ? { next: 'error', error: new ConsentRequired() } : { next: 'consent' };
}

/**
 * config authentication.requireSecondFactor: a client listed there gets only sign-ins that gave a second factor (its
 * authorization requests here, its device's approvals at /device).
 */
export function meetsClientSecondFactorPolicy(
  deps: Pick<OAuthDeps, 'config' | 'now'>,
  clientId: string,
  session: AuthenticationContext,
): boolean {
  if (!serverRequiresSecondFactor(deps.config, clientId)) return true;
  const { acr } = deps.config.authentication;
  return satisfiesRequirement(session, { acrValues: [acr.mfa], maxAge: null }, acr, deps.now());
}
