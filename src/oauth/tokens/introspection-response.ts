import type { IntrospectionFieldSource } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import type { IntrospectionRequester } from './introspection-policy.js';
import type { AccessTokenRecord } from '../store.js';

/**
 * The extra fields of an active response: the customIntrospectionResponse hook when supplied (it takes
 * precedence), else config `introspection.response`. The caller puts `active` last, so no field changes it.
 */
export async function introspectionExtraFields(
  deps: OAuthDeps,
  token: AccessTokenRecord,
  requester: IntrospectionRequester,
): Promise<Record<string, unknown>> {
  const hook = deps.hooks.customIntrospectionResponse;
  if (hook) {
    const fields = await hook(token, { authorizedClient: requester.client, authorizedToken: requester.bearer });
    return fields && typeof fields === 'object' ? fields : {};
  }
  const entries = Object.entries(deps.config.introspection.response);
  if (entries.length === 0) return {};
  const fields: Record<string, unknown> = {};
  for (const [name, source] of entries) {
    const value = await resolveSource(deps, token, source);
    if (value !== null && value !== undefined) fields[name] = value;
  }
  return fields;
}

async function resolveSource(deps: OAuthDeps, token: AccessTokenRecord, source: IntrospectionFieldSource): Promise<unknown> {
  if (typeof source === 'object') return source.value;
  switch (source) {
    case 'resourceOwnerId':
      return token.resourceOwnerId === null ? null : String(token.resourceOwnerId);
    case 'resourceOwner.username':
      return token.resourceOwnerId === null ? null : ((await deps.stores.users.findById(token.resourceOwnerId))?.username ?? null);
    case 'application.uid':
    case 'application.name': {
      const application = token.applicationId === null ? null : await deps.stores.applications.findById(token.applicationId);
      return application ? (source === 'application.uid' ? application.uid : application.name) : null;
    }
  }
}
