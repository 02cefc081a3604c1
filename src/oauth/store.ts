// The storage interfaces the OAuth domain needs and the records it works with. src/storage implements
// them; the domain never sees Prisma or SQL. Token, refresh-token and code values are always passed in
// their stored form (see secrets.ts storedForm): the domain decides about hashing, storage just matches.

import type { ApplicationAdminStore, ApplicationRecord, ApplicationStore } from './clients/application-store.js';
import type { CleanupStore } from './cleanup/cleanup-store.js';
import type { ClaimsRequest } from './openid/claims-request.js';
import type { ActorClaim } from './exchange/actor-claim.js';
import type { RegistrationStore } from './clients/registration/registration-store.js';
import type { LogoutDeliveryStore } from './openid/backchannel-logout/logout-delivery-store.js';
import type { SigningKeyMaterial } from './keys/signing-key-material.js';
import type { SigningKeyRecord } from './keys/signing-keys.js';
import type { UserAdminStore, UserStore } from './users/user-store.js';
import type { AccessTokenFormat } from './tokens/access-token-format.js';
import type { AuditEventStore } from './audit/audit-store.js';
import type { FederatedSubjectStore } from './assertions/federated-subject-store.js';
import type { DeviceAuthorizationStore } from './device/device-authorization-store.js';
import type { PushedRequestStore } from './authorization/pushed-request-store.js';
import type { SecondFactorStore } from './second-factor/second-factor-store.js';
import type { LoginSessionStore } from './sessions/login-session-store.js';
import type { PasskeyStore } from './passkeys/passkey-store.js';
import type { UserIdentityStore } from './users/user-identity-store.js';
import type { AuthorizationDetail, AuthorizationDetailsTypes } from './resources/authorization-details-schemas.js';

// The application, user and cleanup interfaces have files of their own; named here too, so that this file stays
// the one place to import storage interfaces from.
export {
  ApplicationGone,
  REFRESH_TOKEN_POLICIES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  UidTaken,
  type ApplicationAdminStore,
  type ApplicationInput,
  type ApplicationRecord,
  type ApplicationStore,
  type LookupOrigin,
  type RefreshTokenPolicy,
  type RegisteredBy,
  type SubjectType,
  type TokenEndpointAuthMethod,
} from './clients/application-store.js';
export type { CleanupRun, CleanupStore, KeptCounts } from './cleanup/cleanup-store.js';
export type { AccessTokenFormat } from './tokens/access-token-format.js';
export { UsernameTaken, type UserAdminStore, type UserClaims, type UserRecord, type UserStore } from './users/user-store.js';

/** An API registered as a resource (RFC 8707): what it accepts and how its tokens are made. */
export interface ResourceRecord {
  id: number;
  /** The resource indicator, compared exactly: an absolute URI without a fragment. */
  uri: string;
  name: string;
  /** The scopes this resource accepts; a token for it carries only these. */
  scopes: string[];
  tokenFormat: AccessTokenFormat;
  /** Seconds; null: the server's accessTokenExpiresIn. */
  accessTokenLifetime: number | null;
  /** The client_id of the API itself: it may introspect the tokens meant for this resource. */
  serverClientId: string | null;
  /** RFC 9396: the authorization_details types this resource serves, with their schemas and consent texts ({}: none). */
  authorizationDetailsTypes: AuthorizationDetailsTypes;
  createdAt: Date;
  updatedAt: Date;
}

/** What an authorization code and the tokens that descend from it carry of the authorization they come from. */
export interface AuthorizationOrigin {
  /** OpenID Connect: the sign-in that approved it, for auth_time and sid of its ID tokens (also a refresh's). */
  authTime: Date | null;
  sessionId: string | null;
  /** How that sign-in was made (RFC 8176; empty: unknown) and the acr it reached (RFC 9470 section 6.1). */
  amr: string[];
  acr: string | null;
  /** RFC 8707: the resources the request named, a token's aud; empty: none (a token for any API that trusts this service). */
  audience: string[];
  /** RFC 9449: the thumbprint of the key a code's exchange must prove (dpop_jkt) or a token is bound to (cnf.jkt); null: none. */
  dpopJkt: string | null;
  /** OpenID Connect Core 5.5: the authorization request's claims parameter, as understood; null without one. */
  claims: ClaimsRequest | null;
  /** RFC 9396: the authorization_details the user approved, which its tokens carry (empty: none). */
  authorizationDetails: AuthorizationDetail[];
}

