-- Issue 35 items 3 and 4 (RFC 8176, OpenID Connect Core 2, RFC 9470): how the user signed in (amr values,
-- space-separated) and the acr that sign-in reached, carried from the sign-in through codes, device authorizations
-- and tokens to ID tokens, JWT access tokens and introspection. NULL: a row from before this was recorded.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_access_grants" ADD COLUMN "amr" TEXT,
ADD COLUMN "acr" VARCHAR;

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN "amr" TEXT,
ADD COLUMN "acr" VARCHAR;

-- AlterTable
ALTER TABLE "oauth_device_authorizations" ADD COLUMN "amr" TEXT,
ADD COLUMN "acr" VARCHAR;
