// Schema pieces of the admin sections (applications, resources, users; STYLE 3): each section's schemas.ts builds
// its request and response schemas from these, so the id rule, the CSRF field and the method override are
// written once. Sections with a JSON API answer each status as an HTML page or as JSON.

export const htmlPage = { type: 'string', description: 'An HTML page.' } as const;
export const noContent = { type: 'null', description: 'Deleted.' } as const;
export const redirect = { type: 'null', description: 'Redirect (302/303) to the next page, with a notice in the session.' } as const;

export const validationErrors = {
  type: 'object',
  description: 'Validation failed: full English messages (reference 13).',
  properties: { errors: { type: 'array', items: { type: 'string' } } },
  required: ['errors'],
} as const;

/** One status answered as an HTML page or, to Accept: application/json, as JSON. */
export const pageOrJson = (json: object) => ({ content: { 'text/html': { schema: htmlPage }, 'application/json': { schema: json } } });

/** The error statuses every admin route may answer, each with this body. */
export const errorStatuses = (body: object) => Object.fromEntries([400, 401, 403, 404, 413, 415, 429].map((status) => [status, body]));

/** The error statuses of a section with a JSON API: an HTML page, or the OAuth error body as JSON. */
export const pageOrJsonErrors = errorStatuses(pageOrJson({ $ref: 'oauthError#' }));

export const recordIdParams = (record: string) =>
  ({
    type: 'object',
    // A non-numeric id is a validation error in the params, which the group's error handler answers with 404.
    properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$', description: `The ${record} id.` } },
    required: ['id'],
  }) as const;

// anyOf rather than a list of types: Fastify's Ajv runs in strict mode, which rejects union types.
export const textOrList = (description: string) =>
  ({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description }) as const;

/** What a form's checkbox sends (a hidden "0" then "1" when checked): another text is refused (400), never read as false. */
const CHECKBOX_TEXTS = { type: 'string', enum: ['0', '1', 'false', 'true', 'off', 'on'] } as const;

/** A checkbox of an HTML form: one of CHECKBOX_TEXTS, or a list of them (the last wins). */
export const formCheckbox = (description: string) =>
  ({ anyOf: [CHECKBOX_TEXTS, { type: 'array', items: CHECKBOX_TEXTS }], description }) as const;

const csrfField = { type: 'string', description: 'CSRF token of the HTML form (or the X-CSRF-Token header).' } as const;

/** A form's fields and its CSRF token. Unknown fields are stripped: nothing else can be mass-assigned. */
export const formBody = <Fields extends object>(fields: Fields) =>
  ({ type: 'object', properties: { ...fields, _csrf: csrfField }, additionalProperties: false }) as const;

export const csrfOnlyBody = formBody({});

/** The edit and delete forms' body: HTML forms can only POST, so they name the method in _method. */
export const methodOverrideFormBody = <Fields extends object>(fields: Fields, methods: readonly string[]) =>
  ({
    type: 'object',
    properties: {
      ...formBody(fields).properties,
      _method: {
        type: 'string',
        enum: [...methods, ...methods.map((method) => method.toUpperCase())],
        description: 'HTML forms can only POST.',
      },
    },
    required: ['_method'],
    additionalProperties: false,
  }) as const;

/** The statuses of a section with pages and a JSON API, whose records are the registered schema `$id`. */
export function pageAndJsonResponses($id: string) {
  const record = { $ref: `${$id}#` };
  return {
    page: { 200: htmlPage, ...pageOrJsonErrors },
    index: { 200: pageOrJson({ type: 'array', items: record }), ...pageOrJsonErrors },
    show: { 200: pageOrJson(record), ...pageOrJsonErrors },
    create: { 201: record, 302: redirect, 422: pageOrJson(validationErrors), ...pageOrJsonErrors },
    update: { 200: record, 302: redirect, 303: redirect, 422: pageOrJson(validationErrors), ...pageOrJsonErrors },
    destroy: { 204: noContent, 302: redirect, 303: redirect, ...pageOrJsonErrors },
  };
}
