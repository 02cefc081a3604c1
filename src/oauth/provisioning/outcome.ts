import type { OAuthDeps } from '../deps.js';
import type { DeclaredObject, Problems } from './declared-object.js';

export type ProvisionedKind = 'application' | 'user' | 'resource' | 'registration_token';
export type ProvisioningAction = 'created' | 'updated' | 'unchanged' | 'deleted' | 'revoked';

/** What applying one declared (or, with prune, undeclared) object did, or would do in a dry run. */
export interface ProvisioningChange {
  kind: ProvisionedKind;
  /** How the file names it: uid, username, URI, or the first 12 hex digits of a token's SHA-256. */
  name: string;
  action: ProvisioningAction;
  /** The fields an update changed, by their names in the file; empty otherwise. */
  fields: string[];
  /**
   * A client secret generated now (a confidential application created, or made confidential, without secret_env):
   * shown this once. Null in a dry run, which generates one only to throw it away.
   */
  newSecret?: string | null;
}

/** A provisioning file that cannot be applied: every problem, each `path: message`. Nothing was changed. */
export class ProvisioningInvalid extends Error {
  constructor(readonly problems: Problems) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the provisioning file`);
  }
}

/** What one run records: the changes, and the problems the domain's rules found on the way (then nothing is kept). */
export interface Outcome {
  changes: ProvisioningChange[];
  problems: Problems;
  /** The applications of the file that could not be created, by uid: their path, for the objects that name them. */
  uncreatedApplications: Map<string, string>;
}

/** How one kind of object is declared and applied; the file's member is `member`, an array of such objects. */
export interface KindHandler<Declared extends { path: string }> {
  member: string;
  /** The fields an object of this kind may have. */
  fields: readonly string[];
  /** The field that identifies an object of this kind, in the file and in the database. */
  identityField: string;
  /** Reads an object as the file gives it (null when it has problems); `env` supplies secret_env values. */
  read(object: DeclaredObject, env: Readonly<Record<string, string | undefined>>): Declared | null;
  identity(declared: Declared): string;
  /** Creates or updates it, or records that nothing changed; the domain's refusals become problems. */
  apply(deps: OAuthDeps, declared: Declared, outcome: Outcome): Promise<void>;
  /** Deletes (registration tokens: revokes) those of this kind that none of `declared` names (`--prune`). */
  prune(deps: OAuthDeps, declared: Declared[], outcome: Outcome): Promise<void>;
}

/** `path.field: message` for each message of each field the domain refused, its field named as in the file. */
export function fieldProblems(
  path: string,
  fieldErrors: Partial<Record<string, string[]>>,
  fileField: (field: string) => string = (field) => field,
): Problems {
  return Object.entries(fieldErrors).flatMap(([field, messages]) =>
    (messages ?? []).map((message) => `${path}.${fileField(field)}: ${message}`),
  );
}
