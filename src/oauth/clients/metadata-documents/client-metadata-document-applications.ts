import type { Config } from '../../../config/types.js';
import { reportWithdrawnApproval, reviewedFieldsChanged } from '../client-approval.js';
import { clientFromDocument, clientIdUrlProblem, looksLikeClientIdUrl, type DocumentClient } from './client-metadata-document.js';
import { ClientMetadataDocumentRefused, fetchClientMetadataDocument, type DocumentFetchOptions } from './client-metadata-document-fetch.js';
import { documentAdmission } from './client-metadata-document-admission.js';
import { FetchSlots, REFUSAL_CACHE_SECONDS, RefusalCache } from './client-metadata-document-limits.js';
import type { CapObserver } from '../registration/registration-cap.js';
import { UidTaken, type ApplicationRecord, type ApplicationStore, type LookupOrigin, type Stores } from '../../store.js';

export interface ClientMetadataDocumentOptions {
  config: Readonly<Config>;
  now: () => Date;
  /**
   * Why a document was refused, or that a changed document voided an admin's approval (warn level); the line names
   * the problem, never the document's content.
   */
  warn: (details: Record<string, unknown>, message: string) => void;
  /** Trusted CAs for the documents' https (tests); operators use NODE_EXTRA_CA_CERTS. */
  ca?: DocumentFetchOptions['ca'];
  /** Told of each count against clientIdMetadataDocuments.maxClients (registration-cap.ts). */
  observeCap?: CapObserver;
}

/**
 * Client ID Metadata Documents in the client lookup: with them enabled, `applications.findByUid` of an https URL
 * answers the application row made from the URL's document, fetched when there is no row yet or its
 * metadataExpiresAt has passed (the row is shared by every instance; a refetch rewrites it, so a redirect URI the
 * document dropped stops working). Every other client_id goes straight through. A refused document, also one that
 * fails to refresh an expired row, is an unknown client (null): authorize and token already answer that, the log
 * line says why, and so does the authorization error page, in plain words (clientMetadataDocumentRefusal). The URL
 * is not fetched again on this instance for REFUSAL_CACHE_SECONDS, so naming it on every request does not make
 * this server fetch it on every request. At most MAX_FETCHES_PER_HOST fetches to one host
 * and MAX_FETCHES in all run at once on an instance; a lookup past that fails at once as an unknown client (not
 * remembered as refused). A first fetch (no row yet, or one that expired unused) is made only within the requester's
 * allowance and the cap on document clients (client-metadata-document-admission.ts). A refetched document that changed a reviewed field (client-approval.ts) clears the row's
 * approvedAt. Grants, tokens and revocation see an ordinary application row.
 */
export function withClientMetadataDocuments(stores: Stores, options: ClientMetadataDocumentOptions): Stores {
  const settings = options.config.registration.clientIdMetadataDocuments;
  if (!settings.enabled) return stores;
  const { resolve, explain } = documentResolver(stores, options);
  const applications: ApplicationStore = { ...stores.applications, findByUid: resolve };
  refusalExplanations.set(applications, explain);
  const wrap = (inner: Stores): Stores => ({
    ...inner,
    applications,
    transaction: (work) => inner.transaction((bound) => work(wrap(bound))),
  });
  return wrap(stores);
}

// Keyed by the wrapped ApplicationStore, which every transaction's stores share: the store interface answers
// null for an unknown client, as the token endpoint needs, and the authorization page asks here for the why.
const refusalExplanations = new WeakMap<ApplicationStore, (clientId: string) => string | null>();

/**
 * Why `clientId`, a URL that findByUid just answered null for, names no client: a sentence for the authorization
 * error page (escaped there) in plain words, or null when it is no Client ID Metadata Document URL or the reason
 * is not known (documents disabled).
 */
export function clientMetadataDocumentRefusal(stores: Stores, clientId: string): string | null {
  return refusalExplanations.get(stores.applications)?.(clientId) ?? null;
}

interface Refusal {
  /** For the log line. */
  reason: string;
  /** For the user, as ClientMetadataDocumentRefused.shown. */
  shown: string;
}

const BUSY_EXPLANATION =
  'This server is already fetching as many application metadata documents as it allows at once, so it did not fetch ' +
  "this application's. Try again in a moment.";

