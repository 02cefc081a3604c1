// The storage interface of RFC 9126 pushed authorization requests (src/storage/pushed-request-repository.ts). The
// request_uri's random part is kept as SHA-256 hex only: the plain value exists in the PAR response alone.

export interface PushedRequestRecord {
  id: number;
  applicationId: number;
  /** The validated request's parameters as JSON (pushed-authorization-requests.ts reads them). */
  parameters: string;
  createdAt: Date;
  expiresAt: Date;
  /** When /oauth/authorize first used it; null: not yet. */
  openedAt: Date | null;
  /** When the authorization it started completed (a code or token issued, or denied); null: not yet. */
  consumedAt: Date | null;
}

export interface NewPushedRequest {
  applicationId: number;
  reference: string;
  parameters: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface PushedRequestStore {
  create(request: NewPushedRequest): Promise<void>;
  /**
   * The request with this reference for this application, unconsumed and unexpired at `at`, in one statement: the
   * first open also moves its expiry to `openUntil` (the sign-in and consent get their own window). Null otherwise.
   */
  open(reference: string, applicationId: number, at: Date, openUntil: Date): Promise<PushedRequestRecord | null>;
  /** The row whatever its state, to say why `open` refused it. */
  find(reference: string): Promise<PushedRequestRecord | null>;
  /** Marks it consumed at `at`; false when it was consumed already or has expired (of two at once, one wins). */
  consume(reference: string, applicationId: number, at: Date): Promise<boolean>;
}
