import { ApplicationInvalid, REDIRECT_FLOWS, type ApplicationField } from '../oauth/clients/applications.js';
import { UidTaken } from '../oauth/store.js';
import { UsageError } from './io.js';

// How the domain's refusals of an application read on the command line (apps create, update, rotate-secret): each
// field's problem named by the option that sets it, and one line with exit code 2, as every bad argument is.

/** The option of each field the domain validates. */
const OPTION_OF: Record<ApplicationField, string> = {
  name: 'name',
  redirect_uri: 'redirect-uri',
  scopes: 'scopes',
  uid: 'uid',
  secret: 'secret',
  post_logout_redirect_uris: 'post-logout-redirect-uri',
  backchannel_logout_uri: 'backchannel-logout-uri',
  backchannel_logout_session_required: 'backchannel-logout-session-required',
  id_token_signed_response_alg: 'id-token-signed-response-alg',
  userinfo_signed_response_alg: 'userinfo-signed-response-alg',
  authorization_signed_response_alg: 'authorization-signed-response-alg',
  profile: 'profile',
  subject_type: 'subject-type',
  access_token_format: 'access-token-format',
  refresh_tokens: 'refresh-tokens',
  grant_types: 'grant-types',
  token_endpoint_auth_method: 'token-endpoint-auth-method',
  jwks: 'jwks-file',
  jwks_uri: 'jwks-uri',
};

/**
 * Validation failures and a taken uid are the operator's input: one line, exit code 2. When `given` (the
 * options of the command line) is known, a field whose option was not given at all is named as a missing option.
 */
export async function domain<T>(
  work: () => Promise<T>,
  given?: { values: Record<string, unknown>; grantFlows: readonly string[] },
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApplicationInvalid) throw new UsageError(describeInvalid(error, given));
    if (error instanceof UidTaken) throw new UsageError(error.message);
    throw error;
  }
}

function describeInvalid(error: ApplicationInvalid, given?: { values: Record<string, unknown>; grantFlows: readonly string[] }): string {
  const problems = Object.entries(error.fieldErrors).map(([field, messages]) => {
    const option = OPTION_OF[field as ApplicationField];
    if (given === undefined || given.values[option] !== undefined) return messages.join('; ');
    if (field !== 'redirect_uri') return `missing required option --${option} (${messages.join(' ')})`;
    const ownGrantTypes = given.values['grant-types'];
    if (typeof ownGrantTypes === 'string' && ownGrantTypes.trim() !== '') {
      const redirecting = ownGrantTypes.split(/\s+/).filter((grant) => REDIRECT_FLOWS.includes(grant));
      return `missing required option --redirect-uri (required while --grant-types has ${[...new Set(redirecting)].join(' and ')})`;
    }
    const redirecting = given.grantFlows.filter((flow) => REDIRECT_FLOWS.includes(flow)).join(' and ');
    return `missing required option --redirect-uri (required while grantFlows has ${redirecting}; an application whose --grant-types redirect nowhere, such as client_credentials alone, needs none)`;
  });
  return problems.join('; ');
}
