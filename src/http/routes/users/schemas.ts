import { ADDRESS_FIELDS, BOOLEAN_CLAIMS, STRING_CLAIMS } from '../../../oauth/user-profile.js';

// Schemas of the admin's user pages (STYLE 3): every request part and every response status. The pages are
// HTML only: there is no JSON API for users, so every state-changing form needs its CSRF token.

const htmlPage = { type: 'string', description: 'An HTML page.' } as const;
const redirect = { type: 'null', description: 'Redirect (302) to the next page, with a notice in the session.' } as const;
const errorStatuses = Object.fromEntries([400, 401, 403, 404, 413, 415, 429].map((status) => [status, htmlPage]));

export const idParams = {
  type: 'object',
  // A non-numeric id is a validation error in the params, which the group's error handler answers with 404.
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$', description: 'The user id.' } },
  required: ['id'],
} as const;

export const searchQuery = {
  type: 'object',
  properties: { q: { type: 'string', maxLength: 255, description: 'Part of a username, name or email (any case).' } },
  additionalProperties: false,
} as const;

const csrfField = { type: 'string', description: 'CSRF token of the HTML form.' } as const;
// The HTML form sends a hidden "0" followed by the checkbox's "1" when it is checked: the last value wins.
const checkbox = (description: string) => ({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description });

const claimFields = Object.fromEntries([
  ...STRING_CLAIMS.map(({ claim, label }) => [claim, { type: 'string', description: `${label} (${claim}); empty clears it.` }]),
  ...BOOLEAN_CLAIMS.map(({ claim, label }) => [claim, checkbox(`${label} (${claim}).`)]),
  ...ADDRESS_FIELDS.map((field) => [`address_${field}`, { type: 'string', description: `The address claim's ${field}.` }]),
]);

/** Unknown fields (subject, disabled_at, password_hash, ...) are stripped: nothing else can be mass-assigned. */
export const createBody = {
  type: 'object',
  properties: {
    ...claimFields,
    username: { type: 'string', description: 'Required; cannot be changed later.' },
    password: { type: 'string', description: 'At least 8 characters; stored as an argon2id hash.' },
    _csrf: csrfField,
  },
  additionalProperties: false,
} as const;

export const methodOverrideBody = {
  type: 'object',
  properties: {
    ...claimFields,
    _csrf: csrfField,
    _method: { type: 'string', enum: ['patch', 'delete', 'PATCH', 'DELETE'], description: 'HTML forms can only POST.' },
  },
  required: ['_method'],
  additionalProperties: false,
} as const;

export const passwordBody = {
  type: 'object',
  properties: { password: { type: 'string', description: 'The new password.' }, _csrf: csrfField },
  additionalProperties: false,
} as const;

export const csrfOnlyBody = { type: 'object', properties: { _csrf: csrfField }, additionalProperties: false } as const;

export const responses = {
  page: { 200: htmlPage, ...errorStatuses },
  write: { 302: redirect, 422: htmlPage, ...errorStatuses },
};
