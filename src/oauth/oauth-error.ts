// The base of every error the service answers with (the catalogue is errors.ts): an OAuth error code, the HTTP status
// actually sent, the description, and where the client should wait, retryAfter.

export type OAuthErrorBody = { error: string; error_description: string };

export interface OAuthErrorOptions extends ErrorOptions {
  /** Seconds the client should wait before trying again (the Retry-After header). */
  retryAfter?: number;
}

export abstract class OAuthError extends Error {
  readonly code: string;
  readonly status: number;
  readonly description: string;
  /** Seconds before a retry may succeed (Retry-After); null when retrying at once is fine. */
  readonly retryAfter: number | null;

  protected constructor(code: string, status: number, description: string, options: OAuthErrorOptions = {}) {
    const { retryAfter, ...errorOptions } = options;
    super(description, errorOptions);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.description = description;
    this.retryAfter = retryAfter ?? null;
  }

  toJSON(): OAuthErrorBody {
    return { error: this.code, error_description: this.description };
  }
}
