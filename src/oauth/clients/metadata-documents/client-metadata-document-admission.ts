import type { Config } from '../../../config/types.js';
import type { DocumentClient } from './client-metadata-document.js';
import { FirstFetchAllowance } from './client-metadata-document-limits.js';
import { capReached, roomUnderCap, type CapObserver } from '../registration/registration-cap.js';
import type { ApplicationRecord, LookupOrigin, Stores } from '../../store.js';
import { expiredUnused, unusedClientsExpireBefore } from '../registration/unused-clients.js';

// Issue 29 item 4: a client_id URL with no stored client is a fetch of a URL a stranger chose and, when the document
// is good, a new application row. Sixty of them from one address made sixty fetches and sixty rows. A first fetch
// (no row, or only one that expired unused, unused-clients.ts) is now admitted only within the requester's
// allowance (clientIdMetadataDocuments.firstFetchesPerAddressPerMinute, per address, IPv6 by its /64) and while
// fewer than clientIdMetadataDocuments.maxClients live document clients are stored (registration-cap.ts, its own
// cap beside maxOpenRegistrations, so neither kind of stranger crowds out the other). Refused, nothing is fetched and
// nothing stored; stored clients keep working. The row is made under the registration lock, counted again there.

/** Why a first fetch is refused: the log line's reason and the authorization page's sentence. */
export interface AdmissionRefusal {
  reason: string;
  explanation: string;
}

export interface DocumentAdmissionOptions {
  config: Readonly<Config>;
  now: () => Date;
  observeCap?: CapObserver | undefined;
}

/** Lookups made for no requester (the admin's, logout's) share one allowance. */
const UNATTRIBUTED = '(no address)';

export function documentAdmission(stores: Stores, options: DocumentAdmissionOptions) {
  const { config, now } = options;
  const settings = config.registration.clientIdMetadataDocuments;
  const allowance = new FirstFetchAllowance(settings.firstFetchesPerAddressPerMinute, () => now().getTime());

  const capRefusal = (): AdmissionRefusal => ({
    reason: `${settings.maxClients} clients from metadata documents are stored, the most clientIdMetadataDocuments.maxClients allows; not fetched`,
    explanation:
      'This server already holds as many applications from metadata documents as it allows, so it does not take new ' +
      'ones now. Applications it knows keep working; try again later, or ask the operator of this server.',
  });

  return {
    /** Whether a stored document client expired unused: its client_id is then fetched as a new client. */
    expired: (row: ApplicationRecord): boolean => expiredUnused(row, config.registration.unusedClientLifetimeSeconds, now()),

    /** Spends one first fetch of the requester's allowance; why not, when it is spent (nothing is spent then). */
    spend(origin: LookupOrigin | undefined): AdmissionRefusal | null {
      const address = origin?.address ?? UNATTRIBUTED;
      if (allowance.take(address)) return null;
      return {
        reason: `${settings.firstFetchesPerAddressPerMinute} first fetches from ${address} within a minute, the most clientIdMetadataDocuments.firstFetchesPerAddressPerMinute allows; not fetched`,
        explanation:
          "This server has fetched as many new applications' metadata documents for your network address as it allows " +
          "in a minute, so it did not fetch this application's. Try again in a minute.",
      };
    },

    /** Why no new client may be made now (the cap, counted without the lock), before anything is fetched. */
    async full(): Promise<AdmissionRefusal | null> {
      return (await capReached(stores.registrations, 'metadata_document', options)) ? capRefusal() : null;
    },

    /**
     * The new client's row, made under the registration lock while the cap has room (the expired row it replaces
     * deleted first); the refusal when the cap filled while the document was fetched. `stale` was judged expired
     * from a record that may be cached: it is deleted only if the database still says so, in the same transaction
     * (used or approved meanwhile on another instance, it stays, and making the new row is UidTaken).
     */
    async store(uid: string, client: DocumentClient, stale: ApplicationRecord | null): Promise<ApplicationRecord | AdmissionRefusal> {
      const made = await stores.registrations.exclusively(async (locked) => {
        if (stale)
          await locked.deleteExpiredUnusedClient(
            stale.id,
            unusedClientsExpireBefore(config.registration.unusedClientLifetimeSeconds, now()),
          );
        return (await roomUnderCap(locked, 'metadata_document', options))
          ? locked.createApplication({ ...client, uid, createdAt: now() })
          : null;
      });
      return made ?? capRefusal();
    },
  };
}
