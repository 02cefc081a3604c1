import { PAGE_LOCALES } from '../../config/page-locales.js';
import { NESTED_TOO_DEEPLY, nestedTooDeeply } from '../json-nesting.js';

// RFC 9396 section 2: what a resource declares about the authorization_details types it serves: per type, the JSON
// Schema its objects must pass and the consent page's text. The schemas are checked by a JsonSchemaChecker (Ajv, in
// src/storage/ajv-json-schema-checker.ts) that the domain gets through OAuthDeps: the domain itself is framework-free.

/** A JSON Schema (2019-09) object, or a boolean schema. */
export type DetailSchema = Record<string, unknown> | boolean;

/** Checks values against JSON Schemas, and schemas themselves. */
export interface JsonSchemaChecker {
  /** What is wrong with `value` ("/path message"), or null when it passes. */
  problem(schema: DetailSchema, value: unknown): Promise<string | null>;
  /** Why `schema` is not a usable schema (in words that follow "The JSON Schema of TYPE "), or null. */
  schemaProblem(schema: DetailSchema): Promise<string | null>;
}

/** One type a resource serves: its schema (null: any object of the type), and the consent page's text (null: its fields). */
export interface AuthorizationDetailsType {
  schema: DetailSchema | null;
  /** A `{{path}}` template for every language, or one per page language. */
  consent: string | Partial<Record<string, string>> | null;
}

export type AuthorizationDetailsTypes = Record<string, AuthorizationDetailsType>;

/** A type name: printable ASCII without spaces, as RFC 9396 section 2 leaves it to the server (the common names are short). */
export const TYPE_NAME = /^[\x21-\x7E]{1,100}$/;

const SHAPE = 'Authorization details types must be a JSON object of types, each {"schema": ..., "consent": ...}';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// The declaration's own shape, before its schemas are looked at.
function shapeProblem(declaration: unknown): string | null {
  if (!isObject(declaration)) return `${SHAPE}.`;
  for (const [type, entry] of Object.entries(declaration)) {
    if (!TYPE_NAME.test(type)) return `${SHAPE}: ${JSON.stringify(type.slice(0, 40))} is not a type name (printable ASCII, no spaces).`;
    if (!isObject(entry)) return `${SHAPE}: ${type} is not an object.`;
    const unknown = Object.keys(entry).find((key) => key !== 'schema' && key !== 'consent');
    if (unknown !== undefined) return `${SHAPE}: ${type} has ${JSON.stringify(unknown.slice(0, 40))}, which is neither.`;
    const { schema = null, consent = null } = entry;
    if (schema !== null && typeof schema !== 'boolean' && !isObject(schema))
      return `${SHAPE}: the schema of ${type} is not a JSON Schema object.`;
    if (consent !== null && typeof consent !== 'string' && !isLocalizedText(consent)) {
      return `${SHAPE}: the consent of ${type} must be a text, or texts by language (${PAGE_LOCALES.join(', ')}).`;
    }
  }
  return null;
}

const isLocalizedText = (value: unknown) =>
  isObject(value) &&
  Object.keys(value).length > 0 &&
  Object.entries(value).every(([locale, text]) => (PAGE_LOCALES as readonly string[]).includes(locale) && typeof text === 'string');

/**
 * The problem with a declaration as typed (the admin form's JSON, the CLI's options), or null: its shape, then each
 * schema as a schema (the checker's meta-schema, and that it compiles: an unknown $ref fails there).
 */
export async function declarationProblem(checker: JsonSchemaChecker, declaration: unknown): Promise<string | null> {
  if (nestedTooDeeply(declaration)) return `Authorization details types is ${NESTED_TOO_DEEPLY}.`;
  const shape = shapeProblem(declaration);
  if (shape !== null) return shape;
  for (const [type, entry] of Object.entries(declaration as Record<string, { schema?: DetailSchema | null }>)) {
    if (entry.schema === null || entry.schema === undefined) continue;
    const problem = await checker.schemaProblem(entry.schema);
    if (problem !== null) return `The JSON Schema of ${type} ${problem}`;
  }
  return null;
}

/** The stored form (JSON text, or null for none) of a declaration, and back. */
export function declarationJson(types: AuthorizationDetailsTypes): string | null {
  return Object.keys(types).length === 0 ? null : JSON.stringify(types);
}

export function storedDeclaration(json: string | null): AuthorizationDetailsTypes {
  if (json === null || json === '') return {};
  const parsed = JSON.parse(json) as Record<string, Partial<AuthorizationDetailsType>>;
  return Object.fromEntries(
    Object.entries(parsed).map(([type, entry]) => [type, { schema: entry.schema ?? null, consent: entry.consent ?? null }]),
  );
}

/** One object of the parameter: a `type`, and whatever fields that type has. */
export type AuthorizationDetail = { type: string } & Record<string, unknown>;
