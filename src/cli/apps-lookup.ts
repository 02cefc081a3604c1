import { findApplication as findApplicationById, findApplicationByUid } from '../oauth/clients/applications.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { ApplicationRecord } from '../oauth/store.js';
import { UsageError } from './io.js';

/**
 * By uid (what clients know) or by numeric id. A number that is one application's uid (an imported client id) and
 * another's id names neither: `apps delete 12` must not pick one of two by a rule the operator may not know.
 */
export async function findApplication(deps: OAuthDeps, reference: string): Promise<ApplicationRecord> {
  const byUid = await findApplicationByUid(deps, reference);
  const byId = /^[1-9][0-9]{0,14}$/.test(reference) ? await findApplicationById(deps, Number(reference)) : null;
  if (byUid && byId && byUid.id !== byId.id) {
    throw new UsageError(
      `${reference} is the uid of application ${byUid.id} and the id of application ${byId.uid}: give ${byUid.id} or ${byId.uid}`,
    );
  }
  const found = byUid ?? byId;
  if (found) return found;
  throw notFound(reference);
}

export const notFound = (reference: string) => new UsageError(`no application with uid or id ${reference}`);
