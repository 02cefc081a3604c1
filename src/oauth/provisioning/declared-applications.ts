import {
  ApplicationInvalid,
  createApplication,
  deleteApplication,
  findApplicationByUid,
  listApplications,
  storedApplicationFields,
  updateApplication,
  validateApplicationFields,
  type ApplicationFields,
} from '../clients/applications.js';
import { applicationSecretIs, setApplicationSecret } from '../clients/application-secrets.js';
import type { OAuthDeps } from '../deps.js';
import type { ApplicationRecord } from '../store.js';
import { boundedJson } from '../json-nesting.js';
import type { DeclaredObject, Problems } from './declared-object.js';
import { changedRecordFields } from '../audit/changed-fields.js';
import { fieldProblems, type KindHandler, type Outcome } from './outcome.js';

// `applications` of a provisioning file: OAuth clients an admin makes, identified by uid (their client_id). A field
// left out takes the value `apps create` gives it; the secret is the exception: without secret_env a confidential
// client gets a generated one when created (shown once) and keeps the one it has afterwards.

export interface DeclaredApplication {
  path: string;
  uid: string;
  fields: ApplicationFields;
  /** The plain secret from the environment variable secret_env names; undefined: none declared. */
  secret: string | undefined;
}

const FIELDS = [
  'uid',
  'name',
  'redirect_uris',
  'scopes',
  'confidential',
  'secret_env',
  'post_logout_redirect_uris',
  'id_token_signed_response_alg',
  'userinfo_signed_response_alg',
  'access_token_format',
  'dpop_bound_access_tokens',
  'require_pushed_authorization_requests',
  'require_signed_request_object',
  'authorization_signed_response_alg',
  'profile',
  'refresh_tokens',
  'subject_type',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'grant_types',
  'token_endpoint_auth_method',
  'jwks',
  'jwks_uri',
] as const;

// The domain names the redirect URIs and the secret as its forms do; the file as the JSON API does.
const FILE_FIELD: Record<string, string> = { redirect_uri: 'redirect_uris', secret: 'secret_env' };

export const declaredApplications: KindHandler<DeclaredApplication> = {
  member: 'applications',
  fields: FIELDS,
  identityField: 'uid',
  identity: (application) => application.uid,

  read(object, env) {
    const uid = object.string('uid', { required: true });
    const name = object.string('name', { required: true });
    const redirectUris = object.tokens('redirect_uris', 'a URI');
    const scopes = object.tokens('scopes', 'one scope');
    const confidential = object.boolean('confidential') ?? true;
    const secret = secretFromEnvironment(object, env, confidential);
    const fields: ApplicationFields = {
      name: name ?? '',
      redirectUri: redirectUris.join('\n'),
      scopes: scopes.join(' '),
      confidential,
      dpopBoundAccessTokens: object.boolean('dpop_bound_access_tokens') ?? false,
      requirePushedAuthorizationRequests: object.boolean('require_pushed_authorization_requests') ?? false,
      requireSignedRequestObject: object.boolean('require_signed_request_object') ?? false,
      authorizationSignedResponseAlg: object.nullableString('authorization_signed_response_alg') ?? '',
      profile: object.string('profile') ?? 'none',
      refreshTokens: object.string('refresh_tokens') ?? 'always',
      subjectType: object.string('subject_type') ?? 'public',
      postLogoutRedirectUri: object.tokens('post_logout_redirect_uris', 'a URI').join('\n'),
      idTokenSignedResponseAlg: object.nullableString('id_token_signed_response_alg') ?? '',
      userinfoSignedResponseAlg: object.nullableString('userinfo_signed_response_alg') ?? '',
      accessTokenFormat: object.string('access_token_format') ?? 'opaque',
      backchannelLogoutUri: object.nullableString('backchannel_logout_uri') ?? '',
      backchannelLogoutSessionRequired: object.boolean('backchannel_logout_session_required') ?? false,
      grantTypes: object.tokens('grant_types', 'one grant type').join(' '),
      tokenEndpointAuthMethod: object.nullableString('token_endpoint_auth_method') ?? '',
      jwks: keySet(object),
      jwksUri: object.nullableString('jwks_uri') ?? '',
    };
    return uid === undefined || name === undefined ? null : { path: object.path, uid, fields, secret };
  },

  async apply(deps, declared, outcome) {
    const current = await findApplicationByUid(deps, declared.uid);
    try {
      if (current === null) await create(deps, declared, outcome);
      else if (current.registeredBy !== 'admin') {
        outcome.problems.push(
          `${declared.path}.uid: ${declared.uid} is a self-registered client (${current.registeredBy}): apply manages the applications an admin makes`,
        );
      } else await update(deps, declared, current, outcome);
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      outcome.problems.push(...applicationProblems(deps, declared, current, error));
      if (current === null) outcome.uncreatedApplications.set(declared.uid, declared.path);
    }
  },

  // Only what an admin made: clients that registered themselves (RFC 7591, metadata documents) are not the file's.
  async prune(deps, declared, outcome) {
    const uids = new Set(declared.map((application) => application.uid));
    // The resources the file declares (applied before any prune: each is a change, unchanged ones too).
    const declaredResources = new Set(outcome.changes.filter((change) => change.kind === 'resource').map((change) => change.name));
    for (const application of await listApplications(deps)) {
      if (application.registeredBy !== 'admin' || uids.has(application.uid)) continue;
      const served = await deps.stores.resources.servedBy(application.uid);
      // Deleting it would unlink a resource the file declares with it as server client: the run would end unlike the file.
      const contradicted = served.filter((resource) => declaredResources.has(resource.uri));
      for (const resource of contradicted) {
        outcome.problems.push(
          `the resource ${resource.uri} names ${application.uid} as its server_client_id, which --prune would delete as undeclared: declare ${application.uid} under applications, or change the resource`,
        );
      }
      if (contradicted.length > 0) continue;
      await deleteApplication(deps, application.id);
      outcome.changes.push({ kind: 'application', name: application.uid, action: 'deleted', fields: [] });
      // The APIs it served no longer name it (the deletion unlinks them): each is a change of the run, said and audited.
      for (const resource of served) {
        outcome.changes.push({ kind: 'resource', name: resource.uri, action: 'updated', fields: ['server_client_id'] });
      }
    }
  },
};

