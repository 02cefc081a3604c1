import { createHash } from 'node:crypto';
import type { ApplicationInput, ApplicationRecord } from '../store.js';

// Issue 29 item 3: an admin's approval (applications.ts approveApplication) vouches for a self-registered client as
// the admin saw it. The one rule of which changes void it, for both ways such a client changes itself: an RFC 7592
// update (client-registration.ts) and a refetched Client ID Metadata Document (client-metadata-document-applications.ts).
//
// Reviewed: where codes go (redirect_uris, compared as a set), who the user is told it is (client_name, logo_uri) and
// how it proves itself (token_endpoint_auth_method: "none" turns it into a public client anyone can be; jwks and
// jwks_uri, issue 34: new keys are a new way in for a private_key_jwt client). Not reviewed:
// client_uri, policy_uri and tos_uri, links the consent screen shows only inside its notice for an unreviewed client,
// so once approved they reach no user; contacts and software_id/version, which only the admin sees; scope and
// grant_types, which the registration rules bound whether or not the client is approved, except that grant_types
// newly naming client_credentials is reviewed: an approval is what turns that grant on (issue 29 item 1,
// client-holdings.ts), and the admin approved a client that did not ask for it. For the same reason a scope wider
// than the approved ones is reviewed while the approval is what holds client_credentials: no user consents to
// those tokens, so the scopes the admin saw are all the approval vouches for.

/**
 * Whether an admin vouches for the client as it stands: made it, or approved it (a self-registered one; a reviewed
 * change withdraws the approval). Its redirect URIs are then trusted (RFC 9700 section 4.11.2).
 */
export function vouchedFor(application: Pick<ApplicationRecord, 'registeredBy' | 'approvedAt'>): boolean {
  return application.registeredBy === 'admin' || application.approvedAt !== null;
}

/** A reviewed field's RFC 7591 name. */
export type ReviewedField = 'redirect_uris' | 'client_name' | 'logo_uri' | 'token_endpoint_auth_method' | 'jwks' | 'grant_types' | 'scope';

/** The record as a write leaves it: a field left out (undefined) keeps its stored value. */
type After = Pick<ApplicationInput, 'redirectUris' | 'name'> &
  Partial<Pick<ApplicationInput, 'logoUri' | 'tokenEndpointAuthMethod' | 'jwks' | 'jwksUri' | 'grantTypes' | 'scopes'>>;

const REVIEWED: ReadonlyArray<[ReviewedField, (before: ApplicationRecord, after: After) => boolean]> = [
  ['redirect_uris', (before, after) => sameSet(before.redirectUris, after.redirectUris)],
  ['client_name', (before, after) => before.name === after.name],
  ['logo_uri', (before, after) => after.logoUri === undefined || before.logoUri === after.logoUri],
  [
    'token_endpoint_auth_method',
    (before, after) => after.tokenEndpointAuthMethod === undefined || before.tokenEndpointAuthMethod === after.tokenEndpointAuthMethod,
  ],
  [
    'jwks',
    (before, after) =>
      (after.jwks === undefined || before.jwks === after.jwks) && (after.jwksUri === undefined || before.jwksUri === after.jwksUri),
  ],
  [
    'grant_types',
    (before, after) => !after.grantTypes?.includes('client_credentials') || (before.grantTypes?.includes('client_credentials') ?? false),
  ],
  ['scope', (before, after) => !clientCredentialsByApproval(before, after) || !scopesWidened(before.scopes, after.scopes)],
];

function clientCredentialsByApproval(before: ApplicationRecord, after: After): boolean {
  const grantTypes = after.grantTypes ?? before.grantTypes;
  return (grantTypes?.includes('client_credentials') ?? false) && !before.operatorGrantTypes.includes('client_credentials');
}

// No scopes registered means the default scopes (client-holdings.ts), which may be wider than the ones listed.
function scopesWidened(before: readonly string[], after: readonly string[] | undefined): boolean {
  if (after === undefined) return false;
  return (after.length === 0 && before.length > 0) || after.some((scope) => !before.includes(scope));
}

/** The reviewed fields that `after` changes, in a fixed order; none: an approval survives the write. */
export function reviewedFieldsChanged(before: ApplicationRecord, after: After): ReviewedField[] {
  return REVIEWED.filter(([, same]) => !same(before, after)).map(([field]) => field);
}

export type Warn = (details: Record<string, unknown>, message: string) => void;

const CHANGED_BY = {
  client_metadata_document: 'client metadata document changed',
  client_registration: 'client registration updated (RFC 7592)',
} as const;

/** The warn line of an approval the change voided (none when there was no approval to void). */
export function reportWithdrawnApproval(
  warn: Warn,
  source: keyof typeof CHANGED_BY,
  before: ApplicationRecord,
  changed: readonly ReviewedField[],
): void {
  if (before.approvedAt === null || changed.length === 0) return;
  warn(
    { event: `${source}.approval_withdrawn`, clientId: before.uid.slice(0, 200), changed },
    `${CHANGED_BY[source]} since the approval; the approval no longer applies`,
  );
}

function sameSet(left: readonly string[], right: readonly string[]): boolean {
  const set = new Set(left);
  return set.size === new Set(right).size && right.every((item) => set.has(item));
}

/**
 * The reviewed fields as the admin saw them (the approve form carries it): an approval is refused when the client
 * changed one since the page was shown, so it never lands on metadata nobody saw. The scopes count too (they are
 * reviewed while an approval holds client_credentials).
 */
export function reviewedFingerprint(application: ApplicationRecord): string {
  const seen = [
    [...application.redirectUris].sort(),
    application.name,
    application.logoUri,
    application.tokenEndpointAuthMethod,
    application.grantTypes === null ? null : [...application.grantTypes].sort(),
    [...application.scopes].sort(),
    // Issue 34; left out when there are none, so the fingerprints of clients without keys stay what they were.
    ...(application.jwks !== null || application.jwksUri !== null ? [application.jwks, application.jwksUri] : []),
  ];
  return createHash('sha256').update(JSON.stringify(seen)).digest('base64url');
}
