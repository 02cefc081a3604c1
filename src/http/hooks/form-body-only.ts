import type { onRequestHookHandler } from 'fastify';
import { UnsupportedMediaType } from '../../oauth/errors.js';
import { isFormContentType } from '../api-content-type.js';

/**
 * OpenID Connect Core 3.1.2.1: an authorization request sent by POST uses form serialization, as the consent form and
 * the RP-initiated logout form do. The app parses JSON for its JSON routes, so a JSON body reached these routes as
 * their parameters (a number named as "sent more than once"): a body of another type is 415 before it is parsed.
 * A POST without a body (no Content-Type) is let through, as the routes read no parameters from it.
 */
export const formBodyOnly: onRequestHookHandler = (request, _reply, done) => {
  const type = request.headers['content-type'];
  if (type === undefined || isFormContentType(type)) return done();
  done(new UnsupportedMediaType());
};
