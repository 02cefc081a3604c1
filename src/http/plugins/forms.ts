import fp from 'fastify-plugin';
import formbody from '@fastify/formbody';
import { parse } from 'node:querystring';

/** The most parameters one form may carry; a larger body is refused before any work (SPEC 9). */
export const MAX_FORM_PARAMETERS = 100;

/** The code of that refusal, which error-response.ts says as it is instead of the generic invalid_request. */
export const TOO_MANY_FORM_PARAMETERS = 'OAUTH_ERR_TOO_MANY_FORM_PARAMETERS';

/**
 * application/x-www-form-urlencoded bodies as a flat object. A repeated parameter arrives as an array,
 * which the routes' schemas turn into invalid_request (SPEC 3); nothing is ever merged from the query.
 */
export const formsPlugin = fp(
  async (app) => {
    await app.register(formbody, { parser: parseForm });
  },
  { name: 'forms' },
);

/**
 * Parses a form, refusing one with more than MAX_FORM_PARAMETERS parameters: truncating it instead would hide
 * whatever comes after the limit, e.g. a repeated parameter (RFC 6749 section 3.2).
 */
export function parseForm(body: string): Record<string, string | string[]> {
  let parameters = 1;
  for (let at = body.indexOf('&'); at !== -1; at = body.indexOf('&', at + 1)) {
    parameters += 1;
    if (parameters > MAX_FORM_PARAMETERS)
      throw Object.assign(new Error('too many form parameters'), { statusCode: 400, code: TOO_MANY_FORM_PARAMETERS });
  }
  return parse(body, '&', '=', { maxKeys: MAX_FORM_PARAMETERS }) as Record<string, string | string[]>;
}