export interface AccessTokenRecord extends AuthorizationOrigin {
  id: number;
  applicationId: number | null;
  resourceOwnerId: number | null;
  /** Stored form of the access token. */
  token: string;
  /** Stored form of the refresh token, if one was issued. */
  refreshToken: string | null;
  /** Seconds from createdAt; null = never expires. */
  expiresIn: number | null;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
  previousRefreshToken: string;
  accessGrantId: number | null;
  refreshFamily: string | null;
  /** Set when the refresh token was exchanged for a successor (rotation). */
  refreshedAt: Date | null;
  /** RFC 8693 section 4.1: who acts for the subject (token exchange with an actor_token); null: no one. */
  act: ActorClaim | null;
}

export interface AccessGrantRecord extends AuthorizationOrigin {
  id: number;
  applicationId: number;
  resourceOwnerId: number;
  /** Stored form of the authorization code. */
  token: string;
  expiresIn: number;
  redirectUri: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** OpenID Connect: the request's nonce, echoed in the ID token. */
  nonce: string | null;
}

export type NewAccessToken = Omit<
  AccessTokenRecord,
  | 'id'
  | 'revokedAt'
  | 'refreshedAt'
  | 'previousRefreshToken'
  | 'authTime'
  | 'sessionId'
  | 'amr'
  | 'acr'
  | 'audience'
  | 'dpopJkt'
  | 'claims'
  | 'act'
  | 'authorizationDetails'
> & {
  previousRefreshToken?: string;
  authTime?: Date | null;
  amr?: string[];
  acr?: string | null;
  sessionId?: string | null;
  audience?: string[];
  dpopJkt?: string | null;
  claims?: ClaimsRequest | null;
  act?: ActorClaim | null;
  authorizationDetails?: AuthorizationDetail[];
};
export type NewAccessGrant = Omit<
  AccessGrantRecord,
  'id' | 'revokedAt' | 'nonce' | 'authTime' | 'sessionId' | 'amr' | 'acr' | 'audience' | 'dpopJkt' | 'claims' | 'authorizationDetails'
> &
  Partial<
    Pick<AccessGrantRecord, 'nonce' | 'authTime' | 'sessionId' | 'amr' | 'acr' | 'audience' | 'dpopJkt' | 'claims' | 'authorizationDetails'>
  >;