function documentResolver(stores: Stores, { config, now, warn, ca, observeCap }: ClientMetadataDocumentOptions) {
  const settings = config.registration.clientIdMetadataDocuments;
  const admission = documentAdmission(stores, { config, now, observeCap });
  // Concurrent lookups of one URL on this instance share one fetch.
  const inFlight = new Map<string, Promise<ApplicationRecord | null>>();
  const refusals = new RefusalCache<Refusal>(() => now().getTime());
  // The sentence for the user about each URL's latest refusal, fetched or not (no free fetch slot).
  const explanations = new RefusalCache<string>(() => now().getTime());
  const slots = new FetchSlots();

  const refuse = (clientId: string, reason: string, explanation?: string) => {
    warn({ event: 'client_metadata_document.refused', clientId: clientId.slice(0, 200), reason }, 'client metadata document refused');
    if (explanation !== undefined) explanations.remember(clientId, explanation);
    return null;
  };
  const unusable = (clientId: string, shown: string) => `The application's metadata document at ${clientId} could not be used: ${shown}.`;

  // An admin approved the client as it was (client-approval.ts says which fields were reviewed). A document that
  // changes one is a client nobody reviewed, so the approval goes in the same update and the consent screen shows
  // its notice again.
  const rewrite = (row: ApplicationRecord, client: DocumentClient): Promise<ApplicationRecord | null> => {
    const changed = reviewedFieldsChanged(row, client);
    if (changed.length === 0) return stores.applicationAdmin.update(row.id, client);
    reportWithdrawnApproval(warn, 'client_metadata_document', row, changed);
    // Cleared even when the row read had none: an approval given since then was of the document as it was.
    return stores.applicationAdmin.update(row.id, { ...client, approvedAt: null });
  };

  // `row` null: a new client, made within the cap in place of `stale`, a row that expired unused (if any).
  const refresh = async (
    clientId: string,
    row: ApplicationRecord | null,
    release: () => void,
    stale: ApplicationRecord | null = null,
  ): Promise<ApplicationRecord | null> => {
    let client: DocumentClient;
    try {
      const fetched = await fetchClientMetadataDocument(new URL(clientId), { ...settings, ca }).finally(release);
      client = clientFromDocument(clientId, fetched, config, now());
    } catch (error) {
      if (!(error instanceof ClientMetadataDocumentRefused)) throw error;
      refusals.remember(clientId, { reason: error.reason, shown: error.shown });
      return refuse(clientId, error.reason, unusable(clientId, error.shown));
    }
    explanations.forget(clientId);
    if (row) return rewrite(row, client);
    try {
      const made = await admission.store(clientId, client, stale);
      return 'reason' in made ? refuse(clientId, made.reason, made.explanation) : made;
    } catch (error) {
      // Another instance made the row meanwhile: this fetch is as fresh as theirs.
      if (!(error instanceof UidTaken)) throw error;
      const made = await stores.applications.findByUid(clientId);
      return made && rewrite(made, client);
    }
  };

  // A first fetch (no row, or one that expired unused) within the requester's allowance and the cap (issue 29 item 4).
  // The slot is released once, whichever comes first: the end of the fetch, or of this.
  const admit = async (uid: string, stale: ApplicationRecord | null, release: () => void): Promise<ApplicationRecord | null> => {
    try {
      const full = await admission.full();
      return full === null ? await refresh(uid, null, release, stale) : refuse(uid, full.reason, full.explanation);
    } finally {
      release();
    }
  };

  const resolve = async (uid: string, origin?: LookupOrigin): Promise<ApplicationRecord | null> => {
    const found = await stores.applications.findByUid(uid);
    if (found && found.registeredBy !== 'metadata_document') return found;
    const problem = clientIdUrlProblem(uid, settings.allowPrivateAddresses);
    // No explanation kept: explain() works the problem out again, so an over-long client_id is never stored.
    if (problem !== null) return looksLikeClientIdUrl(uid) ? refuse(uid, `the client_id ${problem}`) : null;
    const row = found && !admission.expired(found) ? found : null;
    if (row && row.metadataExpiresAt !== null && row.metadataExpiresAt > now()) return row;
    const refused = refusals.recent(uid);
    if (refused !== null)
      return refuse(
        uid,
        `refused within the last ${REFUSAL_CACHE_SECONDS} s (${refused.reason}), not fetched again yet`,
        `${unusable(uid, refused.shown)} It is fetched again at most every ${REFUSAL_CACHE_SECONDS} seconds.`,
      );
    const pending = inFlight.get(uid);
    if (pending) return pending;
    const slot = slots.take(new URL(uid).hostname);
    if ('busy' in slot) return refuse(uid, `${slot.busy}; not fetched now`, BUSY_EXPLANATION);
    const spent = row === null ? admission.spend(origin) : null;
    if (spent !== null) {
      slot.release();
      return refuse(uid, spent.reason, spent.explanation);
    }
    const fetching = (row ? refresh(uid, row, slot.release) : admit(uid, found, slot.release)).finally(() => inFlight.delete(uid));
    inFlight.set(uid, fetching);
    return fetching;
  };

  const explain = (uid: string): string | null => {
    const problem = clientIdUrlProblem(uid, settings.allowPrivateAddresses);
    if (problem !== null)
      return looksLikeClientIdUrl(uid)
        ? `The client_id is a URL, but not one this server fetches application metadata from: it ${problem}.`
        : null;
    return explanations.recent(uid);
  };

  return { resolve, explain };
}
