import { existsSync } from 'node:fs';
import { redactQuery, type QueryRedaction } from '../oauth/query-redaction.js';

// The DATABASE_URL as libpq and node-postgres read it: shown without its secrets, and its local socket made explicit.

// libpq's secret connection parameters, which it and node-postgres also take from the query: the password and the
// passphrase of the client key, in any case (a name here is only hidden, never read). A `#` written unencoded in a
// password is still the password's: a value runs to the next parameter.
const QUERY_SECRETS = new Set(['password', 'sslpassword']);
const DATABASE_URL: QueryRedaction = { secret: (name) => QUERY_SECRETS.has(name.toLowerCase()), mask: '***', endsAt: /&/ };

/**
 * The URL as written with its passwords replaced by ***: the `user:pw@` one (also in `postgresql://user:pw@/db`, which
 * URL() rejects) and the query's, named as node-postgres reads it (`%70assword` is password).
 */
export function redactUrl(url: string): string {
  return redactQuery(url.replace(/^([a-z]+:\/\/[^:@/?#]*):[^/?#]*@/i, '$1:***@'), DATABASE_URL);
}

/**
 * A URL without a host (`postgresql:///db`) means the local Unix socket to psql but localhost over TCP to pg:
 * it gets PGHOST, else the socket folder of Debian's PostgreSQL packages, else /tmp (PostgreSQL's own default).
 */
export function withLocalSocket(url: string, pgHost: string | null): string {
  if (!/^[a-z]+:\/\/([^@/?#]*@)?(?=[/?#]|$)/i.test(url) || /[?&]host=/.test(url)) return url;
  const host = pgHost || (existsSync('/var/run/postgresql') ? '/var/run/postgresql' : '/tmp');
  return `${url}${url.includes('?') ? '&' : '?'}host=${encodeURIComponent(host)}`;
}
