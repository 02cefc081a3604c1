import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import type { FuzzFixture } from './fuzz-requests.js';
import { fuzzFixture, fuzzServer, runFuzz, type FuzzProfile } from './fuzz-run.js';

// SPEC 3 and 9 ("no input makes any endpoint answer 500", hostile input never leaks state): the shortened fuzz
// run of CI, over every route of the service through a loopback socket. The full run is `npm run fuzz`
// (scripts/fuzz.ts), with a new seed each time. CI keeps one seed so that its result is repeatable; FUZZ_SEED=<seed>
// runs another sequence (a failure of `npm run fuzz` prints its seed). Two services: the default settings, and every
// feature a request can reach on (OpenID Connect, the implicit, device and token exchange grants: 'full').

const COUNT = Number(process.env.FUZZ_COUNT ?? 1500);
const SECONDS = 40;
const SEED = Number(process.env.FUZZ_SEED ?? 8);

// Routes each profile's run must have found in the route table (so it fuzzes them).
const EXPECTED_ROUTES: Record<FuzzProfile, string[]> = {
  default: ['/oauth/token', '/oauth/authorize', '/oauth/applications/:id', '/login', '/oauth/register'],
  full: ['/oauth/token', '/oauth/userinfo', '/oauth/par', '/oauth/end_session', '/oauth/device_authorization', '/device'],
};

describe.each(['default', 'full'] as const)(
  `RFC 6749 section 10.14, SPEC 9: fuzzing every endpoint (%s profile, ${backend}, seed ${SEED})`,
  (profile) => {
    let server: TestServer;
    let fixture: FuzzFixture;

    beforeAll(async () => {
      server = await fuzzServer(profile);
      await server.app.listen({ port: 0, host: '127.0.0.1' });
      fixture = await fuzzFixture(server);
    });
    afterAll(() => server.close());

    it(
      `${COUNT} random and mutated requests: never a 5xx, a stack trace, an internal message or a redirect off the registered URIs; still ready afterwards`,
      { timeout: 90_000 },
      async () => {
        const report = await runFuzz(server, fixture, { count: COUNT, seconds: SECONDS, seed: SEED });
        expect(report.routes.map((route) => route.path)).toEqual(expect.arrayContaining(EXPECTED_ROUTES[profile]));
        expect(report.failures.slice(0, 5)).toEqual([]);
        // Bounded by time too: on a slow machine fewer requests, but never a token amount.
        expect(report.sent).toBeGreaterThanOrEqual(Math.min(COUNT, 300));
        expect(Object.keys(report.statuses).length).toBeGreaterThan(5);
        const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(200);
        const token = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(fixture.clientId, fixture.clientSecret));
        expect(token.statusCode).toBe(200);
      },
    );
  },
);
