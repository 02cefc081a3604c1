// The storage interface of RFC 8628 device authorizations (src/storage/device-authorization-repository.ts). Both
// codes are kept as SHA-256 hex only: the plain values exist in the device authorization response alone.

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'used';

export interface DeviceAuthorizationRecord {
  id: number;
  applicationId: number;
  scopes: string[];
  /** RFC 8707: the resources the request named. */
  audience: string[];
  createdAt: Date;
  expiresAt: Date;
  /** Seconds a poll must wait after the previous one (RFC 8628 section 3.5: grows by 5 on each slow_down). */
  interval: number;
  lastPolledAt: Date | null;
  /** How often its user code was entered at /device. */
  entries: number;
  status: DeviceAuthorizationStatus;
  resourceOwnerId: number | null;
  authTime: Date | null;
  sessionId: string | null;
  /** RFC 8176: how the approver signed in (empty: unknown), and the acr reached. */
  amr: string[];
  acr: string | null;
  decidedAt: Date | null;
}

export interface NewDeviceAuthorization {
  applicationId: number;
  deviceCode: string;
  userCode: string;
  scopes: string[];
  audience: string[];
  createdAt: Date;
  expiresAt: Date;
  interval: number;
}

/** Who approved, as the token's ID token repeats it (auth_time, sid, amr, acr). */
export interface DeviceApproval {
  resourceOwnerId: number;
  authTime: Date | null;
  sessionId: string | null;
  amr: string[];
  acr: string | null;
}

/** A recorded poll: in time, or too soon (slow_down, the interval grown by 5 s); the interval now in force. */
export interface DevicePoll {
  outcome: 'ok' | 'slow_down';
  interval: number;
}

export interface DeviceAuthorizationStore {
  /** Null when the user code is taken by a live row (the caller draws another). */
  create(authorization: NewDeviceAuthorization): Promise<DeviceAuthorizationRecord | null>;
  findByDeviceCode(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | null>;
  /**
   * A device's poll in one statement, atomically on every instance: the row as it was, and when it was this client's,
   * pending and unexpired at `at`, the poll recorded: 'ok' when the previous one is at least `interval` seconds old (or
   * there was none), else 'slow_down', which adds 5 seconds to the interval (RFC 8628 section 3.5). `poll` is null when nothing was recorded (not found, another client's, decided,
   * used or expired: the caller says which).
   */
  findAndPoll(
    deviceCodeHash: string,
    applicationId: number,
    at: Date,
  ): Promise<{ authorization: DeviceAuthorizationRecord; poll: DevicePoll | null } | null>;
  findByUserCode(userCodeHash: string): Promise<DeviceAuthorizationRecord | null>;
  /** Counts one entry of the user code while the row is pending; the count after it, or null when not pending. */
  countEntry(id: number): Promise<number | null>;
  /** Decides a pending row once: approved (with who) or denied. False when it was no longer pending. */
  decide(id: number, decision: DeviceApproval | null, at: Date): Promise<boolean>;
  /** Approved to used, once: exactly one of several concurrent polls gets the tokens. */
  consume(id: number): Promise<boolean>;
  /**
   * Approved, unexpired rows of the owner (of one application, or of all with `applicationId` null) to denied: the
   * device that has not yet polled its tokens never gets them. How many rows it ended.
   */
  denyApprovedFor(resourceOwnerId: number, applicationId: number | null, at: Date): Promise<number>;
}
