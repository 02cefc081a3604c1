import type { SigningKeyRecord } from '../keys/signing-keys.js';
import { objectEvent } from './audit-subjects.js';
import { recordAuditEventAlone } from './audit-trail.js';
import type { OAuthDeps } from '../deps.js';

/**
 * The audit events of the keys the service makes by itself (a first key at boot or at an algorithm's first use, a
 * successor when one is due): one `signing_key.rotated` per key, actor `system`. A failed write is reported, as a
 * sign-in's is: the key exists and signs either way.
 */
export async function recordKeysMadeByService(
  deps: Pick<OAuthDeps, 'stores' | 'now'>,
  keys: readonly SigningKeyRecord[],
  report: (error: unknown) => void,
): Promise<void> {
  for (const key of keys) {
    const details = { alg: key.alg, signs_from: key.signsFrom.toISOString() };
    const event = objectEvent('signing_key.rotated', 'signing_key', key.kid, true, details)!;
    await recordAuditEventAlone(deps, { ...event, actor: 'system', ip: null }, report);
  }
}
