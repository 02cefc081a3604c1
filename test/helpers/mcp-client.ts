import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * The OAuthClientProvider an MCP client application writes, keeping everything in memory and remembering what the
 * SDK handed it: every saved token response, every authorization URL, every credentials invalidation. Where the
 * SDK sends the user to the authorization server, it calls `onRedirect` (the test drives Chromium there).
 */
export class RecordingOAuthProvider implements OAuthClientProvider {
  readonly savedTokens: OAuthTokens[] = [];
  readonly authorizationUrls: URL[] = [];
  readonly invalidations: string[] = [];
  readonly states: string[] = [];
  private information: OAuthClientInformationMixed | undefined;
  private currentTokens: OAuthTokens | undefined;
  private verifier: string | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata,
    public onRedirect: (url: URL) => Promise<void>,
    readonly clientMetadataUrl?: string,
  ) {}

  state(): string {
    const state = randomBytes(16).toString('base64url');
    this.states.push(state);
    return state;
  }

  clientInformation() {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }

  tokens() {
    return this.currentTokens;
  }

  saveTokens(tokens: OAuthTokens) {
    this.savedTokens.push(tokens);
    this.currentTokens = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    await this.onRedirect(url);
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.invalidations.push(scope);
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.currentTokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }
}

export interface RecordedRequest {
  method: string;
  url: string;
  /** The body of a POST (a token request's form, a registration's JSON), as sent. */
  body: string;
  status: number;
  /** The answer's body when it is JSON (an OAuth error), else empty. */
  responseBody: string;
}

/** fetch that remembers every request and its status: the transport's and its auth's (they share it). */
export function recordingFetch(log: RecordedRequest[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const body = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : '';
    const responseBody = response.headers.get('content-type')?.startsWith('application/json') ? await response.clone().text() : '';
    log.push({ method: init?.method ?? 'GET', url, body, status: response.status, responseBody });
    return response;
  };
}
