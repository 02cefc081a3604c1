// The storage interfaces the OAuth domain needs and the records it works with. src/storage implements
// them; the domain never sees Prisma or SQL. Token, refresh-token and code values are always passed in
// their stored form (see secrets.ts storedForm): the domain decides about hashing, storage just matches.

import type { CleanupKind, CleanupPolicy } from './cleanup-policy.js';
import type { RegistrationStore } from './registration-tokens.js';
import type { SigningKeyMaterial } from './signing-key-material.js';
import type { SigningAlgorithm, SigningKeyRecord } from './signing-keys.js';

export interface ApplicationRecord {
  id: number;
  name: string;
  uid: string;
  /** Stored form of the client secret (SHA-256 hex when hashed); null for public clients. */
  secret: string | null;
  redirectUris: string[];
  scopes: string[];
  confidential: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** RP-Initiated Logout: the only places end_session may send the user back to (exact match). */
  postLogoutRedirectUris: string[];
  /** How ID tokens for this client are signed; null is RS256 (OpenID Connect Registration 2). */
  idTokenSignedResponseAlg: SigningAlgorithm | null;
  /** null: UserInfo answers plain JSON; an algorithm: a signed JWT. */
  userinfoSignedResponseAlg: SigningAlgorithm | null;
  /** RFC 9068: the format of this application's access tokens when no resource decides it. */
  accessTokenFormat: AccessTokenFormat;
  /** RFC 9449 section 5.2: every token request of this client must carry a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  /** Who made the client: an admin, the client itself at /oauth/register, or its Client ID Metadata Document. */
  registeredBy: RegisteredBy;
  /** RFC 7592: SHA-256 hex of the registration access token of a self-registered client; null otherwise. */
  registrationAccessToken: string | null;
  /** RFC 7591 section 2: the grants a self-registered client registered for; null: any grant the server enables. */
  grantTypes: string[] | null;
  /** RFC 7591 section 2; null: client_secret_basic for a confidential client, none for a public one. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod | null;
  /** OpenID Connect Registration 2: native clients may use loopback http redirect URIs; null for admin-made ones. */
  applicationType: 'web' | 'native' | null;
  /** RFC 7591 section 2 display metadata, as the client supplied it (escape; link only https). */
  clientUri: string | null;
  logoUri: string | null;
  policyUri: string | null;
  tosUri: string | null;
  contacts: string[];
  softwareId: string | null;
  softwareVersion: string | null;
  /** Client ID Metadata Documents: when the document must be fetched again; null for other clients. */
  metadataExpiresAt: Date | null;
  /** When an admin vetted a self-registered client; null: nobody did (the consent screen says so). */
  approvedAt: Date | null;
  /** A disabled client can neither authenticate nor be authorized; null: enabled. */
  disabledAt: Date | null;
  /** When the client was first issued a token; registrations never used are cleaned up. */
  usedAt: Date | null;
}

export type RegisteredBy = 'admin' | 'dynamic' | 'metadata_document';
export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

export type AccessTokenFormat = 'opaque' | 'jwt';

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
  createdAt: Date;
  updatedAt: Date;
}

export interface AccessTokenRecord {
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
  /** The sign-in the token descends from (OpenID Connect): auth_time and sid of a refresh's ID token. */
  authTime: Date | null;
  sessionId: string | null;
  /** RFC 8707: the resources the token is for (its aud); empty: any API that trusts this service. */
  audience: string[];
  /** RFC 9449: the thumbprint (cnf.jkt) of the key the token is bound to; null for a bearer token. */
  dpopJkt: string | null;
}

export interface AccessGrantRecord {
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
  /** OpenID Connect: the request's nonce (echoed in the ID token), and the sign-in that approved the code. */
  nonce: string | null;
  authTime: Date | null;
  sessionId: string | null;
  /** RFC 8707: the resources the authorization request named (empty: none). */
  audience: string[];
  /** RFC 9449 section 10: the key the code exchange must prove (dpop_jkt), or null. */
  dpopJkt: string | null;
}

export interface UserRecord extends UserClaims {
  id: number;
  username: string;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
  /** The OpenID Connect `sub`: random and stable, never the user name. */
  subject: string;
  /** Set while the user is disabled (no login; their tokens were revoked when it was set). */
  disabledAt: Date | null;
  /** When a claim last changed: the updated_at claim. */
  profileUpdatedAt: Date;
}

