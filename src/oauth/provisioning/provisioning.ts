import { recordAuditEvent, type AuditActor } from '../audit/audit-trail.js';
import { provisioningEvents } from '../audit/provisioning-events.js';
import type { OAuthDeps } from '../deps.js';
import { declaredApplications } from './declared-applications.js';
import { DeclaredObject, type Problems } from './declared-object.js';
import { declaredRegistrationTokens } from './declared-registration-tokens.js';
import { declaredResources } from './declared-resources.js';
import { declaredUsers } from './declared-users.js';
import { ProvisioningInvalid, type KindHandler, type Outcome, type ProvisioningChange } from './outcome.js';

// Provisioning (issue 30, `oauth-service apply -f FILE`): a file declares applications, users, resources and
// registration tokens; applying it creates or updates each to match, in one transaction, through the same domain
// functions and rules as the admin UI and the other CLI commands, and says what changed. Applying it again changes
// nothing. This folder owns it: declared-object.ts reads the file's JSON, one declared-*.ts per kind (all of the
// shape KindHandler in outcome.ts), and this file, which puts them together.

// In this order: a resource may name an application of the same file as its server client.
const KINDS = [declaredApplications, declaredResources, declaredUsers, declaredRegistrationTokens] as const;

/** The kinds a file declares (its member is present, even empty), each with its objects, ready to apply. */
export interface Provisioning {
  kinds: DeclaredKind[];
}

interface DeclaredKind {
  member: string;
  apply(deps: OAuthDeps, outcome: Outcome): Promise<void>;
  prune(deps: OAuthDeps, outcome: Outcome): Promise<void>;
}

export interface ApplyOptions {
  /** Work everything out and report it, then roll it back. */
  dryRun: boolean;
  /** Also delete what the file does not declare, of the kinds it declares (registration tokens: revoke). */
  prune: boolean;
  /** Who applies it, for the audit trail: each change is recorded in the same transaction. */
  by: AuditActor;
}

/**
 * Reads a parsed provisioning file. `env` gives the values of the environment variables that secret_env names.
 * Throws ProvisioningInvalid with every problem of its form: a wrong type, a missing or unknown field, an object
 * declared twice, an unset variable.
 */
export function readProvisioning(input: unknown, env: Readonly<Record<string, string | undefined>>): Provisioning {
  const problems: Problems = [];
  const file = DeclaredObject.read(
    input,
    '',
    KINDS.map((kind) => kind.member),
    problems,
  );
  if (file === null) throw new ProvisioningInvalid([`the file must be a JSON object with ${KINDS.map((kind) => kind.member).join(', ')}`]);
  const kinds = KINDS.flatMap((handler) => {
    const declared = declaredOfKind(file, handler as KindHandler<{ path: string }>, env, problems);
    return declared ? [declared] : [];
  });
  if (problems.length > 0) throw new ProvisioningInvalid(problems);
  return { kinds };
}

function declaredOfKind<Declared extends { path: string }>(
  file: DeclaredObject,
  handler: KindHandler<Declared>,
  env: Readonly<Record<string, string | undefined>>,
  problems: Problems,
): DeclaredKind | null {
  const value = file.raw(handler.member);
  if (value === undefined) return null;
  if (!Array.isArray(value)) {
    file.problem(handler.member, 'must be an array');
    return null;
  }
  const objects: Declared[] = [];
  const seen = new Map<string, string>();
  value.forEach((element, index) => {
    const object = DeclaredObject.read(element, `${handler.member}[${index}]`, handler.fields, problems);
    const declared = object && handler.read(object, env);
    if (!declared) return;
    const first = seen.get(handler.identity(declared));
    if (first !== undefined) object.problem(handler.identityField, `${handler.identity(declared)} is declared already, at ${first}`);
    seen.set(handler.identity(declared), declared.path);
    objects.push(declared);
  });
  return {
    member: handler.member,
    apply: async (deps, outcome) => {
      for (const declared of objects) await handler.apply(deps, declared, outcome);
    },
    prune: (deps, outcome) => handler.prune(deps, objects, outcome),
  };
}

/** Ends the transaction of a dry run (a rollback) with what it would have done. */
class RolledBack extends Error {
  constructor(readonly changes: ProvisioningChange[]) {
    super('dry run');
  }
}

/**
 * Applies a provisioning file in one transaction (Stores.adminTransaction), one run at a time (the second run of a
 * file then finds what the first made: unchanged, not "already exists"): everything, or nothing when the domain
 * refuses anything (ProvisioningInvalid, every refusal named by its place in the file). The changes are those made,
 * or in a dry run those that would be, with no generated secret (it was thrown away).
 */
export async function applyProvisioning(
  deps: OAuthDeps,
  provisioning: Provisioning,
  { dryRun, prune, by }: ApplyOptions,
): Promise<ProvisioningChange[]> {
  try {
    return await deps.stores.adminTransaction(
      async (stores) => {
        const inTransaction: OAuthDeps = { ...deps, stores };
        const outcome: Outcome = { changes: [], problems: [], uncreatedApplications: new Map() };
        for (const kind of provisioning.kinds) await kind.apply(inTransaction, outcome);
        // The undeclared go in the reverse order: tokens and users before the resources, the applications last.
        if (prune) for (const kind of [...provisioning.kinds].reverse()) await kind.prune(inTransaction, outcome);
        if (outcome.problems.length > 0) throw new ProvisioningInvalid(outcome.problems);
        if (dryRun) throw new RolledBack(outcome.changes);
        for (const event of await provisioningEvents(stores, outcome.changes))
          await recordAuditEvent(stores, deps.now(), { ...event, ...by });
        return outcome.changes;
      },
      { exclusive: true },
    );
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
    return error.changes.map((change) => (change.newSecret === undefined ? change : { ...change, newSecret: null }));
  }
}
