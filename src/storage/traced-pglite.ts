import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { StatementTracer } from '../telemetry/statement-tracer.js';

/**
 * `db` with each `query` and `exec` (its transactions' too) run inside a span of `trace`: what Prisma's PGlite adapter
 * and sqlClientForPglite send, the service's every statement on the embedded database (docs/operations.md "Traces").
 * Used only while traces are exported; everything else reaches `db` itself.
 */
export function tracedPglite<Db extends PGlite | Transaction>(db: Db, trace: StatementTracer): Db {
  return new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property === 'query' || property === 'exec') {
        return (text: string, ...rest: unknown[]) => trace(text, () => method.call(target, text, ...rest) as Promise<unknown>);
      }
      if (property === 'transaction') {
        return (work: (tx: Transaction) => Promise<unknown>) => method.call(target, (tx: Transaction) => work(tracedPglite(tx, trace)));
      }
      return method.bind(target);
    },
  });
}
