// The applications (OAuth clients) as the domain sees them, and the storage interfaces for them: the hot-path
// reads of every request and the admin's CRUD. src/storage implements them (application-repository.ts, and
// application-cache.ts in front of it).

import type { SigningAlgorithm } from '../keys/signing-keys.js';
import type { AccessTokenFormat } from '../tokens/access-token-format.js';

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
  /**
   * When its token responses carry a refresh token (while it holds the refresh_token grant): always, or only when
   * offline_access (OpenID Connect Core 11) was granted.
   */
  refreshTokens: RefreshTokenPolicy;
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
  /**
   * Issue 29: what the operator allowed this self-registered client beyond registration.allowedGrantTypes and
   * allowedScopes, namely what the initial access token it registered with allowed; empty otherwise.
   */
  operatorGrantTypes: string[];
  operatorScopes: string[];
  /** OpenID Connect Core 8: the `sub` this client sees for a user, the public one or its sector's (openid/subject.ts). */
  subjectType: SubjectType;
  /** OpenID Connect Registration 2: the URI whose host is a pairwise client's sector; null: its redirect URIs' host. */
  sectorIdentifierUri: string | null;
  /** OpenID Connect Back-Channel Logout 1.0 section 2.2: where logout tokens are POSTed; null: none are. */
  backchannelLogoutUri: string | null;
  /** Back-Channel Logout 1.0 section 2.2: each of its logout tokens must name the session (sid). */
  backchannelLogoutSessionRequired: boolean;
  /** RFC 7523 section 2.2: the public keys of a private_key_jwt client, a JWK Set as JSON text; null: none inline. */
  jwks: string | null;
  /** RFC 7591 section 2: where a private_key_jwt client's JWK Set is fetched (client-assertion/client-key-sets.ts); null: none. */
  jwksUri: string | null;
  /** RFC 9126 section 6: every authorization request of this client must be pushed (POST /oauth/par) first. */
  requirePushedAuthorizationRequests: boolean;
  /** RFC 9101 section 10.5: every authorization request of this client must be a signed request object. */
  requireSignedRequestObject: boolean;
  /** JARM section 3: how its JWT-secured authorization responses are signed; null is RS256. */
  authorizationSignedResponseAlg: SigningAlgorithm | null;
  /** The security profile whose rules apply to this client (fapi2-profile.ts); none by default. */
  profile: ClientProfile;
  /** OpenID Connect Registration 1.0 section 2: the one algorithm its request objects may be signed with; null: any. */
  requestObjectSigningAlg: string | null;
  /** The same section: the one algorithm its client assertions (private_key_jwt, client_secret_jwt) may be signed with. */
  tokenEndpointAuthSigningAlg: string | null;
}

export const CLIENT_PROFILES = ['none', 'fapi2'] as const;
export type ClientProfile = (typeof CLIENT_PROFILES)[number];

export type SubjectType = 'public' | 'pairwise';

export type RegisteredBy = 'admin' | 'dynamic' | 'metadata_document';
export const TOKEN_ENDPOINT_AUTH_METHODS = [
  'none',
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'client_secret_jwt',
] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
export const REFRESH_TOKEN_POLICIES = ['always', 'offlineAccess'] as const;
export type RefreshTokenPolicy = (typeof REFRESH_TOKEN_POLICIES)[number];

/** Who a lookup is made for, where it may cost this server work (a metadata document's first fetch, issue 29 item 4). */
export interface LookupOrigin {
  /** The requester's address as the limits count it (limitedAddress: IPv6 by its /64). */
  address: string;
}

export interface ApplicationStore {
  /** `origin`: the requester, when a stranger's request names the client (authorization and token endpoints). */
  findByUid(uid: string, origin?: LookupOrigin): Promise<ApplicationRecord | null>;
  findById(id: number): Promise<ApplicationRecord | null>;
  /** Sets used_at to `at` unless it is set already (the first token issued to the client). */
  markUsed(id: number, at: Date): Promise<void>;
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
  | 'refreshTokens'
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
  | 'usedAt'
  | 'operatorGrantTypes'
  | 'operatorScopes'
  | 'subjectType'
  | 'sectorIdentifierUri'
  | 'backchannelLogoutUri'
  | 'backchannelLogoutSessionRequired'
  | 'jwks'
  | 'jwksUri'
  | 'requirePushedAuthorizationRequests'
  | 'requireSignedRequestObject'
  | 'authorizationSignedResponseAlg'
  | 'profile'
  | 'requestObjectSigningAlg'
  | 'tokenEndpointAuthSigningAlg';

/** Ordinary CRUD for the admin UI and the CLI (Prisma); never on a hot path. */
export interface ApplicationAdminStore {
  list(): Promise<ApplicationRecord[]>;
  /**
   * The application as it is now, its row locked until the transaction ends (uncached): an update that merges changes
   * into it is not overwritten by, and does not overwrite, one that merged into the same row at the same moment.
   */
  findByIdForUpdate(id: number): Promise<ApplicationRecord | null>;
  /** Throws UidTaken when the uid exists. */
  /** `createdAt` (also the first updatedAt) defaults to the database's clock. */
  create(input: ApplicationInput & { uid: string; createdAt?: Date }): Promise<ApplicationRecord>;
  /**
   * null when there is no such application, or when `only` is given and its registration access token is no longer
   * that one: the check and the write are one statement, so of two updates made with the same token one wins
   * (RFC 7592 token rotation).
   */
  update(id: number, changes: Partial<ApplicationInput>, only?: { registrationAccessToken: string }): Promise<ApplicationRecord | null>;
  /** The application whose registration access token has this stored form (SHA-256 hex), read uncached. */
  findByRegistrationAccessToken(storedToken: string): Promise<ApplicationRecord | null>;
  /** Deletes the application with its grants and tokens; false when there was none (with `only`, as update's). */
  delete(id: number, only?: { registrationAccessToken: string }): Promise<boolean>;
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
