import type { AuthorizationContext, AuthorizationRule } from '../authorization/authorization-context.js';
import { present, value } from '../authorization/authorization-context.js';
import { InvalidRequest, RequestNotSupported, RequestUriNotSupported } from '../errors.js';

// The OpenID Connect parameters of an authorization request (Core 3.1.2.1) and their rules. display,
// ui_locales, claims_locales and acr_values are accepted and have no effect: there is one page layout, one
// language and one way to sign in (amr "pwd"), which Core allows.

export type Prompt = 'none' | 'login' | 'consent' | 'select_account';
const PROMPTS: readonly string[] = ['none', 'login', 'consent', 'select_account'];

export interface OpenIdParameters {
  /** Echoed exactly in the ID token; null when not sent (optional for the code flow). */
  nonce: string | null;
  prompts: Prompt[];
  /** Seconds; a sign-in older than this must be repeated. */
  maxAge: number | null;
  /** Pre-fills the login form. */
  loginHint: string | null;
  /** An ID token of this server naming the user expected to be signed in. */
  idTokenHint: string | null;
}

export const NO_OPENID_PARAMETERS: OpenIdParameters = { nonce: null, prompts: [], maxAge: null, loginHint: null, idTokenHint: null };

const MAX_NONCE_LENGTH = 512;
const nonBlank = (context: AuthorizationContext, name: 'nonce' | 'login_hint' | 'id_token_hint') =>
  present(context, name) ? value(context, name)! : null;
const promptsOf = (context: AuthorizationContext) => (value(context, 'prompt') ?? '').split(' ').filter(Boolean);

/** The parameters of a request that passed OPENID_RULES; none at all while OpenID Connect is off. */
export function openIdParameters(context: AuthorizationContext): OpenIdParameters {
  if (!context.config.openid.enabled) return NO_OPENID_PARAMETERS;
  return {
    nonce: nonBlank(context, 'nonce'),
    prompts: promptsOf(context) as Prompt[],
    maxAge: present(context, 'max_age') ? Number(value(context, 'max_age')) : null,
    loginHint: nonBlank(context, 'login_hint'),
    idTokenHint: nonBlank(context, 'id_token_hint'),
  };
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

// Core 3.1.2.1: max_age is a number of seconds.
const maxAgeValid: AuthorizationRule = {
  name: 'max_age_valid',
  redirectable: true,
  check: (context) => !openid(context) || !present(context, 'max_age') || /^\d{1,9}$/.test(value(context, 'max_age')!),
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
const requestObjectAbsent: AuthorizationRule = {
  name: 'request_object_absent',
  redirectable: true,
  check: (context) => !openid(context) || !present(context, 'request'),
  error: () => new RequestNotSupported(),
};

const requestUriAbsent: AuthorizationRule = {
  name: 'request_uri_absent',
  redirectable: true,
  check: (context) => !openid(context) || !present(context, 'request_uri'),
  error: () => new RequestUriNotSupported(),
};

export const OPENID_RULES: readonly AuthorizationRule[] = [requestObjectAbsent, requestUriAbsent, promptValid, maxAgeValid, nonceValid];
