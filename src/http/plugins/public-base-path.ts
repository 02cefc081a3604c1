import fp from 'fastify-plugin';
import { publicPath } from '../public-base-path.js';

export interface PublicBasePathOptions {
  /** publicBasePath(config.baseUrl): '/tenant' for an issuer at https://auth.example.com/tenant. */
  basePath: string;
}

/**
 * SPEC 3.7: behind a proxy that strips the issuer's path, a redirect to a route path (/login, /oauth/authorize?...,
 * the sign-in's return to request.url) would send the browser out of the issuer. Every root-relative Location is
 * given the base path here, in one place, so the routes keep redirecting to their own paths. An absolute Location
 * (a client's redirect URI, a URL built from baseUrl) is left as it is. Registered only for an issuer with a path.
 */
export const publicBasePathPlugin = fp<PublicBasePathOptions>(
  async (app, { basePath }) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      const location = reply.getHeader('location');
      if (typeof location === 'string') reply.header('location', publicPath(basePath, location));
      return payload;
    });
  },
  { name: 'public-base-path' },
);
