import { configSchema } from './schema.js';

type SchemaNode = { description?: string; default?: unknown; type?: unknown; enum?: unknown[]; properties?: Record<string, SchemaNode> };

/** The table of config keys in docs/configuration.md, generated from the schema so the two never disagree. */
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

const TABLE_SECTION = /(<!-- config-table:start[^>]*-->\n)[\s\S]*?(\n<!-- config-table:end -->)/;

/** The table between the config-table markers of a page, or null when the page has no markers. */
export function configTableIn(page: string): string | null {
  const section = /<!-- config-table:start[^>]*-->\n([\s\S]*?)\n<!-- config-table:end -->/.exec(page);
  return section?.[1] ?? null;
}

/** The page with the table between its config-table markers replaced; throws when the markers are missing. */
export function replaceConfigTable(page: string, table: string): string {
  if (!TABLE_SECTION.test(page)) throw new Error('no <!-- config-table:start --> ... <!-- config-table:end --> markers');
  return page.replace(TABLE_SECTION, (_match, start: string, end: string) => `${start}${table}${end}`);
}
