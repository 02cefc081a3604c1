import type { ApplicationRecord, ClientProfile } from './application-store.js';
import { CLIENT_PROFILES } from './application-store.js';

// A client's security profile (issue 36 item 5). `fapi2` applies FAPI 2.0 Security Profile (final) section 5 to the
// client: what it may register is checked here (fapi2ProfileProblems, at the admin's create/update, the CLI, apply
// files and RFC 7591 registration), and each request-time rule sits where its check already was, asking isFapi2:
// PAR and PKCE S256 and the code flow in authorization-rules.ts, DPoP in token-issuer.ts (as dpop_bound_access_tokens),
// no password grant in client-admission.ts, the code lifetime in authorization-approval.ts, the client assertion's aud
// in client-assertion-verification.ts. Mutual TLS (the profile's other client authentication and sender constraint)
// is not supported: private_key_jwt and DPoP are the only ones.

/** FAPI 2.0 Security Profile section 5: authorization codes live at most 60 seconds. */
export const FAPI2_CODE_LIFETIME_SECONDS = 60;
/** The prefix of every request-time refusal, so the client's developer sees which profile's rule it broke. */
export const FAPI2 = 'FAPI 2.0';

export const isFapi2 = (application: Pick<ApplicationRecord, 'profile'> | null | undefined): boolean => application?.profile === 'fapi2';

export const isClientProfile = (value: string): value is ClientProfile => (CLIENT_PROFILES as readonly string[]).includes(value);

/** What a client to be stored with this profile looks like (its method null: derived from confidential). */
export interface ProfiledClient {
  profile: string;
  confidential: boolean;
  tokenEndpointAuthMethod: string | null;
  /** null: every grant the server enables (then the request-time rules keep implicit and password out). */
  grantTypes: readonly string[] | null;
}

// Grants the FAPI 2.0 Security Profile (section 5) leaves out: implicit (tokens in the front channel) and password.
const FORBIDDEN_GRANTS = ['implicit', 'password'] as const;

/** Why the client cannot have this profile, each message naming the rule it breaks; empty when it can. */
export function fapi2ProfileProblems(client: ProfiledClient): string[] {
  if (!isClientProfile(client.profile))
    return [`Profile must be ${CLIENT_PROFILES.join(' or ')}, not ${JSON.stringify(client.profile.slice(0, 40))}.`];
  if (client.profile !== 'fapi2') return [];
  const problems: string[] = [];
  if (!client.confidential) problems.push('profile fapi2 requires a confidential client.');
  if (client.tokenEndpointAuthMethod !== 'private_key_jwt')
    problems.push('profile fapi2 requires token_endpoint_auth_method private_key_jwt (mutual TLS is not supported).');
  for (const grant of FORBIDDEN_GRANTS)
    if (client.grantTypes?.includes(grant)) problems.push(`profile fapi2 does not allow the ${grant} grant.`);
  return problems;
}

/** Whether the profile refuses this grant type at the token endpoint (RFC 6749 unauthorized_client). */
export const fapi2RefusesGrant = (application: ApplicationRecord | null, grantType: string): boolean =>
  isFapi2(application) && (FORBIDDEN_GRANTS as readonly string[]).includes(grantType);

/** How long this client's authorization codes live: the configured lifetime, at most 60 s for a fapi2 client. */
export function codeLifetimeSeconds(application: ApplicationRecord, configured: number): number {
  return isFapi2(application) ? Math.min(configured, FAPI2_CODE_LIFETIME_SECONDS) : configured;
}
