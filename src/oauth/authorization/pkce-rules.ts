import { isCodeRequest, pkceRequired, present, value, type AuthorizationRule } from './authorization-context.js';
import { InvalidRequest } from '../errors.js';
import { isValidCodeChallenge } from './pkce.js';

// RFC 7636 at the authorization endpoint: the code challenge rules of the ordered table (authorization-rules.ts), in
// their order there, after FAPI 2.0's S256 requirement.

const codeChallengePresentWhenRequired: AuthorizationRule = {
  name: 'code_challenge_present_when_required',
  redirectable: true,
  check: (context) => !isCodeRequest(context) || present(context, 'code_challenge') || !pkceRequired(context),
  error: () => InvalidRequest.codeChallengeRequired(),
};

// SPEC 3.5: a challenge without a method is invalid_request (no silent default to plain, reference 23.8).
const codeChallengeMethodPresent: AuthorizationRule = {
  name: 'code_challenge_method_present',
  redirectable: true,
  check: (context) => !isCodeRequest(context) || !present(context, 'code_challenge') || present(context, 'code_challenge_method'),
  error: (context) => InvalidRequest.unsupportedCodeChallengeMethod(context.config.pkce.methods),
};

// RFC 7636 section 4.4.1: a method the server does not support is invalid_request (SPEC 8).
const codeChallengeMethodSupported: AuthorizationRule = {
  name: 'code_challenge_method_supported',
  redirectable: true,
  check: (context) =>
    !isCodeRequest(context) ||
    !present(context, 'code_challenge') ||
    (context.config.pkce.methods as readonly string[]).includes(value(context, 'code_challenge_method') ?? ''),
  error: (context) => InvalidRequest.unsupportedCodeChallengeMethod(context.config.pkce.methods),
};

// RFC 7636 section 4.2: S256 is 43 base64url characters; plain follows the verifier's grammar.
const codeChallengeWellFormed: AuthorizationRule = {
  name: 'code_challenge_well_formed',
  redirectable: true,
  check: (context) =>
    !isCodeRequest(context) ||
    !present(context, 'code_challenge') ||
    isValidCodeChallenge(value(context, 'code_challenge') ?? '', value(context, 'code_challenge_method') ?? ''),
  error: () => new InvalidRequest('The code_challenge is not a valid RFC 7636 code challenge.'),
};

export const PKCE_RULES: readonly AuthorizationRule[] = [
  codeChallengePresentWhenRequired,
  codeChallengeMethodPresent,
  codeChallengeMethodSupported,
  codeChallengeWellFormed,
];
