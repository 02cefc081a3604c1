import { requireClient } from '../clients/client-authentication.js';
import type { ClientCredentials } from '../clients/client-credentials.js';
import { holdsGrantType } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import { UnauthorizedClient } from '../errors.js';
import { grantedScopes } from '../grants/requested-scopes.js';
import { optionalParameter, resourceParameters, type Parameters } from '../request-parameters.js';
import { resolveAudience } from '../resources/resource-indicators.js';
import { randomBase64url } from '../random-pool.js';
import { sha256Hex } from '../secrets.js';
import type { ApplicationRecord } from '../store.js';
import { DEVICE_CODE_GRANT, optsIntoDeviceFlow } from './device-code-grant-type.js';
import { generateUserCode, normalizedUserCode, storedUserCode } from './user-code.js';

/** RFC 8628 section 3.2: the device authorization response. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

// A user code already taken by another row is drawn again; with 20^8 codes, more than a few draws means trouble.
const MAX_DRAWS = 5;

/**
 * POST /oauth/device_authorization (RFC 8628 section 3.1): the client authenticated as at the token endpoint (a
 * public client by its client_id), its scope and resources checked as a code request's, then a device code for the
 * device to poll with and a user code for the person. Nothing is stored for a refused request.
 */
export async function requestDeviceAuthorization(
  deps: OAuthDeps,
  parameters: Parameters,
  credentials: ClientCredentials | null,
): Promise<DeviceAuthorizationResponse> {
  const application = await requireClient(deps, credentials);
  if (!mayStartDeviceFlow(deps, application)) throw new UnauthorizedClient();
  const scopes = grantedScopes(deps, application, optionalParameter(parameters, 'scope'), { allowEmpty: false });
  const audience = await resolveAudience(deps, resourceParameters(parameters), scopes);
  const { expiresIn, interval } = deps.config.deviceAuthorization;
  const deviceCode = randomBase64url(32);
  const createdAt = deps.now();
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const userCode = generateUserCode();
    const stored = await deps.stores.deviceAuthorizations.create({
      applicationId: application.id,
      deviceCode: sha256Hex(deviceCode),
      userCode: storedUserCode(normalizedUserCode(userCode)!),
      scopes,
      audience: audience.uris,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + expiresIn * 1000),
      interval,
    });
    if (stored) return responseFor(deps, deviceCode, userCode);
  }
  throw new Error(`no free user code in ${MAX_DRAWS} draws`);
}

/** Issue 34: the client names the device grant among its own grant types, and may hold it (client-holdings.ts). */
export function mayStartDeviceFlow(deps: Pick<OAuthDeps, 'config'>, application: ApplicationRecord): boolean {
  return optsIntoDeviceFlow(application) && holdsGrantType(application, DEVICE_CODE_GRANT, deps.config);
}

function responseFor(deps: OAuthDeps, deviceCode: string, userCode: string): DeviceAuthorizationResponse {
  const verificationUri = `${deps.config.baseUrl.replace(/\/+$/, '')}/device`;
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    // Section 3.3.1: the user code in the URI, for a QR code or a link; the page still asks to confirm it.
    verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
    expires_in: deps.config.deviceAuthorization.expiresIn,
    interval: deps.config.deviceAuthorization.interval,
  };
}
