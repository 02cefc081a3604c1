import type { OAuthDeps } from '../deps.js';
import type { ApplicationRecord } from '../store.js';
import { reviewedFingerprint } from './client-approval.js';

// An admin's verdict on an application: approving a self-registered client, disabling and enabling any.

export class ApprovalNotNeeded extends Error {
  constructor() {
    super('An application made by an admin needs no approval');
  }
}

export class ApprovalOfChangedApplication extends Error {
  constructor() {
    super('The application changed its reviewed metadata since this page was shown: review it again before approving.');
  }
}

/** The application after an admin's verdict, and whether the verdict changed it (doing it again changes nothing). */
export interface VerdictResult {
  application: ApplicationRecord;
  changed: boolean;
}

/**
 * Issue 19: an admin vouches for a self-registered client, and the consent screen stops warning about it. An
 * admin-made application needs no approval (422). Approving again keeps the first approval's time. `seen`, the
 * reviewed fields' fingerprint of the page the admin approved from (client-approval.ts), must still be the
 * client's: one that changed itself meanwhile is not approved (issue 29 item 3). The row is read locked, so that
 * an RFC 7592 update committing meanwhile either comes first (and the fingerprint differs) or waits and voids the
 * approval: never an approval of metadata the admin did not see.
 */
export async function approveApplication(deps: OAuthDeps, id: number, seen?: string): Promise<VerdictResult | null> {
  const current = await deps.stores.applicationAdmin.findByIdForUpdate(id);
  if (!current) return null;
  if (current.registeredBy === 'admin') {
    throw new ApprovalNotNeeded();
  }
  if (current.approvedAt !== null) return { application: current, changed: false };
  if (seen !== undefined && seen !== reviewedFingerprint(current)) throw new ApprovalOfChangedApplication();
  return verdict(await deps.stores.applicationAdmin.update(id, { approvedAt: deps.now() }));
}

/**
 * Issue 19: a disabled application can neither be authorized nor authenticate; enabling lets it do both again.
 * Disabling revokes nothing: its tokens stay as they are, so that enabling it again restores it unchanged (delete
 * the application to remove them). Disabling or enabling twice keeps the state and its time, and records no event.
 */
export async function setApplicationDisabled(deps: OAuthDeps, id: number, disabled: boolean): Promise<VerdictResult | null> {
  const current = await deps.stores.applicationAdmin.findByIdForUpdate(id);
  if (!current) return null;
  if ((current.disabledAt !== null) === disabled) return { application: current, changed: false };
  return verdict(await deps.stores.applicationAdmin.update(id, { disabledAt: disabled ? deps.now() : null }));
}

const verdict = (application: ApplicationRecord | null): VerdictResult | null => application && { application, changed: true };
