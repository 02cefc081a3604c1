import type { Config } from '../../../config/types.js';
import { registrationErrors } from '../../authorization/redirect-uri.js';
import { isInternalHost, MAX_URI_LENGTH } from '../../clients/registration/client-registration-uris.js';
import type { ApplicationRecord } from '../../store.js';

// A client's backchannel_logout_uri (OpenID Connect Back-Channel Logout 1.0 section 2.2), for every way of registering
// one (admin form, admin JSON API, CLI, RFC 7591 registration), and whose URI this server may POST to inside a private
// network. Section 2.2: an absolute URI without a fragment, https, or http for a confidential client where the OP
// allows http: here as for redirect URIs, on a loopback IP (forceSslInRedirectUri), anywhere once that is off.
//
// SSRF: the URI is the client's choice, and this server connects to it. A self-registered client (nobody vetted it)
// is held to the Client ID Metadata Document fetcher's address rules: no loopback, private or link-local host here,
// and every address its host resolves to checked again at each delivery. An admin's application may reach private
// networks (relying parties often live beside the OP), unless openid.backchannelLogout.privateAddresses is none.

export interface BackchannelLogoutUriRules {
  /** Refuse http off loopback IPs (forceSslInRedirectUri; registration always). */
  forceSsl: boolean;
  /** Section 2.2: only a confidential client may be sent logout tokens over http. */
  confidential: boolean;
  /** Refuse a loopback, private or link-local host (mayReachPrivateAddresses false). */
  publicHostsOnly: boolean;
  /** The URI the client has now: it keeps passing the host rules of redirect-uri.ts (as redirect URIs do). */
  stored?: boolean;
}

/** Every problem of `uri`, in `label`'s words (the admin's field name or the registration metadata's). */
export function backchannelLogoutUriErrors(uri: string, rules: BackchannelLogoutUriRules, label: string): string[] {
  if (uri.length > MAX_URI_LENGTH) return [`${label} is longer than ${MAX_URI_LENGTH} characters.`];
  const errors = registrationErrors(uri, { forceSsl: rules.forceSsl, stored: rules.stored }).map((message) =>
    message.replace(/^Redirect URI /, `${label} `),
  );
  if (errors.length > 0) return errors;
  const url = new URL(uri);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [`${label} must be an https URI.`];
  if (url.protocol === 'http:' && !rules.confidential)
    errors.push(`${label} may use http only for a confidential client (Back-Channel Logout 1.0 section 2.2): use https.`);
  if (rules.publicHostsOnly && isInternalHost(url.hostname))
    errors.push(`${label} must not point at a loopback, private or link-local host.`);
  return errors;
}

/** Whether logout tokens for `application` may go to loopback, private and link-local addresses. */
export function mayReachPrivateAddresses(
  config: { openid: Pick<Config['openid'], 'backchannelLogout'> },
  application: Pick<ApplicationRecord, 'registeredBy'>,
): boolean {
  const setting = config.openid.backchannelLogout.privateAddresses;
  return setting === 'all' || (setting === 'adminClients' && application.registeredBy === 'admin');
}