/** The client's public keys (issue 34) as the file declares them, a JWK Set object; the domain checks its keys. */
function keySet(object: DeclaredObject): string {
  const value = object.raw('jwks');
  if (value === undefined || value === null) return '';
  if (typeof value !== 'object' || Array.isArray(value)) {
    object.problem('jwks', 'must be a JWK Set, an object with keys');
    return '';
  }
  return boundedJson(value);
}

function secretFromEnvironment(object: DeclaredObject, env: Readonly<Record<string, string | undefined>>, confidential: boolean) {
  const variable = object.string('secret_env');
  if (variable === undefined) return undefined;
  if (!confidential) object.problem('secret_env', 'a public client (confidential: false) has no secret');
  const secret = env[variable];
  if (secret === undefined || secret === '') object.problem('secret_env', `the environment variable ${variable} is not set`);
  return secret;
}

async function create(deps: OAuthDeps, declared: DeclaredApplication, outcome: Outcome): Promise<void> {
  const { plainSecret } = await createApplication(deps, declared.fields, { uid: declared.uid, secret: declared.secret });
  const generated = declared.secret === undefined && plainSecret !== null;
  outcome.changes.push({
    kind: 'application',
    name: declared.uid,
    action: 'created',
    fields: [],
    ...(generated && { newSecret: plainSecret }),
  });
}

async function update(deps: OAuthDeps, declared: DeclaredApplication, current: ApplicationRecord, outcome: Outcome): Promise<void> {
  const fields = changedRecordFields(storedApplicationFields(declared.fields), current);
  let application = current;
  let newSecret: string | null = null;
  if (fields.length > 0) {
    const updated = await updateApplication(deps, current.id, declared.fields);
    if (!updated) throw new Error(`application ${declared.uid} disappeared during the update`);
    ({ application, plainSecret: newSecret } = updated);
  }
  if (declared.secret !== undefined && !applicationSecretIs(deps, application, declared.secret)) {
    await setApplicationSecret(deps, application.id, declared.secret);
    fields.push('secret');
    newSecret = null;
  }
  if (newSecret !== null) fields.push('secret');
  const action = fields.length > 0 ? 'updated' : 'unchanged';
  outcome.changes.push({ kind: 'application', name: declared.uid, action, fields, ...(newSecret !== null && { newSecret }) });
}

/**
 * The domain's refusal, each message at its place in the file: a redirect URI's problem names the URI's index
 * (`redirect_uris[1]`), found by checking each URI alone with the same rules.
 */
function applicationProblems(
  deps: OAuthDeps,
  declared: DeclaredApplication,
  current: ApplicationRecord | null,
  error: ApplicationInvalid,
): Problems {
  const { redirect_uri: redirectErrors, post_logout_redirect_uris: logoutErrors, ...others } = error.fieldErrors;
  const lists = [
    { field: 'redirect_uris', errors: redirectErrors, key: 'redirectUri', domainField: 'redirect_uri' },
    { field: 'post_logout_redirect_uris', errors: logoutErrors, key: 'postLogoutRedirectUri', domainField: 'post_logout_redirect_uris' },
  ] as const;
  const problems = fieldProblems(declared.path, others, (field) => FILE_FIELD[field] ?? field);
  for (const { field, errors, key, domainField } of lists) {
    if (!errors) continue;
    const uris = (declared.fields[key] ?? '').split('\n').filter((uri) => uri !== '');
    const byUri = uris.map(
      (uri) => validateApplicationFields({ ...declared.fields, [key]: uri }, deps.config, current ?? undefined)[domainField] ?? [],
    );
    const placed = byUri.flatMap((messages, index) => messages.map((message) => `${declared.path}.${field}[${index}]: ${message}`));
    problems.push(...(placed.length > 0 ? placed : errors.map((message) => `${declared.path}.${field}: ${message}`)));
  }
  return problems;
}
