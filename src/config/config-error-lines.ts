import type { ErrorObject } from 'ajv/dist/2019.js';
import { ENV_PREFIX, envVariableAt } from './env-overrides.js';
import { closestKey } from './key-suggestion.js';
import { configSchema } from './schema.js';

// A config's validation errors in words: each key by its full path (or the environment variable that set it), what it
// must be, and for a misspelled key the known key it is closest to.

/** Ajv's errors as "path: problem" lines, the unknown keys named by their full path. */
export function configErrorLines(errors: ErrorObject[], env: Record<string, string | undefined>): string[] {
  const lines = new Set<string>();
  const patterned = new Set(errors.filter((error) => error.keyword === 'pattern').map((error) => error.instancePath));
  for (const error of errors) {
    // An anyOf's alternatives each fail in their own way; the anyOf error itself says what would be valid.
    if (error.keyword === 'oneOf' || error.keyword === 'if' || error.schemaPath.includes('/anyOf/')) continue;
    // One problem, one line: where a pattern says what is expected (baseUrl), its "must match format uri" adds nothing.
    if (error.keyword === 'format' && patterned.has(error.instancePath)) continue;
    // A key that propertyNames refuses (a language of scopeDescriptions): the error nested in it names the key and
    // what it must be; the wrapper's "property name must be valid" says neither.
    if (error.keyword === 'propertyNames') continue;
    const at = error.instancePath === '' ? '' : error.instancePath.slice(1).replaceAll('/', '.');
    if (error.keyword === 'additionalProperties') {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const meant = closestKey(key, siblingKeys(error.schemaPath));
      const hint = meant ? `did you mean \`${meant}\`?` : 'misspelled? see config.example.json';
      lines.add(`${at ? `${at}.` : ''}${key}: unknown key (${hint})`);
      continue;
    }
    const variable = envVariableAt(at, env);
    const { propertyName } = error as ErrorObject & { propertyName?: string };
    const problem = propertyName === undefined ? explain(error) : `the key ${JSON.stringify(propertyName)} ${explain(error)}`;
    lines.add(variable ? `${ENV_PREFIX}${variable}: ${problem} (it sets ${at})` : `${at || '(root)'}: ${problem}`);
  }
  return [...lines];
}

/** The schema.ts node whose keyword an error's schema path ends in. */
function schemaNodeOf(schemaPath: string): unknown {
  let node: unknown = configSchema;
  for (const segment of schemaPath.replace(/^#\//, '').split('/').slice(0, -1))
    node = (node as Record<string, unknown> | undefined)?.[segment];
  return node;
}

/** The keys the object at an additionalProperties error's schema path allows (schema.ts), for "did you mean". */
function siblingKeys(schemaPath: string): string[] {
  const properties = (schemaNodeOf(schemaPath) as { properties?: Record<string, unknown> } | undefined)?.properties;
  return Object.keys(properties ?? {}).filter((key) => key !== '$schema');
}

/**
 * What a discriminator's property (an introspection rule's `rule`) may be: the const of each alternative of its oneOf,
 * read from the schema so that a rule added there is named here too.
 */
function discriminatorValues(schemaPath: string, tag: string): string {
  const node = schemaNodeOf(schemaPath) as { oneOf?: Array<{ properties?: Record<string, { const?: unknown }> }> } | undefined;
  return (node?.oneOf ?? []).map((alternative) => JSON.stringify(alternative.properties?.[tag]?.const)).join(', ');
}

/** What the keys that take one of several forms (anyOf in schema.ts) accept, in the words of their description. */
const ACCEPTED_FORMS: Record<string, string> = {
  trustProxy:
    'must be true or false, a number of proxy hops (1 to 32), or the addresses/CIDRs of the proxies separated by commas (e.g. 10.0.0.2,10.1.0.0/16; or loopback, linklocal, uniquelocal)',
};

function explain(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'anyOf':
      return ACCEPTED_FORMS[error.instancePath.slice(1)] ?? 'has none of the accepted forms (see docs/configuration.md)';
    case 'type':
      return `must be ${String(params.type).replace(',', ' or ')}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'discriminator': {
      const tag = String(params.tag);
      return `${tag} must be one of ${discriminatorValues(error.schemaPath, tag)}`;
    }
    case 'pattern':
      return `has the wrong format (must match ${String(params.pattern)})`;
    default:
      return error.message ?? error.keyword;
  }
}
