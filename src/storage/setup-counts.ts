import type { Database } from './database.js';

/** How many applications and users there are: what the boot banner's "Next steps" still has to suggest (issue 32). */
export async function setupCounts(database: Database): Promise<{ applications: number; users: number }> {
  const [applications, users] = await Promise.all([database.prisma.oauthApplication.count(), database.prisma.user.count()]);
  return { applications, users };
}
