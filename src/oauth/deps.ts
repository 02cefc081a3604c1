import type { Config } from '../config/types.js';
import type { AttemptLimits } from './limits/attempt-limits.js';
import type { OAuthHooks } from './hooks.js';
import type { IntrospectionRule } from './tokens/introspection-policy.js';
import type { PasswordHasher } from './users/passwords.js';
import type { CapObserver } from './clients/registration/registration-cap.js';
import type { LogoutDeliveryWaker } from './openid/backchannel-logout/logout-delivery-store.js';
import type { Stores } from './store.js';
import type { TokenSigner } from './keys/token-signer.js';
import type { SigningKeyRecord } from './keys/signing-keys.js';
import type { JsonSchemaChecker } from './resources/authorization-details-schemas.js';

/** What every domain function receives (STYLE 6): storage, frozen config, the clock, and the hooks. */
export interface OAuthDeps {
  stores: Stores;
  config: Readonly<Config>;
  now: () => Date;
  hooks: OAuthHooks;
  passwords: PasswordHasher;
  /** Failure limits of this process (SPEC 5 rateLimit), shared by every route that checks credentials. */
  limits: AttemptLimits;
  /** Signs ID tokens (and signed UserInfo) with the shared keys; makes no key until it first signs. */
  signer: TokenSigner;
  /**
   * The declarative introspection policy (config `introspection.allow`, STYLE 7), built once with the other
   * dependencies; where it is left out, the domain builds it from `config` (introspectionPolicyOf).
   */
  introspectionRules?: IntrospectionRule[];
  /** Told of each count against a cap on self-registered clients (registration-cap.ts: log line and gauge). */
  observeCap?: CapObserver;
  /** CAs trusted for the https documents fetched for clients (a sector_identifier_uri): tests' own; operators use NODE_EXTRA_CA_CERTS. */
  documentCa?: string | Buffer | Array<string | Buffer>;
  /**
   * Told when an audit event that has no change to join (a sign-in at the token endpoint) could not be written: the
   * service logs it and answers as usual. Absent (the CLI, tests): the failure is thrown.
   */
  auditWriteFailed?: (error: unknown) => void;
  /**
   * Told when an extension hook failed where the request can still be answered (beforeTokenResponse, once the token
   * is stored: token-response-hook.ts): the service logs it. Absent (the CLI, the domain on its own): thrown.
   */
  extensionFailed?: (hook: string, error: unknown) => void;
  /** Told of the signing keys the service made by itself (SigningKeyDeps.keysMade): the audit trail; absent in the CLI. */
  keysMade?: (keys: SigningKeyRecord[]) => Promise<void>;
  /** Back-Channel Logout: the service's delivery worker, told when a logout was queued; absent in the CLI. */
  logoutDeliveries?: LogoutDeliveryWaker;
  /**
   * RFC 9396: checks authorization_details against their types' JSON Schemas, and the schemas a resource declares
   * (src/storage/ajv-json-schema-checker.ts, Ajv). The service, the CLI and the tests give it; without it, a schema is an error.
   */
  jsonSchemas?: JsonSchemaChecker;
}
