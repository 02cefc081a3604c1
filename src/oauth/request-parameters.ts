import { InvalidRequest } from './errors.js';

/** Form parameters after the shape checks: every value a single string. */
export type Parameters = Record<string, string>;

const CLIENT_CREDENTIAL_PARAMETERS = ['client_id', 'client_secret'];

/**
 * SPEC 3: parameters come from the form body only. A parameter sent twice (an array), a nested parameter
 * (`scope[0]`, `client_id[x]`), or client credentials in the query string is invalid_request (RFC 6749
 * section 3.2: "Request and response parameters MUST NOT be included more than once"; section 2.3.1:
 * credentials MUST NOT be in the request URI). The reference has no such case (it merges what it is sent), so
 * each says what is wrong, in the words of the authorization endpoint's same refusals.
 */
export function readParameters(body: unknown, query: Record<string, unknown> | undefined): Parameters {
  for (const name of CLIENT_CREDENTIAL_PARAMETERS) {
    if (query && name in query) throw new InvalidRequest(`The parameter ${name} must not be sent in the query string.`);
  }
  const parameters: Parameters = {};
  if (body === undefined || body === null) return parameters;
  if (typeof body !== 'object') throw new InvalidRequest();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name === 'resource' && isStringList(value)) {
      parameters.resource = joinResources(value);
      continue;
    }
    if (Array.isArray(value)) throw InvalidRequest.sentMoreThanOnce(name);
    if (typeof value !== 'string') throw new InvalidRequest();
    if (name.indexOf('[') > 0) throw InvalidRequest.nested(name);
    // No OAuth parameter may hold a NUL (RFC 6749 appendix A: VSCHAR and NQCHAR exclude it), and PostgreSQL
    // text cannot store one: refused here rather than failing in a lookup (SPEC 3: no input gives a 500).
    if (value.includes('\u0000')) throw InvalidRequest.holdsNul(name);
    parameters[name] = value;
  }
  return parameters;
}

// RFC 8707 section 2: resource is the one parameter that may be sent more than once. Its values travel as one
// string joined by NUL, which no parameter value may hold (refused below), so the split is exact.
const RESOURCE_SEPARATOR = '\u0000';
const isStringList = (value: unknown): value is string | string[] =>
  typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));
function joinResources(value: string | string[]): string {
  const values = typeof value === 'string' ? [value] : value;
  if (values.some((item) => item.includes(RESOURCE_SEPARATOR))) throw InvalidRequest.holdsNul('resource');
  return values.join(RESOURCE_SEPARATOR);
}

/** The resource parameters of a request (RFC 8707), in the order sent; none when absent. */
export function resourceParameters(parameters: Parameters): string[] {
  const joined = parameters.resource;
  return joined === undefined ? [] : joined.split(RESOURCE_SEPARATOR);
}

/** A parameter that is present and not blank, else `missingParameter` (reference 2.4). */
export function requireParameter(parameters: Parameters, name: string): string {
  const value = parameters[name];
  if (value === undefined || value.trim() === '') throw InvalidRequest.missingParameter(name);
  return value;
}

/** A parameter, with blank counted as absent. */
export function optionalParameter(parameters: Parameters, name: string): string | undefined {
  const value = parameters[name];
  return value === undefined || value === '' ? undefined : value;
}
