import type { ApplicationAdminStore, ApplicationInput, ApplicationRecord } from '../oauth/store.js';
import { UidTaken } from '../oauth/store.js';
import type { OauthApplication, PrismaClient } from './generated/client.js';
import { uniqueViolation } from './prisma-errors.js';

const toRecord = (row: OauthApplication): ApplicationRecord => ({
  id: Number(row.id),
  name: row.name,
  uid: row.uid,
  secret: row.secret,
  redirectUris: row.redirectUri.split(/\s+/).filter(Boolean),
  scopes: row.scopes.split(/\s+/).filter(Boolean),
  confidential: row.confidential,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const toColumns = (input: Partial<ApplicationInput>) => ({
  ...(input.name !== undefined && { name: input.name }),
  ...(input.secret !== undefined && { secret: input.secret }),
  ...(input.redirectUris !== undefined && { redirectUri: input.redirectUris.join('\n') }),
  ...(input.scopes !== undefined && { scopes: input.scopes.join(' ') }),
  ...(input.confidential !== undefined && { confidential: input.confidential }),
});

export function applicationAdmin(prisma: PrismaClient): ApplicationAdminStore {
  return {
    async list() {
      const rows = await prisma.oauthApplication.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
      return rows.map(toRecord);
    },
    async create(input) {
      try {
        return toRecord(await prisma.oauthApplication.create({ data: { uid: input.uid, ...toColumns(input) } as never }));
      } catch (error) {
        if (uniqueViolation(error)) throw new UidTaken(input.uid);
        throw error;
      }
    },
    async update(id, changes) {
      const existing = await prisma.oauthApplication.findUnique({ where: { id: BigInt(id) } });
      if (!existing) return null;
      return toRecord(await prisma.oauthApplication.update({ where: { id: BigInt(id) }, data: toColumns(changes) }));
    },
    async delete(id) {
      // Grants and tokens go with it (foreign keys ON DELETE CASCADE, reference section 13).
      return (await prisma.oauthApplication.deleteMany({ where: { id: BigInt(id) } })).count > 0;
    },
  };
}
