import type { Config } from '../../../config/types.js';
import { backchannelLogoutUriErrors, mayReachPrivateAddresses } from '../../openid/backchannel-logout/backchannel-logout-uri.js';
import { InvalidClientMetadata } from './client-registration-errors.js';

// OpenID Connect Back-Channel Logout 1.0 section 2.2's registration metadata, backchannel_logout_uri and
// backchannel_logout_session_required, while OpenID Connect is on; off, they are metadata this server does not act
// on, ignored (RFC 7591 section 2). Nobody vetted the client: its URI is https (http only on a loopback IP, for a
// confidential client) and names no loopback, private or link-local host unless openid.backchannelLogout
// .privateAddresses is all (development); each delivery checks the addresses its host resolves to again.

export interface BackchannelLogoutMetadata {
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
}

export function backchannelLogoutMetadataOf(
  body: Record<string, unknown>,
  config: Pick<Config, 'openid'>,
  confidential: boolean,
): BackchannelLogoutMetadata {
  if (!config.openid.enabled) return {};
  const { backchannel_logout_uri: uri, backchannel_logout_session_required: sessionRequired } = body;
  if (uri !== undefined && typeof uri !== 'string') throw new InvalidClientMetadata('backchannel_logout_uri must be a string.');
  if (sessionRequired !== undefined && typeof sessionRequired !== 'boolean')
    throw new InvalidClientMetadata('backchannel_logout_session_required must be a boolean.');
  if (uri === undefined) {
    if (sessionRequired === true) throw new InvalidClientMetadata('backchannel_logout_session_required needs a backchannel_logout_uri.');
    return {};
  }
  const rules = { forceSsl: true, confidential, publicHostsOnly: !mayReachPrivateAddresses(config, { registeredBy: 'dynamic' }) };
  const [problem] = backchannelLogoutUriErrors(uri, rules, 'backchannel_logout_uri');
  if (problem !== undefined) throw new InvalidClientMetadata(problem);
  return { backchannel_logout_uri: uri, ...(sessionRequired !== undefined && { backchannel_logout_session_required: sessionRequired }) };
}
