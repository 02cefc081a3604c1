import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverJwksUri, lazyJwksUri } from '../../packages/guard/src/authorization-server-discovery.js';

// The guard's discovery of an issuer's jwks_uri (RFC 8414 section 3, OpenID Connect Discovery 1.0 section 4), against
// a metadata server on loopback that answers each tenant's URLs as a broken or hostile one might. Every failure says
// which URL answered what, so that an operator can tell a wrong issuer setting from a server that is down.

describe('discoverJwksUri', () => {
  let server: Server;
  let origin: string;
  // The answers by path; a path not listed is a 404.
  const answers = new Map<string, (response: ServerResponse) => void>();
  const json = (body: unknown) => (response: ServerResponse) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  beforeAll(async () => {
    server = createServer((request, response) => {
      const answer = answers.get(request.url ?? '');
      if (answer) answer(response);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const rfc8414 = (tenant: string) => `/.well-known/oauth-authorization-server/${tenant}`;
  const discovery = (tenant: string) => `/${tenant}/.well-known/openid-configuration`;

  it("takes RFC 8414's URL first, then Discovery's when that one is 404", async () => {
    answers.set(rfc8414('first'), json({ issuer: `${origin}/first`, jwks_uri: `${origin}/first/jwks` }));
    expect(await discoverJwksUri(`${origin}/first`, 2000)).toBe(`${origin}/first/jwks`);
    answers.set(discovery('second'), json({ issuer: `${origin}/second`, jwks_uri: `${origin}/second/jwks` }));
    expect(await discoverJwksUri(`${origin}/second`, 2000)).toBe(`${origin}/second/jwks`);
  });

  it('says what each URL answered when neither has metadata', async () => {
    await expect(discoverJwksUri(`${origin}/none`, 2000)).rejects.toThrow(
      `${origin}${rfc8414('none')} answered 404; ${origin}${discovery('none')} answered 404`,
    );
  });

  it('stops at an answer other than 404: a server error is not a reason to try the other URL', async () => {
    answers.set(rfc8414('down'), (response) => response.writeHead(503).end());
    answers.set(discovery('down'), json({ issuer: `${origin}/down`, jwks_uri: `${origin}/down/jwks` }));
    await expect(discoverJwksUri(`${origin}/down`, 2000)).rejects.toThrow(`${origin}${rfc8414('down')} answered 503`);
  });

  it('refuses metadata that is no JSON object, names another issuer (section 3.3), or has no usable jwks_uri', async () => {
    answers.set(rfc8414('html'), (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
    answers.set(rfc8414('list'), json(['not', 'an', 'object']));
    answers.set(rfc8414('list-null'), json(null));
    answers.set(rfc8414('spoofed'), json({ issuer: 'https://attacker.example', jwks_uri: 'https://attacker.example/jwks' }));
    answers.set(rfc8414('keyless'), json({ issuer: `${origin}/keyless` }));
    answers.set(rfc8414('relative'), json({ issuer: `${origin}/relative`, jwks_uri: '/jwks' }));
    await expect(discoverJwksUri(`${origin}/html`, 2000)).rejects.toThrow(`${origin}${rfc8414('html')} answered 200 without a JSON object`);
    // An array is JSON, but no object: said so, not read as metadata without an issuer.
    for (const tenant of ['list', 'list-null'])
      await expect(discoverJwksUri(`${origin}/${tenant}`, 2000)).rejects.toThrow(
        `${origin}${rfc8414(tenant)} answered 200 without a JSON object`,
      );
    await expect(discoverJwksUri(`${origin}/spoofed`, 2000)).rejects.toThrow(
      `${origin}${rfc8414('spoofed')} names the issuer "https://attacker.example", not "${origin}/spoofed"`,
    );
    for (const tenant of ['keyless', 'relative'])
      await expect(discoverJwksUri(`${origin}/${tenant}`, 2000)).rejects.toThrow(
        `${origin}${rfc8414(tenant)} has no jwks_uri (does the authorization server sign tokens? this service: openid.enabled)`,
      );
  });

  it('lazily: a failure is not kept, so a later use discovers again; a success is', async () => {
    const jwksUri = lazyJwksUri(`${origin}/later`, undefined, 2000);
    await expect(jwksUri()).rejects.toThrow('answered 404');
    answers.set(rfc8414('later'), json({ issuer: `${origin}/later`, jwks_uri: `${origin}/later/jwks` }));
    expect(await jwksUri()).toBe(`${origin}/later/jwks`);
    answers.delete(rfc8414('later'));
    expect(await jwksUri()).toBe(`${origin}/later/jwks`);
    // A configured jwks_uri is never discovered.
    expect(await lazyJwksUri(`${origin}/nowhere`, 'https://keys.example/jwks', 2000)()).toBe('https://keys.example/jwks');
  });
});
