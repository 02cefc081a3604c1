import type { AccessGrantRecord, AccessTokenRecord, ApplicationRecord, UserRecord } from '../oauth/store.js';

// Row shapes of the lean SQL path (numbers for BIGINT, UTC Dates; see sql-client.ts) and their mapping
// to the domain records. Scopes and redirect URIs are whitespace-separated strings in Doorkeeper's tables.

const splitList = (value: string | null) => (value ? value.split(/\s+/).filter(Boolean) : []);

export interface ApplicationRow {
  id: number;
  name: string;
  uid: string;
  secret: string | null;
  redirect_uri: string;
  scopes: string;
  confidential: boolean;
  created_at: Date;
  updated_at: Date;
}

export const toApplication = (row: ApplicationRow): ApplicationRecord => ({
  id: Number(row.id),
  name: row.name,
  uid: row.uid,
  secret: row.secret,
  redirectUris: splitList(row.redirect_uri),
  scopes: splitList(row.scopes),
  confidential: row.confidential,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface AccessTokenRow {
  id: number;
  application_id: number | null;
  resource_owner_id: number | null;
  token: string;
  refresh_token: string | null;
  expires_in: number | null;
  scopes: string | null;
  created_at: Date;
  revoked_at: Date | null;
  previous_refresh_token: string;
  access_grant_id: number | null;
  refresh_family: string | null;
  refreshed_at: Date | null;
}

const numberOrNull = (value: number | null) => (value === null ? null : Number(value));

export const toAccessToken = (row: AccessTokenRow): AccessTokenRecord => ({
  id: Number(row.id),
  applicationId: numberOrNull(row.application_id),
  resourceOwnerId: numberOrNull(row.resource_owner_id),
  token: row.token,
  refreshToken: row.refresh_token,
  expiresIn: row.expires_in,
  scopes: splitList(row.scopes),
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  previousRefreshToken: row.previous_refresh_token,
  accessGrantId: numberOrNull(row.access_grant_id),
  refreshFamily: row.refresh_family,
  refreshedAt: row.refreshed_at,
});

export interface AccessGrantRow {
  id: number;
  application_id: number;
  resource_owner_id: number;
  token: string;
  expires_in: number;
  redirect_uri: string;
  scopes: string;
  created_at: Date;
  revoked_at: Date | null;
  code_challenge: string | null;
  code_challenge_method: string | null;
}

export const toAccessGrant = (row: AccessGrantRow): AccessGrantRecord => ({
  id: Number(row.id),
  applicationId: Number(row.application_id),
  resourceOwnerId: Number(row.resource_owner_id),
  token: row.token,
  expiresIn: row.expires_in,
  redirectUri: row.redirect_uri,
  scopes: splitList(row.scopes),
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  codeChallenge: row.code_challenge,
  codeChallengeMethod: row.code_challenge_method,
});

export interface UserRow {
  id: number;
  username: string;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
}

export const toUser = (row: UserRow): UserRecord => ({
  id: Number(row.id),
  username: row.username,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** TIMESTAMP columns hold UTC wall time; an ISO string with Z is stored as exactly that. */
export const timestamp = (date: Date) => date.toISOString();
