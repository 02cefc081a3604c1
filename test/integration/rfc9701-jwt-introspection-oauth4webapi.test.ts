import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, issueToken } from '../helpers/factories.js';
import { listeningOpenIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { discovered, insecureHttp } from '../helpers/oauth4webapi.js';

// RFC 9701 checked by a real resource-server library: oauth4webapi asks for the JWT, validates its claims and
// verifies its signature with the JWKS it discovers, as a deployment would.

const JWT_TYPE = 'application/token-introspection+jwt';

describe(`oauth4webapi as the resource server (RFC 9701 sections 4 and 5) on ${backend}`, () => {
  // The issuer must be the URL the library discovers: the server listens on the address it has as baseUrl.
  let server: TestServer;
  beforeAll(async () => {
    server = await listeningOpenIdServer();
  });
  afterAll(() => server.close());

  it('requestJwtResponse: the library checks typ, iss, aud and iat, then the signature against the discovered JWKS', async () => {
    const as = await discovered(server.config.baseUrl);
    expect(as.introspection_signing_alg_values_supported).toEqual(['RS256']);
    const resourceServer = await createClient(server.deps);
    const client: oauth.Client = { client_id: resourceServer.uid };
    const auth = oauth.ClientSecretBasic(resourceServer.secret!);
    const issued = await issueToken(server.deps, { application: resourceServer.application });

    const response = await oauth.introspectionRequest(as, client, auth, issued.accessToken, { requestJwtResponse: true, ...insecureHttp });
    expect(response.headers.get('content-type')).toBe(JWT_TYPE);
    const answer = await oauth.processIntrospectionResponse(as, client, response);
    await oauth.validateApplicationLevelSignature(as, response, insecureHttp);
    expect(answer).toMatchObject({ active: true, client_id: resourceServer.uid, token_type: 'Bearer' });

    const plain = await oauth.introspectionRequest(as, client, auth, issued.accessToken, insecureHttp);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await oauth.processIntrospectionResponse(as, client, plain)).toEqual(answer);
  });

  it('another resource server cannot take the JWT for its own: aud names the requester', async () => {
    const as = await discovered(server.config.baseUrl);
    const requester = await createClient(server.deps);
    const issued = await issueToken(server.deps, { application: requester.application });
    const response = await oauth.introspectionRequest(
      as,
      { client_id: requester.uid },
      oauth.ClientSecretBasic(requester.secret!),
      issued.accessToken,
      { requestJwtResponse: true, ...insecureHttp },
    );
    await expect(oauth.processIntrospectionResponse(as, { client_id: 'someone-else' }, response)).rejects.toThrow(/aud/);
  });
});