export interface AccessTokenStore {
  findByToken(token: string): Promise<AccessTokenRecord | null>;
  /** The rows of several stored access-token values, in one query (unknown values have no row). */
  findByTokens(tokens: string[]): Promise<AccessTokenRecord[]>;
  findByRefreshToken(refreshToken: string): Promise<AccessTokenRecord | null>;
  create(token: NewAccessToken): Promise<AccessTokenRecord>;
  /** Sets revoked_at unless already set; true when this call revoked it. */
  revoke(id: number, at: Date): Promise<boolean>;
  /**
   * In a transaction: waits while another transaction, in any process, holds this application's issuing lock, then
   * holds it until this one ends; so that revoking the previous token and storing the next is one step per client.
   */
  lockIssuance(applicationId: number): Promise<void>;
  /**
   * Refresh rotation as one atomic step: marks token `id` as rotated and revoked at `at` and stores its
   * successor, only if the token was neither rotated nor revoked yet; null (nothing stored) when it was.
   */
  rotate(id: number, at: Date, successor: NewAccessToken): Promise<AccessTokenRecord | null>;
  /**
   * An authorization code's exchange as one atomic step: consumes code `grantId` at `at` and stores the token issued
   * for it, only if the code was not consumed yet; null (nothing stored) when it was.
   */
  createForCode(grantId: number, at: Date, token: NewAccessToken): Promise<AccessTokenRecord | null>;
  /** The live successor created from this refresh token (grace window), if any; `family` is the token's own. */
  findSuccessor(previousRefreshToken: string, family: string | null): Promise<AccessTokenRecord | null>;
  revokeFamily(family: string, at: Date): Promise<number>;
  revokeIssuedFromGrant(grantId: number, at: Date): Promise<number>;
  revokeAllFor(applicationId: number, resourceOwnerId: number, at: Date): Promise<number>;
  revokeAllForOwner(resourceOwnerId: number, at: Date): Promise<number>;
  /**
   * Newest live token of (application, owner) with exactly these scopes, for reuse or consent skipping; when
   * given, also exactly this audience (RFC 8707) and key binding (RFC 9449, null: unbound only).
   */
  findLiveMatching(query: {
    applicationId: number;
    resourceOwnerId: number | null;
    scopes: string[];
    at: Date;
    withRefreshToken?: boolean;
    audience?: readonly string[];
    dpopJkt?: string | null;
  }): Promise<AccessTokenRecord | null>;
  /**
   * The applications in which the owner holds a live token (not revoked, and its access token unexpired or its
   * refresh token still usable), each with the creation time of the oldest such token; newest first.
   */
  authorizedApplications(query: {
    resourceOwnerId: number;
    at: Date;
    refreshTokenExpiresIn: number | null;
  }): Promise<Array<{ application: ApplicationRecord; authorizedAt: Date }>>;
  /**
   * The scopes of the owner's live tokens in one application (live as authorizedApplications counts them), each
   * once; null when there is none: the owner does not authorize that application (any more).
   */
  authorizedScopes(query: {
    applicationId: number;
    resourceOwnerId: number;
    at: Date;
    refreshTokenExpiresIn: number | null;
  }): Promise<string[] | null>;
}

export interface AccessGrantStore {
  create(grant: NewAccessGrant): Promise<AccessGrantRecord>;
  findByToken(token: string): Promise<AccessGrantRecord | null>;
  /** Sets revoked_at only if not yet set (the single use of a code); true when this call won. */
  consume(id: number, at: Date): Promise<boolean>;
  revokeAllFor(applicationId: number, resourceOwnerId: number, at: Date): Promise<number>;
  /** Revokes every unrevoked grant of the owner, in all applications (CLI `users revoke-tokens`); how many. */
  revokeAllForOwner(resourceOwnerId: number, at: Date): Promise<number>;
}

/** The token reads of introspection, token info and the local guard, which a read replica may serve (SPEC 9). */
export type TokenReadStore = Pick<AccessTokenStore, 'findByToken' | 'findByTokens' | 'findByRefreshToken'>;

/** oauth_signing_keys: keys shared by every instance; private keys are decrypted only to sign. */
export interface SigningKeyStore {
  /** Every key, retired ones included (the lifecycle decides what they are used for). */
  list(): Promise<SigningKeyRecord[]>;
  /** The private JWK of a key, decrypted; null when there is no such key. */
  privateJwk(kid: string): Promise<Record<string, unknown> | null>;
  /**
   * Runs `work` while no other instance runs it (a PostgreSQL advisory lock): one rotation makes one key. Keys
   * are made and retired only there, through `locked`, which runs on the lock's own transaction.
   */
  exclusively<T>(work: (locked: LockedSigningKeys) => Promise<T>): Promise<T>;
}

/** What a key change does under the lock, in the lock's transaction. */
export interface LockedSigningKeys {
  list(): Promise<SigningKeyRecord[]>;
  create(key: SigningKeyMaterial, times: Pick<SigningKeyRecord, 'createdAt' | 'signsFrom' | 'rotateAt'>): Promise<SigningKeyRecord>;
  /** false when there is no such key or it was retired already. */
  retire(kid: string, at: Date): Promise<boolean>;
}

