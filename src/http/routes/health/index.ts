import type { FastifyPluginAsync } from 'fastify';
import { noStore } from '../../no-store.js';

export interface HealthOptions {
  /** Resolves with the names of pending migrations; rejects when the database is unreachable. */
  pendingMigrations: () => Promise<string[]>;
  /** Resolves false while the primary refuses writes (a demoted leader, read-only mode); rejects when unreachable. */
  primaryWritable?: () => Promise<boolean>;
}

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' }, detail: { type: 'string' } },
  required: ['status'],
};

/**
 * /healthz: the process is alive. /readyz: the database answers, takes writes, and every migration is applied
 * (SPEC 3.7). A load balancer then leaves an instance alone while a failover has left it without a writable primary.
 */
export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, { pendingMigrations, primaryWritable }) => {
  app.get('/healthz', { schema: { response: { 200: statusSchema } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { response: { 200: statusSchema, 503: statusSchema } } }, async (request, reply) => {
    noStore(reply, { pragma: false });
    try {
      const [pending, writable] = await withTimeout(Promise.all([pendingMigrations(), primaryWritable?.() ?? true]), 3_000);
      if (!writable) return reply.code(503).send({ status: 'unavailable', detail: 'no writable primary (the database is read-only)' });
      if (pending.length > 0) {
        return reply.code(503).send({ status: 'unavailable', detail: `pending migrations: ${pending.join(', ')}` });
      }
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable', detail: 'database unreachable' });
    }
  });
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}
