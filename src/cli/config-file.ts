import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** What --config and OAUTH_CONFIG say for "no file, the defaults and the environment only". */
export const NO_CONFIG_FILE = 'none';

/**
 * The config file a command reads (issue 32): --config PATH, else OAUTH_CONFIG, else config.json in the working
 * directory when there is one, as the README's recipes ("in config.json") expect; `none` in either says no file. An
 * empty OAUTH_CONFIG counts as unset, like every other variable. Absolute, so that the banner, `config check` and
 * the errors name the file that was read wherever the command ran.
 */
export function resolveConfigFile(flag: string | undefined, env: Record<string, string | undefined>, cwd: string): string | null {
  const named = flag ?? (env.OAUTH_CONFIG === '' ? undefined : env.OAUTH_CONFIG);
  if (named === NO_CONFIG_FILE) return null;
  if (named !== undefined) return resolve(cwd, named);
  const local = resolve(cwd, 'config.json');
  return existsSync(local) ? local : null;
}

/** The banner's and `config check`'s line that says which configuration was loaded. */
export function configFileLine(file: string | null): string {
  return `config: ${file ?? 'none (defaults)'}`;
}
