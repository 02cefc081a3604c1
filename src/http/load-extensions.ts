import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONTROLLER_KEYS, type Extensions } from './extensions.js';

const HOOK_NAMES = [
  'beforeTokenResponse',
  'allowTokenIntrospection',
  'customIntrospectionResponse',
  'resourceOwnerFromCredentials',
  'authenticateAdmin',
] as const;

/** Loads the extensions module named in the config (SPEC 7); a clear error when it is missing or wrong. */
export async function loadExtensions(path: string | null): Promise<Extensions> {
  if (!path) return {};
  const url = pathToFileURL(resolve(path)).href;
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`extensions: cannot load ${path}: ${(error as Error).message}`);
  }
  const module = (loaded.default && typeof loaded.default === 'object' ? loaded.default : loaded) as Record<string, unknown>;
  const known = new Set<string>([...HOOK_NAMES, 'controllers', 'default']);
  const unknown = Object.keys(module).filter((key) => !known.has(key));
  if (unknown.length) {
    throw new Error(`extensions: ${path} exports unknown names: ${unknown.join(', ')} (known: ${[...HOOK_NAMES, 'controllers'].join(', ')})`);
  }
  for (const name of HOOK_NAMES) {
    if (module[name] !== undefined && typeof module[name] !== 'function') throw new Error(`extensions: ${name} in ${path} must be a function`);
  }
  const controllers = (module.controllers ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(controllers)) {
    if (!(CONTROLLER_KEYS as readonly string[]).includes(key)) {
      throw new Error(`extensions: unknown controller key '${key}' in ${path} (known: ${CONTROLLER_KEYS.join(', ')})`);
    }
    if (typeof value !== 'function') throw new Error(`extensions: controllers.${key} in ${path} must be a class`);
  }
  return module as Extensions;
}
