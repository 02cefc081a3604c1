// How the repositories read and write rows. A table has one row shape, the model Prisma generates from
// prisma/schema.prisma (where a column is declared once): Prisma's queries return it, and the raw SQL of the
// hot paths selects the same fields under the same names (selectList), so each repository has one mapper that
// reads both. Scopes and redirect URIs are whitespace-separated strings in Doorkeeper's tables.

/** A model's row from either client: Prisma returns BIGINT as bigint, the SQL client as number (sql-client.ts). */
export type Row<Model> = { [Field in keyof Model]: bigint extends Model[Field] ? Model[Field] | number : Model[Field] };

/** A field's column: its name in snake_case, as every @map in prisma/schema.prisma says (Doorkeeper's names). */
export const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The SELECT list of a model's scalar fields (Prisma's generated `<Model>ScalarFieldEnum`), each column under
 * its field name, so a raw row has the model's shape; `table` qualifies the columns in a join.
 */
export function selectList(fields: Record<string, string>, table?: string): string {
  const qualify = table ? (column: string) => `${table}.${column}` : (column: string) => column;
  return Object.keys(fields)
    .map((field) => (columnOf(field) === field ? qualify(field) : `${qualify(columnOf(field))} AS "${field}"`))
    .join(', ');
}

/** The fields a raw INSERT writes: all of the model's but those the database fills in or a later update sets. */
export const insertedFields = <Field extends string>(fields: Record<Field, string>, setLater: readonly Field[]): Field[] =>
  (Object.keys(fields) as Field[]).filter((field) => !setLater.includes(field));

export const splitList = (value: string | null) => (value ? value.split(/\s+/).filter(Boolean) : []);

/** A list stored as one space-separated column that is NULL when the list is empty or absent (an audience). */
export const joinedOrNull = (values: readonly string[] | undefined) => (values && values.length > 0 ? values.join(' ') : null);

/** TIMESTAMP columns hold UTC wall time; an ISO string with Z is stored as exactly that. */
export const timestamp = (date: Date) => date.toISOString();