/** The standard claims a user may have (OpenID Connect Core 5.1); address is its JSON object as text. */
export interface UserClaims {
  name: string | null;
  givenName: string | null;
  familyName: string | null;
  middleName: string | null;
  nickname: string | null;
  preferredUsername: string | null;
  profile: string | null;
  picture: string | null;
  website: string | null;
  email: string | null;
  emailVerified: boolean;
  gender: string | null;
  birthdate: string | null;
  zoneinfo: string | null;
  locale: string | null;
  phoneNumber: string | null;
  phoneNumberVerified: boolean;
  address: string | null;
}

export type NewAccessToken = Omit<
  AccessTokenRecord,
  'id' | 'revokedAt' | 'refreshedAt' | 'previousRefreshToken' | 'authTime' | 'sessionId' | 'audience' | 'dpopJkt'
> & {
  previousRefreshToken?: string;
  authTime?: Date | null;
  sessionId?: string | null;
  audience?: string[];
  dpopJkt?: string | null;
};
export type NewAccessGrant = Omit<AccessGrantRecord, 'id' | 'revokedAt' | 'nonce' | 'authTime' | 'sessionId' | 'audience' | 'dpopJkt'> &
  Partial<Pick<AccessGrantRecord, 'nonce' | 'authTime' | 'sessionId' | 'audience' | 'dpopJkt'>>;

export interface ApplicationStore {
  findByUid(uid: string): Promise<ApplicationRecord | null>;
  findById(id: number): Promise<ApplicationRecord | null>;
  /** Sets used_at to `at` unless it is set already (the first token issued to the client). */
  markUsed(id: number, at: Date): Promise<void>;
}

