import type { Config } from '../../../config/types.js';
import type { ApplicationRecord } from '../../store.js';
import { backchannelLogoutUriErrors, mayReachPrivateAddresses } from './backchannel-logout-uri.js';

// An application's Back-Channel Logout settings as the admin gives them (form, JSON API, CLI): OpenID Connect
// Back-Channel Logout 1.0 section 2.2's backchannel_logout_uri and backchannel_logout_session_required. Like the
// other OpenID Connect settings they can be prepared while openid.enabled is off; nothing is sent until it is on.

export interface BackchannelLogoutFields {
  /** Blank: none. undefined keeps what is stored (none on create). */
  backchannelLogoutUri?: string | undefined;
  /** undefined keeps what is stored (false on create). */
  backchannelLogoutSessionRequired?: boolean | undefined;
}

export type BackchannelLogoutField = 'backchannel_logout_uri' | 'backchannel_logout_session_required';

const LABEL = 'Back-channel logout URI';

/**
 * The rules of the settings given. `current`: the application being updated (its URI keeps passing the host rules a
 * new one must pass, and an application a client registered itself keeps its stricter address rule).
 */
export function backchannelLogoutErrors(
  fields: BackchannelLogoutFields & { confidential: boolean },
  config: Pick<Config, 'forceSslInRedirectUri' | 'openid'>,
  current?: ApplicationRecord,
): Array<[BackchannelLogoutField, string]> {
  const errors: Array<[BackchannelLogoutField, string]> = [];
  const uri = fields.backchannelLogoutUri?.trim();
  if (uri) {
    const rules = {
      forceSsl: config.forceSslInRedirectUri,
      confidential: fields.confidential,
      publicHostsOnly: !mayReachPrivateAddresses(config, current ?? { registeredBy: 'admin' }),
      stored: current?.backchannelLogoutUri === uri,
    };
    for (const message of backchannelLogoutUriErrors(uri, rules, LABEL)) errors.push(['backchannel_logout_uri', message]);
  }
  const effectiveUri = fields.backchannelLogoutUri === undefined ? (current?.backchannelLogoutUri ?? null) : uri || null;
  // Section 2.2: the flag is about the URI's logout tokens; without a URI there are none to carry a sid.
  if (fields.backchannelLogoutSessionRequired === true && effectiveUri === null)
    errors.push(['backchannel_logout_session_required', 'Back-channel logout session required needs a back-channel logout URI.']);
  return errors;
}

/** The stored form of the settings that were given (validated first); those not given stay as they are. */
export function storedBackchannelLogoutSettings(
  fields: BackchannelLogoutFields,
): Partial<Pick<ApplicationRecord, 'backchannelLogoutUri' | 'backchannelLogoutSessionRequired'>> {
  return {
    ...(fields.backchannelLogoutUri !== undefined && { backchannelLogoutUri: fields.backchannelLogoutUri.trim() || null }),
    ...(fields.backchannelLogoutSessionRequired !== undefined && {
      backchannelLogoutSessionRequired: fields.backchannelLogoutSessionRequired,
    }),
  };
}
