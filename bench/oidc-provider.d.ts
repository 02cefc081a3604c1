// The little of oidc-provider's API bench/peer-oidc-provider.ts uses (the package ships no types; @types/oidc-provider
// would be one more devDependency for one constructor).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
    Grant: typeof Grant;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<{ params: Record<string, unknown> }>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
