import type { ErrorObject, ValidateFunction } from 'ajv/dist/2019.js';
import { localizedTextSchema } from '../../config/page-locales.js';

// RFC 9396 section 2: what a resource declares about the authorization_details types it serves, and the JSON Schemas
// the objects of each type are checked against. Ajv is loaded when first needed (as the config loads it: it costs a
// CLI command ~100 ms), and each schema is compiled once per process, keyed by its JSON text.

/** A schema (JSON Schema 2019-09, or a boolean) that the objects of one type must pass; null: any object of the type. */
export type DetailSchema = Record<string, unknown> | boolean;

/** One type a resource serves: its schema, and the consent page's text (a `{{path}}` template, or one per language). */
export interface AuthorizationDetailsType {
  schema: DetailSchema | null;
  consent: string | Partial<Record<string, string>> | null;
}

export type AuthorizationDetailsTypes = Record<string, AuthorizationDetailsType>;

/** A type name: printable ASCII without spaces, as RFC 9396 section 2 leaves it to the server (the common names are short). */
export const TYPE_NAME = /^[\x21-\x7E]{1,100}$/;

// The declaration itself, checked before its schemas are compiled.
const DECLARATION_SCHEMA = {
  type: 'object',
  propertyNames: { pattern: TYPE_NAME.source },
  additionalProperties: {
    type: 'object',
    properties: { schema: { type: ['object', 'boolean', 'null'] }, consent: { anyOf: [localizedTextSchema, { type: 'null' }] } },
    additionalProperties: false,
  },
} as const;

type AjvInstance = InstanceType<(typeof import('ajv/dist/2019.js'))['Ajv2019']>;
let ajvLoading: Promise<AjvInstance> | null = null;
const compiled = new Map<string, ValidateFunction>();

function ajv(): Promise<AjvInstance> {
  ajvLoading ??= import('ajv/dist/2019.js').then(({ Ajv2019 }) => new Ajv2019({ allErrors: false, strict: false, validateSchema: true }));
  return ajvLoading;
}

/** A schema's validating function, compiled once. Throws (Ajv's message) when the schema is not one. */
export async function detailValidator(schema: DetailSchema): Promise<ValidateFunction> {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  const validate = (await ajv()).compile(schema);
  compiled.set(key, validate);
  return validate;
}

/** Ajv's first error in words: where in the object, and what is wrong there. */
export function firstSchemaError(errors: readonly ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return 'does not match its schema';
  return `${error.instancePath === '' ? '' : `${error.instancePath} `}${error.message ?? 'is invalid'}`;
}

/**
 * The problem with a declaration as typed (the admin form's JSON, the CLI's options), or null: the declaration's own
 * shape, then each schema as a schema (Ajv's meta-schema, and that it compiles: an unknown $ref fails there).
 */
export async function declarationProblem(declaration: unknown): Promise<string | null> {
  const instance = await ajv();
  const validate = await detailValidator(DECLARATION_SCHEMA as unknown as DetailSchema);
  if (!validate(declaration)) {
    return `Authorization details types must be a JSON object of types, each {"schema": ..., "consent": ...}: ${firstSchemaError(validate.errors)}`;
  }
  for (const [type, { schema }] of Object.entries(declaration as AuthorizationDetailsTypes)) {
    if (schema === null || schema === undefined) continue;
    if (!(await instance.validateSchema(schema))) {
      return `The JSON Schema of ${type} is not a valid schema: ${instance.errorsText(instance.errors, { dataVar: 'schema' })}`;
    }
    try {
      await detailValidator(schema);
    } catch (error) {
      return `The JSON Schema of ${type} cannot be used: ${(error as Error).message}`;
    }
  }
  return null;
}

/** The stored form (JSON text, or null for none) of a declaration, and back. */
export function declarationJson(types: AuthorizationDetailsTypes): string | null {
  return Object.keys(types).length === 0 ? null : JSON.stringify(types);
}

export function storedDeclaration(json: string | null): AuthorizationDetailsTypes {
  if (json === null || json === '') return {};
  const parsed = JSON.parse(json) as AuthorizationDetailsTypes;
  return Object.fromEntries(
    Object.entries(parsed).map(([type, entry]) => [type, { schema: entry.schema ?? null, consent: entry.consent ?? null }]),
  );
}
