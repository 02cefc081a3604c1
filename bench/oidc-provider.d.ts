// The little of oidc-provider's API bench/peer-oidc-provider.ts uses (the package ships no types; @types/oidc-provider
// would be one more devDependency for one constructor).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  }
}
