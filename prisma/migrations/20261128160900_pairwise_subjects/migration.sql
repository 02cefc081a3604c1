-- Pairwise subject identifiers (OpenID Connect Core 1.0 section 8.1, issue 31 item 3): per client, whether its
-- users' `sub` is the public one or one computed for its sector, and the sector_identifier_uri a self-registered
-- client named (OpenID Connect Registration 1.0 section 2). Every existing client stays public.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "subject_type" VARCHAR NOT NULL DEFAULT 'public',
ADD COLUMN "sector_identifier_uri" VARCHAR;
