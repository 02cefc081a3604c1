import type { ApplicationListFilter } from '../../../oauth/clients/applications.js';
import type { ApplicationRecord } from '../../../oauth/store.js';
import { httpsLink } from '../../client-links.js';
import { reviewedFingerprint } from '../../../oauth/clients/client-approval.js';
import { adminTime } from '../../page-time.js';

// Issue 19's part of the admin pages: how a self-registered client is marked in the list, what its page shows
// of its registration, and which of Approve, Disable and Enable it offers. Client-supplied values are text the
// templates escape; a URI becomes a link only when it is https (httpsLink), and logo_uri is never an image.

const ORIGIN_LABELS: Record<ApplicationRecord['registeredBy'], string | null> = {
  admin: null,
  dynamic: 'Self-registered',
  metadata_document: 'Metadata document',
};

const showPath = (id: number) => `/oauth/applications/${id}`;

/** The markers of one row of the list: where it came from, whether it waits for approval, whether it is disabled. */
export function listMarkers(application: ApplicationRecord) {
  return {
    origin: ORIGIN_LABELS[application.registeredBy],
    awaitingApproval: application.registeredBy !== 'admin' && application.approvedAt === null,
    disabled: application.disabledAt !== null,
  };
}

/** The filter links above the list; `current` is the one shown (undefined: all). */
export function listFilters(current: ApplicationListFilter | undefined) {
  const filters: Array<{ value: ApplicationListFilter | undefined; label: string }> = [
    { value: undefined, label: 'All' },
    { value: 'self_registered', label: 'Self-registered' },
    { value: 'awaiting_approval', label: 'Awaiting approval' },
    { value: 'disabled', label: 'Disabled' },
  ];
  return filters.map(({ value, label }) => ({
    label,
    href: value === undefined ? '/oauth/applications' : `/oauth/applications?filter=${value}`,
    current: value === current,
  }));
}

/** The show page's registration section and its state actions. */
export function registrationView(application: ApplicationRecord) {
  const selfRegistered = application.registeredBy !== 'admin';
  const path = showPath(application.id);
  return {
    origin: ORIGIN_LABELS[application.registeredBy] ?? 'Created by an admin',
    selfRegistered,
    state: application.disabledAt !== null ? `Disabled on ${adminTime(application.disabledAt)}` : 'Enabled',
    approval: !selfRegistered
      ? null
      : application.approvedAt !== null
        ? `Approved on ${adminTime(application.approvedAt)}`
        : 'Not approved: the consent screen tells users that nobody reviewed this application',
    registeredOn: adminTime(application.createdAt),
    firstUsed: application.usedAt === null ? 'Never' : adminTime(application.usedAt),
    metadata: selfRegistered ? clientMetadata(application) : null,
    approveAction: selfRegistered && application.approvedAt === null ? `${path}/approve` : null,
    reviewed: reviewedFingerprint(application),
    disableAction: application.disabledAt === null ? `${path}/disable` : null,
    enableAction: application.disabledAt !== null ? `${path}/enable` : null,
  };
}

// RFC 7591 section 2's display metadata as the client supplied it: each URI as text, plus a link if https.
function clientMetadata(application: ApplicationRecord) {
  const uris = [
    { label: 'Client URI', uri: application.clientUri },
    { label: 'Policy URI', uri: application.policyUri },
    { label: 'Terms of service URI', uri: application.tosUri },
    // A picture the client chose is not shown, here or on the consent screen: only its address.
    { label: 'Logo URI', uri: application.logoUri, neverLinked: true },
  ];
  return {
    uris: uris
      .filter(({ uri }) => uri !== null)
      .map(({ label, uri, neverLinked }) => ({ label, text: uri!, link: neverLinked ? null : httpsLink(uri) })),
    contacts: application.contacts,
    software: [application.softwareId, application.softwareVersion].filter((part) => part !== null).join(' ') || null,
    grantTypes: application.grantTypes?.join(' ') ?? null,
    tokenEndpointAuthMethod: application.tokenEndpointAuthMethod,
    applicationType: application.applicationType,
  };
}
