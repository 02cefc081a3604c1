import { findApplication as findApplicationById, findApplicationByUid } from '../oauth/clients/applications.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { ApplicationRecord } from '../oauth/store.js';
import { UsageError } from './io.js';

/** By uid first (what clients know), then by numeric id; a numeric uid wins over another row's id. */
export async function findApplication(deps: OAuthDeps, reference: string): Promise<ApplicationRecord> {
  const byUid = await findApplicationByUid(deps, reference);
  if (byUid) return byUid;
  const byId = /^[1-9][0-9]{0,14}$/.test(reference) ? await findApplicationById(deps, Number(reference)) : null;
  if (byId) return byId;
  throw notFound(reference);
}

export const notFound = (reference: string) => new UsageError(`no application with uid or id ${reference}`);
