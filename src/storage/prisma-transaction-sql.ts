import type { Prisma } from './generated/client.js';
import type { SqlClient, SqlStatement } from './sql-client.js';

/**
 * The lean SQL path on a Prisma interactive transaction: the repositories' raw statements then run on the
 * transaction's connection, beside their Prisma calls (stores.ts adminTransaction). Prisma returns BIGINT as bigint
 * and TIMESTAMP as a Date in UTC, which the row mappers read as they read the SQL client's numbers (rows.ts).
 */
export function sqlClientForPrismaTransaction(tx: Prisma.TransactionClient): SqlClient {
  const textOf = (statement: SqlStatement) => (typeof statement === 'string' ? statement : statement.text);
  return {
    query: <Row>(statement: SqlStatement, values: readonly unknown[] = []) => tx.$queryRawUnsafe<Row[]>(textOf(statement), ...values),
    async execute(script: string) {
      await tx.$executeRawUnsafe(script);
    },
    transaction: () => Promise.reject(new Error('nested transactions are not supported')),
  };
}
