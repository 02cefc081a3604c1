import { requireClient } from '../clients/client-authentication.js';
import { FAPI2, isFapi2, requireFapi2DpopAlgorithm } from '../clients/fapi2-profile.js';
import type { ClientCredentials } from '../clients/client-credentials.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidDpopProof, InvalidRedirectUri, InvalidRequest } from '../errors.js';
import { randomBase64url } from '../random-pool.js';
import { resourceParameters, type Parameters } from '../request-parameters.js';
import { sha256Hex } from '../secrets.js';
import type { ApplicationRecord } from '../store.js';
import { refuseReplayedDpopProof, rememberDpopProof, type CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import { AUTHORIZATION_PARAMETER_NAMES, type AuthorizationParameters } from './authorization-parameters.js';
import { validateAuthorizationRequest } from './authorization-request.js';
import { unpackRequestObject } from './request-object.js';
import { REQUEST_URI_PREFIX, type PushedParameters } from './pushed-authorization-requests.js';

const FAPI2_MAX_REQUEST_URI_SECONDS = 599;

// RFC 9126 section 2: POST /oauth/par. The client authenticates as at the token endpoint (a public client by its
// client_id), the request is validated by the rules of /oauth/authorize, and it is stored under a request_uri that
// any instance can serve. Nothing is stored for a refused request.

/** RFC 9126 section 2.2: the created response. */
export interface PushedAuthorizationResponse {
  request_uri: string;
  expires_in: number;
}

export interface PushRequest {
  parameters: Parameters;
  credentials: ClientCredentials | null;
  /** The DPoP proof of the request (RFC 9449 section 10.1), checked but not yet recorded; null: none sent. */
  dpopProof: CheckedDpopProof | null;
}

export async function pushAuthorizationRequest(
  deps: OAuthDeps,
  { parameters, credentials, dpopProof }: PushRequest,
): Promise<PushedAuthorizationResponse> {
  const application = await requireClient(deps, credentials);
  // Section 2.1: a pushed request cannot itself point at another one. (A client_id other than the authenticated
  // client's was refused with the credentials, as at the token endpoint.)
  if (parameters.request_uri !== undefined) throw new InvalidRequest('A pushed authorization request must not contain request_uri.');
  if (dpopProof) {
    requireFapi2DpopAlgorithm(application, dpopProof.alg);
    await refuseReplayedDpopProof(deps, dpopProof);
  }
  // A signed request object (RFC 9101, FAPI 2.0 Message Signing) is the request, verified now: what is stored is
  // its parameters, as if sent plainly, so the authorization endpoint has nothing left to verify.
  const unpacked = await unpackRequestObject(deps, sentParameters(parameters, application));
  if (!unpacked.ok) throw unpacked.error;
  const pushed = withPushDefaults(unpacked.parameters, application, dpopProof);
  const validation = await validateAuthorizationRequest(deps, pushed);
  // Section 2.3: errors are answered as at the token endpoint; a redirect URI error, which /oauth/authorize shows
  // on its page for want of a code of RFC 6749 section 4.1.2.1, is invalid_request here.
  if (!validation.ok)
    throw validation.error instanceof InvalidRedirectUri ? new InvalidRequest(validation.error.description) : validation.error;
  if (dpopProof) await rememberDpopProof(deps, dpopProof);
  return store(deps, application, pushed);
}

/** The authorization request's parameters as sent, its client the one that authenticated. */
function sentParameters(parameters: Parameters, application: ApplicationRecord): AuthorizationParameters {
  const values: AuthorizationParameters['values'] = {};
  for (const name of AUTHORIZATION_PARAMETER_NAMES) {
    const value = parameters[name];
    if (value !== undefined && name !== 'resource') values[name] = value;
  }
  values.client_id = application.uid;
  return { values, resources: resourceParameters(parameters), malformed: [] };
}

/**
 * The request as /oauth/authorize reads it: redirect_uri may be left out by a client with exactly one registered
 * (RFC 6749 section 3.1.2.3: it authenticated, so the URI is its own), but for a fapi2 client (FAPI 2.0 Security
 * Profile 5.3.2.2: the server shall require it in pushed requests); a DPoP proof binds the code to its key as
 * dpop_jkt would (RFC 9449 section 10.1), and must agree with a dpop_jkt sent.
 */
function withPushDefaults(
  sent: AuthorizationParameters,
  application: ApplicationRecord,
  dpopProof: CheckedDpopProof | null,
): AuthorizationParameters {
  const values = { ...sent.values };
  if (values.redirect_uri === undefined && isFapi2(application)) {
    throw new InvalidRequest(`${FAPI2}: redirect_uri is required in a pushed authorization request of this client (profile fapi2).`);
  }
  if (values.redirect_uri === undefined && application.redirectUris.length === 1) values.redirect_uri = application.redirectUris[0];
  if (dpopProof) {
    if (values.dpop_jkt !== undefined && values.dpop_jkt !== dpopProof.jkt)
      throw new InvalidDpopProof('The DPoP proof is signed with another key than the one dpop_jkt names.');
    values.dpop_jkt = dpopProof.jkt;
  }
  return { ...sent, values, pushed: { requestUri: null } };
}

async function store(
  deps: OAuthDeps,
  application: ApplicationRecord,
  pushed: AuthorizationParameters,
): Promise<PushedAuthorizationResponse> {
  const configured = deps.config.pushedAuthorizationRequests.expiresIn;
  // FAPI 2.0 Security Profile 5.3.2.2: a request_uri of a fapi2 client expires in less than 600 s.
  const expiresIn = isFapi2(application) ? Math.min(configured, FAPI2_MAX_REQUEST_URI_SECONDS) : configured;
  // 256 bits: the request_uri is a bearer reference to the request until it is used (section 7.1).
  const reference = randomBase64url(32);
  const createdAt = deps.now();
  const stored: PushedParameters = { values: pushed.values, resources: pushed.resources, ...(pushed.signed && { signed: true }) };
  await deps.stores.pushedRequests.create({
    applicationId: application.id,
    reference: sha256Hex(reference),
    parameters: JSON.stringify(stored),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + expiresIn * 1000),
  });
  return { request_uri: `${REQUEST_URI_PREFIX}${reference}`, expires_in: expiresIn };
}
