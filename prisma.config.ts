import { defineConfig } from 'prisma/config';

// The CLI is only used for `prisma generate` (offline, see scripts/generate-client.mjs) and, where the
// schema engine exists, `prisma migrate status`. The service applies prisma/migrations itself.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/oauth_service' },
});
