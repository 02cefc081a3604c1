import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveControllerClasses } from './controllers/registry.js';
import type { Extensions } from './extensions.js';

/** The hooks an extensions module may export beside `controllers` (SPEC 7, docs/extending.md). */
export const HOOK_NAMES = [
  'beforeTokenResponse',
  'allowTokenIntrospection',
  'customIntrospectionResponse',
  'resourceOwnerFromCredentials',
  'authenticateAdmin',
] as const;

/**
 * Loads the extensions module named in the config (SPEC 7): its named exports, or an object as its default
 * export. A missing module, an unknown export, a hook that is not a function or a controller that is not a
 * subclass of the built-in one stops the boot with a message naming the module.
 */
export async function loadExtensions(path: string | null): Promise<Extensions> {
  if (!path) return {};
  const url = pathToFileURL(resolve(path)).href;
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`extensions: cannot load ${path}: ${(error as Error).message}`);
  }
  const module = moduleExports(loaded, path);
  const known = new Set<string>([...HOOK_NAMES, 'controllers']);
  const unknown = Object.keys(module).filter((key) => !known.has(key));
  if (unknown.length) {
    throw new Error(`extensions: ${path} exports unknown names: ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  }
  for (const name of HOOK_NAMES) {
    if (module[name] !== undefined && typeof module[name] !== 'function')
      throw new Error(`extensions: ${name} in ${path} must be a function`);
  }
  // Resolved here, so the CLI fails before it opens the database and a controllers function runs once.
  const controllers = resolveControllerClasses(module.controllers, `extensions (${path})`);
  return { ...module, controllers } as Extensions;
}

/** Named exports, or one object as the default export; not both, so nothing is silently ignored. */
function moduleExports(loaded: Record<string, unknown>, path: string): Record<string, unknown> {
  if (!('default' in loaded)) return loaded;
  const { default: value, ...named } = loaded;
  if (typeof value !== 'object' || value === null)
    throw new Error(`extensions: the default export of ${path} must be an object of hooks and controllers`);
  if (Object.keys(named).length) {
    throw new Error(
      `extensions: ${path} has both a default export and named exports (${Object.keys(named).join(', ')}); use one or the other`,
    );
  }
  return value as Record<string, unknown>;
}