/** oauth_resources: read when a request names a resource (cached briefly), written by the admin UI and the CLI. */
export interface ResourceStore {
  /** The registered resources among these URIs (exact match); unknown ones are simply absent. */
  findByUris(uris: readonly string[]): Promise<ResourceRecord[]>;
  /** The resources whose API is this client (the introspection audience rule). */
  servedBy(clientId: string): Promise<ResourceRecord[]>;
  list(): Promise<ResourceRecord[]>;
  findById(id: number): Promise<ResourceRecord | null>;
  /** Throws ResourceUriTaken when the URI is registered already. */
  create(input: ResourceInput): Promise<ResourceRecord>;
  update(id: number, changes: Partial<ResourceInput>): Promise<ResourceRecord | null>;
  delete(id: number): Promise<boolean>;
}

export type ResourceInput = Omit<ResourceRecord, 'id' | 'createdAt' | 'updatedAt' | 'authorizationDetailsTypes'> &
  Partial<Pick<ResourceRecord, 'authorizationDetailsTypes'>>;

export class ResourceUriTaken extends Error {
  constructor(readonly uri: string) {
    super(`a resource with the URI ${uri} is registered already`);
  }
}

/**
 * oauth_dpop_proofs: each proof is used once within its window, on any instance (RFC 9449 section 11.1); client
 * assertions' jti are kept here too (RFC 7523 section 3, issue 34), as hashes that cannot meet a proof's.
 */
export interface DpopProofStore {
  /** Records a proof; false when it was recorded already (a replay). The INSERT is the atomic replay check. */
  remember(proofHash: string, expiresAt: Date): Promise<boolean>;
  /** Whether a proof was recorded already, without recording it (a request may still be refused for other reasons). */
  seen(proofHash: string): Promise<boolean>;
}

export interface Stores {
  applications: ApplicationStore;
  applicationAdmin: ApplicationAdminStore;
  userAdmin: UserAdminStore;
  accessTokens: AccessTokenStore;
  tokenReads: TokenReadStore;
  accessGrants: AccessGrantStore;
  users: UserStore;
  cleanup: CleanupStore;
  signingKeys: SigningKeyStore;
  resources: ResourceStore;
  dpopProofs: DpopProofStore;
  registrations: RegistrationStore;
  /** Back-Channel Logout 1.0: the logout tokens still to deliver, written in the transaction that causes them. */
  logoutDeliveries: LogoutDeliveryStore;
  /** Issue 32 item 7: the audit trail, written in the transaction of the change it records where there is one. */
  auditEvents: AuditEventStore;
  /** Issue 34 item 2: RFC 8628 device authorizations. */
  deviceAuthorizations: DeviceAuthorizationStore;
  /** Issue 36 item 1: RFC 9126 pushed authorization requests. */
  pushedRequests: PushedRequestStore;
  /** Issue 34 item 3: which user a trusted issuer's subject is (the JWT bearer grant). */
  federatedSubjects: FederatedSubjectStore;
  /** Issue 37: the same rows as a user's sign-in identities, listed and removed on the account and admin pages. */
  userIdentities: UserIdentityStore;
  /** Issue 35 item 5: the browsers signed in, one row per login session. */
  loginSessions: LoginSessionStore;
  /** Issue 35 item 1: the passkeys (WebAuthn credentials) users registered. */
  passkeys: PasskeyStore;
  secondFactors: SecondFactorStore;
  /** Runs `work` with stores bound to one transaction. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /**
   * Runs `work` with every store bound to one transaction, the admin's writes of applications, users, resources and
   * registration tokens included: all of it is committed, or none (`oauth-service apply`). Not for request paths
   * (`transaction` is lighter); inside it, `transaction` joins it. `exclusive`: it waits while another exclusive one
   * runs, in any process (a PostgreSQL advisory lock), so that two runs of one `apply` file do not both create.
   */
  adminTransaction<T>(work: (stores: Stores) => Promise<T>, options?: { exclusive?: boolean }): Promise<T>;
}
