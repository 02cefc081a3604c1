import fp from 'fastify-plugin';
import formbody from '@fastify/formbody';
import { parse } from 'node:querystring';

/** The most parameters one form may carry; a larger body is refused before any work (SPEC 9). */
export const MAX_FORM_PARAMETERS = 100;

/**
 * application/x-www-form-urlencoded bodies as a flat object. A repeated parameter arrives as an array,
 * which the routes' schemas turn into invalid_request (SPEC 3); nothing is ever merged from the query.
 */
export const formsPlugin = fp(
  async (app) => {
    await app.register(formbody, {
      parser: (body: string) => parse(body, '&', '=', { maxKeys: MAX_FORM_PARAMETERS }),
    });
  },
  { name: 'forms' },
);
