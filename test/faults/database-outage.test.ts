import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceOnPrivatePostgres, type ServiceOnPrivatePostgres } from '../helpers/service-on-private-postgres.js';

// SPEC 9: "a database outage gives 503 and the service recovers by itself".
describe('PostgreSQL stops and starts again under the service', () => {
  let service: ServiceOnPrivatePostgres;

  beforeAll(async () => {
    service = await serviceOnPrivatePostgres();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('answers 503 temporarily_unavailable (never 500, never hanging) while the database is down, and recovers without a restart', async () => {
    const { postgres, app, introspect, issue } = service;
    expect((await introspect()).json()).toMatchObject({ active: true });
    const before = await service.tokenRows();

    await postgres.stop();
    const during = await Promise.all([introspect(), issue(), introspect(), app.inject({ method: 'GET', url: '/readyz' })]);
    for (const response of during) expect(response.statusCode).toBe(503);
    expect(during[0]!.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description:
        'The authorization server is currently unable to handle the request due to a temporary overloading or maintenance of the server.',
    });
    expect(during[0]!.headers['retry-after']).toBe('5');

    await postgres.start();
    let recovered = await introspect();
    for (let attempt = 0; attempt < 20 && recovered.statusCode !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      recovered = await introspect();
    }
    expect(recovered.statusCode).toBe(200);
    expect(recovered.json()).toMatchObject({ active: true });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // The token request that failed during the outage wrote nothing.
    expect(await service.tokenRows()).toBe(before);
    expect((await issue()).statusCode).toBe(200);
  }, 90_000);
});
