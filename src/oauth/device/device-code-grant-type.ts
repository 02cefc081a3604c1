import type { OAuthDeps } from '../deps.js';
import type { ApplicationRecord } from '../store.js';

/** RFC 8628 section 3.4: the grant_type of a device access token request, also its name in grantFlows and grant_types. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code' as const;

/** Whether the server has the device flow on (config grantFlows). */
export const deviceFlowEnabled = (config: Pick<OAuthDeps['config'], 'grantFlows'>): boolean =>
  config.grantFlows.includes(DEVICE_CODE_GRANT);

/**
 * Issue 34: the device flow is opt-in per client. A client whose grant types are unset (an admin's application that
 * uses every enabled grant) does not use it: a user code shown on a device is a phishing lure, so only clients whose
 * owner asked for the flow may start one.
 */
export const optsIntoDeviceFlow = (application: ApplicationRecord): boolean => application.grantTypes?.includes(DEVICE_CODE_GRANT) ?? false;
