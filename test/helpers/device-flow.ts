import type { FastifyInstance } from 'fastify';
import type { GrantFlow } from '../../src/config/types.js';
import { DEVICE_CODE_GRANT } from '../../src/oauth/device/device-code-grant-type.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { DeviceAuthorizationResponse } from '../../src/oauth/device/device-authorization-request.js';
import { createClient, type TestClient } from './factories.js';
import { basic, postForm, tokenRequest, type Headers, type Params } from './oauth-requests.js';
import type { UserAgent } from './end-user.js';

export { DEVICE_CODE_GRANT };

/** The config that turns the device flow on, beside the usual grants. */
export const DEVICE_FLOW_CONFIG = {
  grantFlows: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT] as GrantFlow[],
  defaultScopes: ['read'],
  optionalScopes: ['write'],
};

/** A client whose grant types name the device grant (the per-client opt-in); public unless `confidential`. */
export async function deviceClient(
  deps: OAuthDeps,
  { confidential = false, grantTypes = [DEVICE_CODE_GRANT, 'refresh_token'] }: { confidential?: boolean; grantTypes?: string[] } = {},
): Promise<TestClient> {
  const client = await createClient(deps, { confidential });
  const application = await deps.stores.applicationAdmin.update(client.application.id, { grantTypes });
  return { ...client, application: application! };
}

/** How the client authenticates: Basic for a confidential client, its client_id for a public one. */
export const clientAuth = (client: TestClient): { params: Params; headers: Headers } =>
  client.secret ? { params: {}, headers: basic(client.uid, client.secret) } : { params: { client_id: client.uid }, headers: {} };

export async function startDeviceAuthorization(app: FastifyInstance, client: TestClient, params: Params = {}) {
  const auth = clientAuth(client);
  return postForm(app, '/oauth/device_authorization', { ...auth.params, ...params }, auth.headers);
}

export async function deviceAuthorization(
  app: FastifyInstance,
  client: TestClient,
  params: Params = {},
): Promise<DeviceAuthorizationResponse> {
  const response = await startDeviceAuthorization(app, client, params);
  if (response.statusCode !== 200) throw new Error(`device authorization failed: ${response.statusCode} ${response.body}`);
  return response.json<DeviceAuthorizationResponse>();
}

export function pollDevice(app: FastifyInstance, client: TestClient, deviceCode: string, headers: Headers = {}) {
  const auth = clientAuth(client);
  return tokenRequest(app, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, ...auth.params }, { ...auth.headers, ...headers });
}

/**
 * The signed-in person enters the code at /device: the entry redirects (303) to the consent page, which is returned.
 * A refused entry (a wrong code, a lockout) is returned as it was answered.
 */
export async function enterDeviceCode(agent: UserAgent, userCode: string) {
  const entry = await agent.post('/device', { user_code: userCode }, `/device?user_code=${encodeURIComponent(userCode)}`);
  if (entry.statusCode !== 303) return entry;
  if (entry.headers.location !== '/device/consent') throw new Error(`/device redirected to ${entry.headers.location}`);
  return agent.request({ method: 'GET', url: '/device/consent' });
}

/** The signed-in person enters the code at /device and approves (or denies) on the consent page: the page after it. */
export async function decideAtDevicePage(agent: UserAgent, userCode: string, approve: boolean) {
  const consent = await enterDeviceCode(agent, userCode);
  if (consent.statusCode !== 200) throw new Error(`/device/consent answered ${consent.statusCode}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(consent.body)![1]!;
  const decision = await agent.post('/device/decision', { user_code: userCode, _csrf: csrf, ...(approve ? {} : { _method: 'delete' }) });
  if (decision.statusCode !== 303) return decision;
  return agent.request({ method: 'GET', url: decision.headers.location as string });
}
