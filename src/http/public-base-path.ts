// An issuer with a path (baseUrl https://auth.example.com/tenant) is served behind a proxy that strips the path
// before forwarding (SPEC 3.7): the routes stay /login, /oauth/authorize..., while every URL a browser is sent to
// must carry the path again. These two functions are the one rule for it, used by the redirects and the pages.

/** baseUrl's path without a trailing slash: '' for an issuer at the root, '/tenant' for https://auth.example.com/tenant/. */
export function publicBasePath(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

/**
 * The URL a browser reaches a route path at: a root-relative path ('/login?x=1') gets the base path in front;
 * an absolute URL (a client's redirect URI, a URL built from baseUrl), a scheme-relative one ('//host') or a
 * relative one ('?page=2') is left as it is.
 */
export function publicPath(basePath: string, path: string): string {
  return basePath !== '' && isRootRelative(path) ? `${basePath}${path}` : path;
}

const isRootRelative = (path: string): boolean => path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
