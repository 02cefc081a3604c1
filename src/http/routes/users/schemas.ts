import { ADDRESS_FIELDS, BOOLEAN_CLAIMS, STRING_CLAIMS } from '../../../oauth/users/user-profile.js';
import { formBody, formCheckbox, htmlPage, methodOverrideFormBody, pageOrJsonErrors, recordIdParams } from '../../admin-schemas.js';

export { csrfOnlyBody } from '../../admin-schemas.js';

// Schemas of the admin's user pages (STYLE 3): every request part and every response status. The pages are
// HTML only: there is no JSON API for users (scripts use the CLI's --json), so every state-changing form needs its
// CSRF token.

const redirect = { type: 'null', description: 'Redirect (302) to the next page, with a notice in the session.' } as const;

export const idParams = recordIdParams('user');

export const searchQuery = {
  type: 'object',
  properties: { q: { type: 'string', maxLength: 255, description: 'Part of a username, name or email (any case).' } },
  additionalProperties: false,
} as const;

// The HTML form sends a hidden "0" followed by the checkbox's "1" when it is checked: the last value wins. Another text
// ("maybe") is refused, as the applications' forms refuse it, never read as false.
const checkbox = formCheckbox;

const claimFields = Object.fromEntries([
  ...STRING_CLAIMS.map(({ claim, label }) => [claim, { type: 'string', description: `${label} (${claim}); empty clears it.` }]),
  ...BOOLEAN_CLAIMS.map(({ claim, label }) => [claim, checkbox(`${label} (${claim}).`)]),
  ...ADDRESS_FIELDS.map((field) => [`address_${field}`, { type: 'string', description: `The address claim's ${field}.` }]),
]);

/** Unknown fields (subject, disabled_at, password_hash, ...) are stripped: nothing else can be mass-assigned. */
export const createBody = formBody({
  ...claimFields,
  username: { type: 'string', description: 'Required; cannot be changed later.' },
  password: { type: 'string', description: 'At least 8 characters; stored as an argon2id hash.' },
});

export const methodOverrideBody = methodOverrideFormBody(claimFields, ['patch', 'delete']);

export const passwordBody = formBody({ password: { type: 'string', description: 'The new password.' } });

// Required: without it (or sent as mfa[]=..., stripped as an unknown field) the answer was "no such user", a 404.
export const mfaBody = {
  ...formBody({ mfa: { type: 'string', enum: ['off', 'optional', 'required'], description: "The user's second-factor policy." } }),
  required: ['mfa'],
} as const;

// An identity's key (issue 37), in the confirmation page's query and the removal's form: free text, bounded.
const identityKeyFields = {
  issuer: { type: 'string', minLength: 1, maxLength: 2048, description: "The identity's issuer." },
  subject: { type: 'string', minLength: 1, maxLength: 2048, description: "The identity's subject at that issuer." },
} as const;

export const identityQuery = {
  type: 'object',
  properties: identityKeyFields,
  required: ['issuer', 'subject'],
  additionalProperties: false,
} as const;

export const identityBody = { ...formBody(identityKeyFields), required: ['issuer', 'subject'] } as const;

// The pages are HTML, but a refusal (the admin check, a CSRF failure) answers a script that asked for JSON in JSON, as
// the admin group's error handler does everywhere: a page-only schema printed it as "[object Object]".
export const responses = {
  page: { 200: htmlPage, ...pageOrJsonErrors },
  write: { 302: redirect, 422: htmlPage, ...pageOrJsonErrors },
};
