import type { FastifyRequest, FastifySchemaValidationError } from 'fastify';

// What a route's JSON Schema refused, for an admin or a script to read. Fastify's own message lists each of Ajv's
// errors: for a field with alternatives (anyOf: a boolean, a checkbox's text, a list of them) that is one error per
// alternative and then "must match a schema in anyOf". Those fold into one sentence that says what the field takes.

type Schema = { type?: string; enum?: readonly unknown[]; items?: Schema; format?: string };

/** The refusals of `errors` (the validation of `request`'s `context`: body, querystring...), one phrase per field. */
export function validationMessage(request: FastifyRequest, errors: readonly FastifySchemaValidationError[], context: string): string {
  const alternatives = errors.filter((error) => error.keyword === 'anyOf');
  const folded = (error: FastifySchemaValidationError) =>
    alternatives.some((anyOf) => anyOf !== error && error.schemaPath.startsWith(`${anyOf.schemaPath}/`));
  const phrases = errors
    .filter((error) => !folded(error))
    .map((error) => {
      const field = fieldName(error.instancePath, context);
      const choices = error.keyword === 'anyOf' ? schemaAt(request, context, error.schemaPath) : undefined;
      return Array.isArray(choices)
        ? `${field} must be ${alternativesText(choices as Schema[])}`
        : `${field} ${error.message ?? 'is not valid'}`;
    });
  return [...new Set(phrases)].join('; ');
}

const fieldName = (instancePath: string, context: string): string =>
  instancePath === '' ? context : instancePath.slice(1).replaceAll('/', '.');

// What the error's path names in the route's schema for that part of the request ('#/properties/x/anyOf': the list).
function schemaAt(request: FastifyRequest, context: string, schemaPath: string): unknown {
  let node: unknown = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context];
  for (const step of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[decodeURIComponent(step.replaceAll('~1', '/').replaceAll('~0', '~'))];
  }
  return node;
}

// "true or false, one of "0", "1", "off", "on", or a list of those": a list whose items are another alternative is
// said as a list of those.
function alternativesText(choices: readonly Schema[]): string {
  const listed = (choice: Schema) =>
    choice.type === 'array' &&
    choice.items !== undefined &&
    choices.some((other) => JSON.stringify(other) === JSON.stringify(choice.items));
  const phrases = choices.filter((choice) => !listed(choice)).map(schemaText);
  const last = choices.some(listed) ? 'a list of those' : phrases.pop();
  return phrases.length === 0 ? (last ?? 'valid') : `${phrases.join(', ')} or ${last}`;
}

function schemaText(schema: Schema): string {
  if (schema.enum?.length === 2 && schema.enum.includes(true) && schema.enum.includes(false)) return TYPE_TEXT.boolean!;
  if (schema.enum) return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  if (schema.format === 'date-time') return 'a date and time (RFC 3339)';
  if (schema.type === 'array') return schema.items ? `a list of ${schemaText(schema.items).replace(/^(a|an) /, '')}s` : 'a list';
  return TYPE_TEXT[schema.type ?? ''] ?? 'valid';
}

const TYPE_TEXT: Record<string, string> = {
  boolean: 'true or false',
  null: 'null',
  string: 'a text',
  integer: 'a whole number',
  number: 'a number',
  object: 'an object',
};