export interface AccessTokenStore {
  findByToken(token: string): Promise<AccessTokenRecord | null>;
  /** The rows of several stored access-token values, in one query (unknown values have no row). */
  findByTokens(tokens: string[]): Promise<AccessTokenRecord[]>;
  findByRefreshToken(refreshToken: string): Promise<AccessTokenRecord | null>;
  create(token: NewAccessToken): Promise<AccessTokenRecord>;
  /** Sets revoked_at unless already set; true when this call revoked it. */
  revoke(id: number, at: Date): Promise<boolean>;
  /**
   * Refresh rotation as one atomic step: marks token `id` as rotated and revoked at `at` and stores its
   * successor, only if the token was neither rotated nor revoked yet; null (nothing stored) when it was.
   */
  rotate(id: number, at: Date, successor: NewAccessToken): Promise<AccessTokenRecord | null>;
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

export interface UserStore {
  findByUsername(username: string): Promise<UserRecord | null>;
  findById(id: number): Promise<UserRecord | null>;
}

/** What the admin writes: every field of the record but its identity and timestamps (secret in its stored form). */
export type ApplicationInput = Omit<ApplicationRecord, 'id' | 'uid' | 'createdAt' | 'updatedAt' | OptionalApplicationField> &
  Partial<Pick<ApplicationRecord, OptionalApplicationField>>;
/** Fields added after Doorkeeper's: left out of a write, they keep their stored value (or the default). */
type OptionalApplicationField =
  | 'postLogoutRedirectUris'
  | 'idTokenSignedResponseAlg'
  | 'userinfoSignedResponseAlg'
  | 'accessTokenFormat'
  | 'dpopBoundAccessTokens'
  | 'registeredBy'
  | 'registrationAccessToken'
  | 'grantTypes'
  | 'tokenEndpointAuthMethod'
  | 'applicationType'
  | 'clientUri'
  | 'logoUri'
  | 'policyUri'
  | 'tosUri'
  | 'contacts'
  | 'softwareId'
  | 'softwareVersion'
  | 'metadataExpiresAt'
  | 'approvedAt'
  | 'disabledAt'
  | 'usedAt';

/** Ordinary CRUD for the admin UI and the CLI (Prisma); never on a hot path. */
export interface ApplicationAdminStore {
  list(): Promise<ApplicationRecord[]>;
  /** Throws UidTaken when the uid exists. */
  create(input: ApplicationInput & { uid: string }): Promise<ApplicationRecord>;
  /** null when there is no such application. */
  update(id: number, changes: Partial<ApplicationInput>): Promise<ApplicationRecord | null>;
  /** Deletes the application with its grants and tokens; false when there was none. */
  delete(id: number): Promise<boolean>;
}

export interface UserAdminStore {
  list(): Promise<UserRecord[]>;
  /** Users whose username, name or email contains `text` in any case ('' matches all), by username; at most `limit`. */
  search(query: { text: string; limit: number }): Promise<UserRecord[]>;
  /** Throws UsernameTaken when the username exists. */
  create(input: { username: string; passwordHash: string } & Partial<UserClaims>): Promise<UserRecord>;
  /** Sets these claims and profile_updated_at (the updated_at claim); null when there is no such user. */
  updateClaims(id: number, claims: Partial<UserClaims>, profileUpdatedAt: Date): Promise<UserRecord | null>;
  /** Sets or (null) clears disabled_at; null when there is no such user. */
  setDisabledAt(id: number, at: Date | null): Promise<UserRecord | null>;
  setPasswordHash(username: string, passwordHash: string): Promise<boolean>;
  delete(username: string): Promise<boolean>;
}

export interface CleanupRun {
  batchSize: number;
  /** Count what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Called after each batch that deleted rows (progress for long runs, and tests). */
  onBatch?: (kind: CleanupKind, rows: number) => void;
  /** Called after every window of the index: how many rows it read (never more than batchSize) and deleted. */
  onWindow?: (kind: CleanupKind, scanned: number, deleted: number) => void;
}

/** What a cleanup keeps on purpose although revoked or expired (CleanupPolicy.kept), counted. */
export interface KeptCounts {
  /** Tokens revoked within the margin (requests in flight may still read them; a retried refresh gets its successor). */
  revoked_within_margin: number;
  /** Tokens revoked longer ago whose refresh family still has a usable member (reuse detection needs them). */
  revoked_for_reuse_detection: number;
  /** Codes used, or expired unused, within authorizationCodeExpiresIn (a replay must still revoke what it issued). */
  codes_for_replay_detection: number;
}

/** Runs the cleanup policy's rules in bounded batches (`tokens cleanup`); never on a request path. */
export interface CleanupStore {
  /** Deletes (or with dryRun counts) the records of each rule, in the policy's order; how many of each kind. */
  deleteStale(policy: CleanupPolicy, run: CleanupRun): Promise<Record<CleanupKind, number>>;
  countKept(policy: CleanupPolicy): Promise<KeptCounts>;
}

/** A token was to be stored for an application that no longer exists (deleted meanwhile, perhaps on another instance). */
export class ApplicationGone extends Error {
  constructor() {
    super('the application of the token no longer exists');
  }
}

export class UidTaken extends Error {
  constructor(readonly uid: string) {
    super(`an application with uid ${uid} already exists`);
  }
}

export class UsernameTaken extends Error {
  constructor(readonly username: string) {
    super(`a user named ${username} already exists`);
  }
}

/** The token reads of introspection, token info and the local guard, which a read replica may serve (SPEC 9). */
export type TokenReadStore = Pick<AccessTokenStore, 'findByToken' | 'findByTokens' | 'findByRefreshToken'>;

/** oauth_signing_keys: keys shared by every instance; private keys are decrypted only to sign. */
export interface SigningKeyStore {
  /** Every key, retired ones included (the lifecycle decides what they are used for). */
  list(): Promise<SigningKeyRecord[]>;
  create(key: SigningKeyMaterial, times: Pick<SigningKeyRecord, 'createdAt' | 'signsFrom' | 'rotateAt'>): Promise<SigningKeyRecord>;
  /** false when there is no such key or it was retired already. */
  retire(kid: string, at: Date): Promise<boolean>;
  /** The private JWK of a key, decrypted; null when there is no such key. */
  privateJwk(kid: string): Promise<Record<string, unknown> | null>;
  /** Runs `work` while no other instance runs it (a PostgreSQL advisory lock): one rotation makes one key. */
  exclusively<T>(work: () => Promise<T>): Promise<T>;
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

export type ResourceInput = Omit<ResourceRecord, 'id' | 'createdAt' | 'updatedAt'>;

export class ResourceUriTaken extends Error {
  constructor(readonly uri: string) {
    super(`a resource with the URI ${uri} is registered already`);
  }
}

/** oauth_dpop_proofs: each proof is used once within its window, on any instance (RFC 9449 section 11.1). */
export interface DpopProofStore {
  /** Records a proof; false when it was recorded already (a replay). */
  remember(proofHash: string, expiresAt: Date): Promise<boolean>;
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
  /** Runs `work` with stores bound to one transaction. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
}
