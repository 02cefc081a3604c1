import type { AuthorizationContext, AuthorizationRule } from '../authorization/authorization-context.js';
import { allowedScopes, present, requestedScopes, value } from '../authorization/authorization-context.js';
import { anyReachable, reachableAcrValues } from '../authentication-context.js';
import { InvalidRequest, RegistrationNotSupported, RequestUriNotSupported, UnmetAuthenticationRequirements } from '../errors.js';
import {
  ClaimsRequestInvalid,
  claimsWithinScopes,
  parseClaimsRequest,
  requestedAcrValues,
  requiresAcr,
  type ClaimsRequest,
} from './claims-request.js';

// The OpenID Connect parameters of an authorization request (Core 3.1.2.1) and their rules. display and
// claims_locales are accepted and have no effect: there is one page layout, which Core allows. ui_locales chooses the
// pages' language, which the HTTP layer does (http/plugins/page-languages.ts): it changes nothing in the request
// itself. acr_values and max_age decide whether the session's sign-in is enough (authentication-context.ts).

export type Prompt = 'none' | 'login' | 'consent' | 'select_account';
const PROMPTS: readonly string[] = ['none', 'login', 'consent', 'select_account'];

export interface OpenIdParameters {
  /** Echoed exactly in the ID token; null when not sent (optional for the code flow). */
  nonce: string | null;
  prompts: Prompt[];
  /** Seconds; a sign-in older than this must be repeated. */
  maxAge: number | null;
  /**
   * The acr values the sign-in is asked to reach, in order of preference: those of the claims parameter's acr claim
   * (Core 5.5.1.1) when it names some, else acr_values (3.1.2.1); [] for none.
   */
  acrValues: string[];
  /** Pre-fills the login form. */
  loginHint: string | null;
  /** An ID token of this server naming the user expected to be signed in. */
  idTokenHint: string | null;
  /**
   * Core 5.5: the claims asked for by name (only those this server understands, of the scopes the client holds); null
   * without it, or without openid.
   */
  claims: ClaimsRequest | null;
  /**
   * The claims parameter as the client sent it (null when `claims` is): what the consent form sends again, since the
   * stored form can be longer than the parameter may be.
   */
  claimsParameter: string | null;
}

export const NO_OPENID_PARAMETERS: OpenIdParameters = {
  nonce: null,
  prompts: [],
  maxAge: null,
  acrValues: [],
  loginHint: null,
  idTokenHint: null,
  claims: null,
  claimsParameter: null,
};

const MAX_NONCE_LENGTH = 512;
/** A max_age above it (68 years) asks for no more than it does; the cap keeps the arithmetic on it finite. */
const LONGEST_MAX_AGE = 2 ** 31 - 1;
const nonBlank = (context: AuthorizationContext, name: 'nonce' | 'login_hint' | 'id_token_hint') =>
  present(context, name) ? value(context, name)! : null;
const promptsOf = (context: AuthorizationContext) => (value(context, 'prompt') ?? '').split(' ').filter(Boolean);

/** The parameters of a request that passed OPENID_RULES; none at all while OpenID Connect is off. */
export function openIdParameters(context: AuthorizationContext): OpenIdParameters {
  if (!context.config.openid.enabled) return NO_OPENID_PARAMETERS;
  const claims = claimsOf(context);
  return {
    nonce: nonBlank(context, 'nonce'),
    prompts: promptsOf(context) as Prompt[],
    maxAge: present(context, 'max_age') ? Math.min(Number(value(context, 'max_age')), LONGEST_MAX_AGE) : null,
    acrValues: acrValuesOf(context, claims),
    loginHint: nonBlank(context, 'login_hint'),
    idTokenHint: nonBlank(context, 'id_token_hint'),
    // Core 5.4: a claim of a scope the client may not be granted is not released by naming it (issue 31, from review).
    claims: claimsWithinScopes(claims, allowedScopes(context)),
    claimsParameter: claims === null ? null : value(context, 'claims')!,
  };
}

function acrValuesOf(context: AuthorizationContext, claims: ClaimsRequest | null): string[] {
  const claimed = requestedAcrValues(claims);
  if (claimed.length > 0) return claimed;
  return (value(context, 'acr_values') ?? '').split(' ').filter(Boolean);
}

// Core 5.5: the claims are those of an ID token and of UserInfo, both of which need openid; without it they ask nothing.
function claimsOf(context: AuthorizationContext): ClaimsRequest | null {
  if (!present(context, 'claims') || !requestedScopes(context).includes('openid')) return null;
  return parseClaimsRequest(value(context, 'claims')!);
}

