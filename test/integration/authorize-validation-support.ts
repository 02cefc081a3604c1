import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import type { ApplicationFields } from '../../src/oauth/clients/applications.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { authorizeUrl, createClient, createUser, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import type { TestServer } from '../helpers/test-server.js';

// What authorize-validation.test.ts and authorize-validation-openid.test.ts share: tests named by the rule they
// exercise, an error redirected to the client, and alice signed in to ask for a client's authorization.

export const CALLBACK = 'https://client.example.com/callback';

/** `ruleTest` declares a test of one rule by name; `tested` holds the names, for a file to check it left none out. */
export function ruleTests() {
  const tested = new Set<string>();
  const ruleTest = (rule: string, title: string, test: () => Promise<void>) => {
    tested.add(rule);
    it(`rule ${rule}: ${title}`, test);
  };
  return { tested, ruleTest };
}

/** An error sent back to the client's CALLBACK, in the query or the fragment, and no code with it. */
export function expectRedirect(response: LightMyRequestResponse, error: string, description: string, part: 'search' | 'hash' = 'search') {
  expect(response.statusCode).toBe(302);
  expect(String(response.headers.location).startsWith(`${CALLBACK}${part === 'search' ? '?' : '#'}`)).toBe(true);
  const parameters = locationParameters(response, part);
  expect(parameters.get('error')).toBe(error);
  expect(parameters.get('error_description')).toBe(description);
  expect(parameters.has('code')).toBe(false);
}

export interface AuthorizeRequests {
  agent: UserAgent;
  client: ApplicationRecord;
  /** GET /oauth/authorize for the client with response_type code to CALLBACK, `defaults`, then `parameters`. */
  get(parameters: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** Alice signed in on the server and a client registered with `clientFields`, asking for its authorization. */
export async function authorizeRequests(
  server: TestServer,
  defaults: Record<string, string>,
  clientFields: Partial<ApplicationFields> = {},
): Promise<AuthorizeRequests> {
  await createUser(server.deps, 'alice');
  const client = (await createClient(server.deps, clientFields)).application;
  const agent = await signedIn(server.app, 'alice');
  const get = (parameters: Record<string, string>) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', ...defaults, ...parameters }),
    });
  return { agent, client, get };
}
