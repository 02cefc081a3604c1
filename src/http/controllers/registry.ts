import type { OAuthDeps } from '../../oauth/deps.js';
import * as oauthErrors from '../../oauth/errors.js';
import { ApplicationsController } from '../routes/applications/controller.js';
import { AuthorizationsController } from '../routes/authorize/controller.js';
import { AuthorizedApplicationsController } from '../routes/authorized-applications/controller.js';
import { TokenInfoController } from '../routes/token-info/controller.js';
import { TokensController } from '../routes/token/controller.js';
import type { ControllerServices } from './controller.js';

// The extension registry: the controller keys, the built-in class of each (beside its routes in
// routes/<group>/controller.ts), and how an extension's subclasses replace them.

/** The controller keys of the seed (interface.md "What the service does", item 5). */
export const CONTROLLER_KEYS = ['applications', 'authorized_applications', 'authorizations', 'tokens', 'token_info'] as const;
export type ControllerKey = (typeof CONTROLLER_KEYS)[number];

/** The built-in controller of each key (seed, "What the service does" item 5; SPEC 7). */
export const BUILT_IN_CONTROLLERS = {
  applications: ApplicationsController,
  authorized_applications: AuthorizedApplicationsController,
  authorizations: AuthorizationsController,
  tokens: TokensController,
  token_info: TokenInfoController,
} as const satisfies Record<ControllerKey, unknown>;

export type ControllerClasses = { [K in ControllerKey]: (typeof BUILT_IN_CONTROLLERS)[K] };
/** One instance per key, shared by every route of the key's actions. */
export type Controllers = { [K in ControllerKey]: InstanceType<ControllerClasses[K]> };
/** What an extension may supply: a subclass of the built-in controller for any key. */
export type ControllerOverrides = Partial<ControllerClasses>;

/** The built-in classes by name, handed to an extension's `controllers` function. */
export interface BuiltInControllers {
  ApplicationsController: typeof ApplicationsController;
  AuthorizedApplicationsController: typeof AuthorizedApplicationsController;
  AuthorizationsController: typeof AuthorizationsController;
  TokensController: typeof TokensController;
  TokenInfoController: typeof TokenInfoController;
}

/** The service's OAuth errors (src/oauth/errors.ts), which an action may throw to answer with one. */
export type OAuthErrors = typeof oauthErrors;

/**
 * `controllers` in an extensions module or buildServer's extensions: the subclasses by key, or a function that
 * receives the built-in classes (and the OAuth error classes) and returns them. The function form needs no import of
 * this package, so it works from a module anywhere on disk and can never extend a second copy of the classes.
 */
export type ControllerExtension = ControllerOverrides | ((builtIn: BuiltInControllers, errors: OAuthErrors) => ControllerOverrides);

const BY_NAME: BuiltInControllers = {
  ApplicationsController,
  AuthorizedApplicationsController,
  AuthorizationsController,
  TokensController,
  TokenInfoController,
};

/**
 * The class to use for every key: the extension's subclass, else the built-in one. Anything that is not the
 * built-in class or a subclass of it stops the boot, so a typo or a stray export cannot silently replace an
 * endpoint's behaviour.
 */
export function resolveControllerClasses(extension: unknown, source = 'extensions'): ControllerClasses {
  const supplied = typeof extension === 'function' ? suppliedBy(extension, source) : (extension ?? {});
  // An async function's classes would come too late to be checked and used: its Promise has no keys, and every
  // endpoint silently kept its built-in controller (an extensions audit).
  if (typeof (supplied as { then?: unknown } | null)?.then === 'function')
    throw new Error(`${source}: the controllers function returned a Promise: it must return the classes themselves (not be async)`);
  if (typeof supplied !== 'object' || supplied === null || Array.isArray(supplied)) {
    throw new Error(`${source}: controllers must be an object of classes by controller key, or a function returning one`);
  }
  for (const key of Object.keys(supplied)) {
    if (!(CONTROLLER_KEYS as readonly string[]).includes(key)) {
      throw new Error(`${source}: unknown controller key '${key}' (known: ${CONTROLLER_KEYS.join(', ')})`);
    }
  }
  const classes = { ...BUILT_IN_CONTROLLERS } as Record<ControllerKey, unknown>;
  for (const [key, value] of Object.entries(supplied) as Array<[ControllerKey, unknown]>) {
    if (value === undefined) continue;
    checkSubclass(key, value, source);
    classes[key] = value;
  }
  return classes as ControllerClasses;
}

// The controllers function's own failure, said with the module it is in.
function suppliedBy(extension: unknown, source: string): unknown {
  try {
    return (extension as (builtIn: BuiltInControllers, errors: OAuthErrors) => unknown)(BY_NAME, oauthErrors);
  } catch (error) {
    throw new Error(`${source}: the controllers function failed: ${(error as Error).message}`, { cause: error });
  }
}

function checkSubclass(key: ControllerKey, value: unknown, source: string): void {
  const builtIn = BUILT_IN_CONTROLLERS[key];
  if (value === builtIn) return;
  if (typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof builtIn) return;
  const described = typeof value === 'function' ? `class ${value.name || '(anonymous)'}` : typeof value;
  let message = `${source}: controllers.${key} must be a subclass of ${builtIn.name} (got ${described})`;
  if (typeof value === 'function' && extendsClassNamed(value, builtIn.name)) {
    message += `; it extends another copy of ${builtIn.name} than the running server's (for example dist/ while the server runs from src/): export controllers as a function of the built-in classes instead`;
  }
  throw new Error(message);
}

function extendsClassNamed(value: object, name: string): boolean {
  for (
    let parent = Object.getPrototypeOf(value) as { name?: unknown } | null;
    parent;
    parent = Object.getPrototypeOf(parent) as { name?: unknown } | null
  ) {
    if (parent.name === name) return true;
  }
  return false;
}

/** One instance of each controller, built once at boot. */
export function createControllers(classes: ControllerClasses, deps: OAuthDeps, services: ControllerServices): Controllers {
  return Object.fromEntries(CONTROLLER_KEYS.map((key) => [key, made(key, classes[key], deps, services)])) as Controllers;
}

// A subclass whose constructor fails (throws, or forgets to pass (deps, services) to super) is named in the boot's error.
function made<K extends ControllerKey>(key: K, Class: ControllerClasses[K], deps: OAuthDeps, services: ControllerServices) {
  try {
    return new Class(deps, services);
  } catch (error) {
    if (Class === BUILT_IN_CONTROLLERS[key]) throw error;
    throw new Error(`extensions: the ${key} controller (${Class.name || 'a class'}) could not be made: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
