import { afterAll, describe, expect, it } from 'vitest';
import { compileDeferredSchemas } from '../../src/http/schema-compilers.js';
import type { TestServer } from '../helpers/test-server.js';
import { fuzzServer } from '../security/fuzz-run.js';

// A route's schemas are compiled at its first request, or by compileDeferredSchemas once `serve` listens
// (schema-compilers.ts), no longer when the server is built: here every schema of a server with the optional routes
// on (OpenID Connect, the device flow, token exchange, self-registration: the fuzz's full profile) is compiled, as
// the start used to, so that a schema mistake fails the suite rather than a route's first request.
describe("the routes' schemas", () => {
  let server: TestServer | undefined;
  afterAll(() => server?.close());

  it('every request and response schema of a server with the optional routes on compiles', async () => {
    server = await fuzzServer('full');
    // Ready: its routes handed their schemas to the compilers (which defer them).
    await server.app.ready();
    await expect(compileDeferredSchemas()).resolves.toBeUndefined();
  });
});