/** Why the claims parameter is not a claims request (invalid_request), or null. */
function claimsProblem(context: AuthorizationContext): string | null {
  try {
    claimsOf(context);
    return null;
  } catch (error) {
    if (error instanceof ClaimsRequestInvalid) return error.message;
    throw error;
  }
}

const openid = (context: AuthorizationContext) => context.config.openid.enabled;

// Core 3.1.2.1: prompt is a space-delimited list of known values, and none stands alone.
const promptValid: AuthorizationRule = {
  name: 'prompt_valid',
  redirectable: true,
  check: (context) => {
    const prompts = promptsOf(context);
    if (!openid(context) || prompts.length === 0) return true;
    return prompts.every((prompt) => PROMPTS.includes(prompt)) && (!prompts.includes('none') || prompts.length === 1);
  },
  error: (context) =>
    promptsOf(context).includes('none') && promptsOf(context).every((prompt) => PROMPTS.includes(prompt))
      ? new InvalidRequest('The prompt value none cannot be combined with other values.')
      : new InvalidRequest(`The prompt parameter must be made of ${PROMPTS.join(', ')}.`),
};

// Core 3.1.2.1: max_age is a number of seconds, of any size (2147483647 is a client's usual "any age").
const maxAgeValid: AuthorizationRule = {
  name: 'max_age_valid',
  redirectable: true,
  check: (context) => !openid(context) || !present(context, 'max_age') || /^\d+$/.test(value(context, 'max_age')!),
  error: () => new InvalidRequest('The max_age parameter must be a non-negative whole number of seconds.'),
};

const nonceValid: AuthorizationRule = {
  name: 'nonce_valid',
  redirectable: true,
  check: (context) => !openid(context) || (value(context, 'nonce') ?? '').length <= MAX_NONCE_LENGTH,
  error: () => new InvalidRequest(`The nonce parameter must be at most ${MAX_NONCE_LENGTH} characters.`),
};

// Core 6.1 and 6.2: a request object would carry parameters this server does not read; refusing it beats
// answering a request other than the one the client made.
// Core 5.5: the claims parameter is a JSON object of userinfo and id_token requests; anything else is invalid_request.
const claimsValid: AuthorizationRule = {
  name: 'claims_valid',
  redirectable: true,
  check: (context) => !openid(context) || claimsProblem(context) === null,
  error: (context) => new InvalidRequest(claimsProblem(context) ?? undefined),
};

// Core 5.5.1.1: acr asked for as an essential claim with values must be met, or the outcome "MUST be treated as a failed
// authentication attempt". When no sign-in here can reach any of them, that is known before anyone is asked to sign in:
// unmet_authentication_requirements (the errata's code, RFC 9470 section 4), nothing stored. Voluntary, the values only
// say which sign-in to ask for (authentication-context.ts).
const claimsAcrSatisfiable: AuthorizationRule = {
  name: 'claims_acr_satisfiable',
  redirectable: true,
  check: (context) => {
    if (!openid(context)) return true;
    const claims = claimsOf(context);
    return !requiresAcr(claims) || anyReachable(requestedAcrValues(claims), context.config.authentication.acr);
  },
  error: (context) =>
    new UnmetAuthenticationRequirements(
      `None of the essential acr values of the claims parameter can be met; a sign-in here reaches ${reachableAcrValues(context.config.authentication.acr).join(', ')}.`,
    ),
};

const requestUriAbsent: AuthorizationRule = {
  name: 'request_uri_absent',
  redirectable: true,
  check: (context) => !openid(context) || !present(context, 'request_uri'),
  error: () => new RequestUriNotSupported(),
};

// Core 3.1.2.6: registration_not_supported, for an OP that does not support the registration parameter of Core 7.2.1
// (client metadata sent with the request, for a Self-Issued OP; 7.2.1: it "SHOULD NOT be used when the OP is not a
// Self-Issued OP"). Ignored, the client would take metadata it sent as honoured; clients here are the registered ones.
const registrationAbsent: AuthorizationRule = {
  name: 'registration_absent',
  redirectable: true,
  check: (context) => !openid(context) || !present(context, 'registration'),
  error: () => new RegistrationNotSupported(),
};

export const OPENID_RULES: readonly AuthorizationRule[] = [
  requestUriAbsent,
  registrationAbsent,
  promptValid,
  maxAgeValid,
  nonceValid,
  claimsValid,
  claimsAcrSatisfiable,
];
