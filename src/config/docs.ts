import { configSchema } from './schema.js';

type SchemaNode = { description?: string; default?: unknown; type?: unknown; enum?: unknown[]; properties?: Record<string, SchemaNode> };

/** The README's table of config keys, generated from the schema so the two never disagree. */
export function configTable(): string {
  const rows: string[] = ['| key | default | meaning |', '|---|---|---|'];
  const visit = (properties: Record<string, SchemaNode>, prefix: string) => {
    for (const [name, node] of Object.entries(properties)) {
      if (name === '$schema') continue;
      const key = `${prefix}${name}`;
      if (node.properties) {
        visit(node.properties, `${key}.`);
        continue;
      }
      rows.push(`| \`${key}\` | \`${JSON.stringify(node.default ?? null)}\` | ${(node.description ?? '').replaceAll('|', '\\|')} |`);
    }
  };
  visit(configSchema.properties as unknown as Record<string, SchemaNode>, '');
  return rows.join('\n');
}
