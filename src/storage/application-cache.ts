import type { ApplicationAdminStore, ApplicationRecord, ApplicationStore } from '../oauth/store.js';

export interface ApplicationCacheOptions {
  /** How long another instance's change may go unseen here; this instance's own changes invalidate at once. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
  /** Registers what empties the cache when another process is known to have changed the data (embedded CLI). */
  onInvalidate?: (forgetAll: () => void) => void;
}

interface Entry {
  application: ApplicationRecord;
  expiresAt: number;
}

/**
 * Client authentication looks the application up on every token and introspection request; caching the
 * row for a few seconds takes a query off the hot path (SPEC 9). Misses are not cached, so a client created
 * on another instance works at once; a change made elsewhere (rotated secret, deletion) is seen within ttlMs.
 */
export function cachedApplications(
  repository: ApplicationStore & ApplicationAdminStore,
  { ttlMs, maxEntries, now = Date.now, onInvalidate }: ApplicationCacheOptions,
): ApplicationStore & ApplicationAdminStore {
  const byUid = new Map<string, Entry>();
  const byId = new Map<number, Entry>();
  onInvalidate?.(() => {
    byUid.clear();
    byId.clear();
  });

  const remember = (application: ApplicationRecord | null) => {
    if (!application) return application;
    if (byUid.size >= maxEntries) {
      byUid.clear();
      byId.clear();
    }
    const entry = { application, expiresAt: now() + ttlMs };
    byUid.set(application.uid, entry);
    byId.set(application.id, entry);
    return application;
  };
  const fresh = (entry: Entry | undefined) => (entry && entry.expiresAt > now() ? entry.application : undefined);
  const forget = (id: number) => {
    const entry = byId.get(id);
    byId.delete(id);
    if (entry) byUid.delete(entry.application.uid);
  };

  return {
    findByUid: async (uid) => fresh(byUid.get(uid)) ?? remember(await repository.findByUid(uid)),
    findById: async (id) => fresh(byId.get(id)) ?? remember(await repository.findById(id)),
    async markUsed(id, at) {
      await repository.markUsed(id, at);
      forget(id);
    },
    list: () => repository.list(),
    findByIdForUpdate: (id) => repository.findByIdForUpdate(id),
    create: (input) => repository.create(input),
    async update(id, changes, only) {
      forget(id);
      const updated = await repository.update(id, changes, only);
      forget(id);
      return updated;
    },
    findByRegistrationAccessToken: (storedToken) => repository.findByRegistrationAccessToken(storedToken),
    async delete(id, only) {
      forget(id);
      return repository.delete(id, only);
    },
  };
}
