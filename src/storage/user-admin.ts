import type { UserAdminStore, UserRecord } from '../oauth/store.js';
import { UsernameTaken } from '../oauth/store.js';
import type { PrismaClient, User } from './generated/client.js';
import { uniqueViolation } from './prisma-errors.js';

const toRecord = (row: User): UserRecord => ({
  id: Number(row.id),
  username: row.username,
  passwordHash: row.passwordHash,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export function userAdmin(prisma: PrismaClient): UserAdminStore {
  return {
    async list() {
      return (await prisma.user.findMany({ orderBy: { id: 'asc' } })).map(toRecord);
    },
    async create(input) {
      try {
        return toRecord(await prisma.user.create({ data: input }));
      } catch (error) {
        if (uniqueViolation(error)) throw new UsernameTaken(input.username);
        throw error;
      }
    },
    async setPasswordHash(username, passwordHash) {
      const result = await prisma.user.updateMany({ where: { username }, data: { passwordHash } });
      return result.count > 0;
    },
    async delete(username) {
      return (await prisma.user.deleteMany({ where: { username } })).count > 0;
    },
  };
}
