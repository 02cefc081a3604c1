import { isIP } from 'node:net';
import { problemAt } from './env-overrides.js';
import type { Config } from './types.js';

// What the schema's patterns let through but the boot would stop on, without naming the key: a URL that does not
// parse (a port past 65535, a password with an unencoded @), a trustProxy address that is no address, the metrics
// listener on the service's own port. config check reports them as the boot does (docs/configuration.md).

const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function addressProblems(config: Config, env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  const issuer = parsed(config.baseUrl);
  if (issuer === null) problems.push(problemAt('baseUrl', 'is not a URL that parses (a port above 65535?)', env));
  else problems.push(...issuerProblems(issuer, config.baseUrl).map((problem) => problemAt('baseUrl', problem, env)));
  for (const key of ['databaseUrl', 'databaseReadUrl', 'databaseDirectUrl'] as const) {
    const value = config[key];
    // The URL holds a password: the problem says what to look at, never the value.
    if (value !== null && parsed(value) === null)
      problems.push(problemAt(key, 'is not a URL that parses: check its port, and that @ : / in the password are percent-encoded', env));
  }
  for (const entry of trustedProxies(config.trustProxy)) {
    if (!isAddressOrRange(entry)) problems.push(problemAt('trustProxy', `${entry} is not an IP address or CIDR range`, env));
  }
  if (sharesTheServicePort(config)) {
    problems.push(
      problemAt('metrics.port', `is the service's own port (${config.port}): give the metrics listener another, or null for none`, env),
    );
  }
  return problems;
}

const ANY_ADDRESS = new Set(['0.0.0.0', '::']);

/** Whether the metrics listener would bind the service's own address and port (the boot: "already in use"). */
function sharesTheServicePort({ host, port, metrics }: Config): boolean {
  if (metrics.port === null || metrics.port === 0 || metrics.port !== port) return false;
  return metrics.host === host || ANY_ADDRESS.has(metrics.host) || ANY_ADDRESS.has(host);
}

// The issuer is baseUrl as written (RFC 8414 section 2), published in every document and token and compared byte for
// byte by clients: a user name or password would be published with it, and a dot segment is what a client's URL
// library removes (the issuer then differs from the metadata's own URL).
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

function issuerProblems(url: URL, baseUrl: string): string[] {
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '')
    problems.push('holds a user name or password, which every token and document would publish: remove them');
  if (DOT_SEGMENT.test(baseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')))
    problems.push('has a "." or ".." path segment: write the path without it');
  return problems;
}

function parsed(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function trustedProxies(value: Config['trustProxy']): string[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  return Array.isArray(value) ? value.map((entry) => entry.trim()) : [];
}

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
