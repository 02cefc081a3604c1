import type { Ajv2019, ErrorObject, ValidateFunction } from 'ajv/dist/2019.js';
import type { DetailSchema, JsonSchemaChecker } from '../oauth/resources/authorization-details-schemas.js';

// The JSON Schemas of RFC 9396 authorization_details types (a resource declares one per type) checked with Ajv, the
// validator the config is checked with. The domain is framework-free and gets this through OAuthDeps.jsonSchemas, as it
// gets the argon2 PasswordHasher beside it. Ajv
// is loaded when first needed (as the config loads it: it costs a CLI command ~100 ms), and each schema is compiled
// once per process, keyed by its JSON text.

export function ajvJsonSchemaChecker(): JsonSchemaChecker {
  let loading: Promise<Ajv2019> | null = null;
  const compiled = new Map<string, ValidateFunction>();
  const ajv = () => (loading ??= import('ajv/dist/2019.js').then(({ Ajv2019 }) => new Ajv2019({ strict: false })));
  async function validator(schema: DetailSchema): Promise<ValidateFunction> {
    const key = JSON.stringify(schema);
    const known = compiled.get(key);
    if (known) return known;
    const validate = (await ajv()).compile(schema);
    compiled.set(key, validate);
    return validate;
  }
  return {
    async problem(schema, value) {
      const validate = await validator(schema);
      return validate(value) ? null : firstError(validate.errors);
    },
    async schemaProblem(schema) {
      const instance = await ajv();
      if (!(await instance.validateSchema(schema))) {
        return `is not a valid schema: ${instance.errorsText(instance.errors, { dataVar: 'schema' })}`;
      }
      try {
        await validator(schema);
        return null;
      } catch (error) {
        return `cannot be used: ${(error as Error).message}`;
      }
    },
  };
}

/** Ajv's first error in words: where in the object, and what is wrong there. */
function firstError(errors: readonly ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return 'does not match';
  return `${error.instancePath === '' ? '' : `${error.instancePath} `}${error.message ?? 'is invalid'}`;
}
