import type { ClientCredentials } from '../clients/client-credentials.js';
import { requireClient } from '../clients/client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { RevocationNotAuthorized } from '../errors.js';
import type { Parameters } from '../request-parameters.js';
import { requireParameter, optionalParameter } from '../request-parameters.js';
import { findTokenByValue } from './token-lookup.js';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { revocationEvent } from '../audit/token-events.js';

export interface RevocationOutcome {
  /** What was revoked, for the event log; null when the token was unknown or already revoked. */
  revoked: { tokenId: number; kind: 'access_token' | 'refresh_token'; familyRevoked: number } | null;
}

/**
 * RFC 7009 (SPEC 3.2): the client must authenticate (401 invalid_client otherwise, RFC 7009 section 2.1); an
 * unknown or already revoked token is 200 `{}` (section 2.2); a client revokes only its own tokens (tokens
 * without an application: any authenticated client), else 403. Revoking either token of a row revokes the
 * pair; revoking a refresh token also revokes every token of its rotation family (section 2.1: "SHOULD also
 * invalidate all access tokens based on the same authorization grant").
 */
export async function revokeToken(
  deps: OAuthDeps,
  parameters: Parameters,
  credentials: ClientCredentials | null,
  ip: string | null = null,
): Promise<RevocationOutcome> {
  const value = requireParameter(parameters, 'token');
  const client = await requireClient(deps, credentials);
  // On the primary: what is revoked next must be the row as it is now.
  const found = await findTokenByValue(deps, deps.stores.accessTokens, value, optionalParameter(parameters, 'token_type_hint'));
  if (!found) return { revoked: null };
  const { record, kind } = found;
  if (record.applicationId !== null && record.applicationId !== client.id) throw new RevocationNotAuthorized();
  const now = deps.now();
  // The pair, its family and the audit event (issue 32 item 7): one transaction.
  return deps.stores.transaction(async (stores) => {
    const revoked = await stores.accessTokens.revoke(record.id, now);
    const familyRevoked =
      kind === 'refresh_token' && record.refreshFamily !== null ? await stores.accessTokens.revokeFamily(record.refreshFamily, now) : 0;
    if (!revoked && familyRevoked === 0) return { revoked: null };
    await recordAuditEvent(stores, now, revocationEvent(record, client, ip, { kind, family_revoked: familyRevoked }));
    return { revoked: { tokenId: record.id, kind, familyRevoked } };
  });
}
