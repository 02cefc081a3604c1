import type { GuardToken } from '@oauth-service/guard';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { storedForm } from '../../src/oauth/secrets.js';
import { inaccessibleReason } from '../../src/oauth/tokens/token-state.js';

/**
 * The guard's local mode as the service wires it: a plain function over the real token store, with a counter
 * so tests can see how often a request looked its token up.
 */
export function localIntrospection(deps: OAuthDeps): { introspect: (token: string) => Promise<GuardToken | null>; calls: () => number } {
  let calls = 0;
  async function introspect(token: string): Promise<GuardToken | null> {
    calls += 1;
    const record = await deps.stores.accessTokens.findByToken(storedForm(token, deps.config.hashTokens));
    if (!record) return null;
    const reason = inaccessibleReason(record, deps.now());
    const application = record.applicationId === null ? null : await deps.stores.applications.findById(record.applicationId);
    return {
      active: reason === null,
      ...(reason !== null && { reason }),
      scopes: record.scopes,
      clientId: application?.uid ?? null,
      resourceOwnerId: record.resourceOwnerId,
      expiresAt: record.expiresIn === null ? null : Math.floor(record.createdAt.getTime() / 1000) + record.expiresIn,
    };
  }
  return { introspect, calls: () => calls };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
