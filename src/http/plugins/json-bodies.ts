import fp from 'fastify-plugin';

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), but a DELETE may come with Content-Type:
 * application/json and no body at all: HTTP clients that set the header on every call send it so, and a DELETE has
 * nothing to say (RFC 9110 section 9.3.5). Fastify refuses an empty JSON body, which made a valid delete a 400.
 */
export const jsonBodiesPlugin = fp(
  async (app) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (request.method === 'DELETE' && body === '') return done(null, undefined);
      parseJson(request, body as string, done);
    });
  },
  { name: 'json-bodies' },
);
