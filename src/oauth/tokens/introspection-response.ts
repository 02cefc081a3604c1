import type { IntrospectionFieldSource } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import type { IntrospectionRequester } from './introspection-policy.js';
import { resourceOwnerSubject } from '../openid/subject.js';
import type { AccessTokenRecord, ApplicationRecord } from '../store.js';

/**
 * RFC 7662 section 2.2 `sub`, a standard field like client_id: for a user's token, the sub its client is told in ID
 * tokens, UserInfo and JWT access tokens (RFC 9068 section 2.2; OpenID Connect Core 8, pairwise for a pairwise client),
 * so an API sees one subject whichever way it checks a token. Null, without a promise or a query, for a token
 * without a user (client_credentials: the hot path pays nothing) and where the extra fields set `sub` themselves (config
 * `introspection.response.sub` wins, as every configured field does over a standard one; the hook's fields replace
 * the config's, so then the standard sub stays unless the hook returns one).
 */
export function standardSubject(
  deps: OAuthDeps,
  token: AccessTokenRecord,
  application: ApplicationRecord | null,
): Promise<string | null> | null {
  if (token.resourceOwnerId === null) return null;
  if (!deps.hooks.customIntrospectionResponse && deps.config.introspection.response.sub !== undefined) return null;
  return resourceOwnerSubject(deps, token.resourceOwnerId, application);
}

/**
 * The extra fields of an active response: the customIntrospectionResponse hook when supplied (it takes
 * precedence), else config `introspection.response`. The caller puts `active` last, so no field changes it.
 * `application` is the token's, which the caller has read already.
 */
export async function introspectionExtraFields(
  deps: OAuthDeps,
  token: AccessTokenRecord,
  application: ApplicationRecord | null,
  requester: IntrospectionRequester,
): Promise<Record<string, unknown>> {
  const hook = deps.hooks.customIntrospectionResponse;
  if (hook) {
    const fields = await hook(token, { authorizedClient: requester.client, authorizedToken: requester.bearer });
    return fields && typeof fields === 'object' && !Array.isArray(fields) ? fields : {};
  }
  const entries = Object.entries(deps.config.introspection.response);
  if (entries.length === 0) return {};
  const fields: Record<string, unknown> = {};
  for (const [name, source] of entries) {
    const value = await resolveSource(deps, token, application, source, name);
    if (value !== null && value !== undefined) fields[name] = value;
  }
  return fields;
}

async function resolveSource(
  deps: OAuthDeps,
  token: AccessTokenRecord,
  application: ApplicationRecord | null,
  source: IntrospectionFieldSource,
  name: string,
): Promise<unknown> {
  if (typeof source === 'object') return source.value;
  switch (source) {
    // Doorkeeper's resource_owner_id, the numeric user id, under a name of the operator's choosing: a number, as
    // Doorkeeper answers it, but as sub, which RFC 7662 section 2.2 makes a string (a deprecated mapping).
    case 'resourceOwnerId':
      if (token.resourceOwnerId === null) return null;
      return name === 'sub' ? String(token.resourceOwnerId) : token.resourceOwnerId;
    case 'subject':
      return token.resourceOwnerId === null ? null : resourceOwnerSubject(deps, token.resourceOwnerId, application);
    case 'resourceOwner.username':
      return token.resourceOwnerId === null ? null : ((await deps.stores.users.findById(token.resourceOwnerId))?.username ?? null);
    case 'application.uid':
      return application?.uid ?? null;
    case 'application.name':
      return application?.name ?? null;
  }
}
