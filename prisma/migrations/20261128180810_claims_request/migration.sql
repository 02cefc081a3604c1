-- The claims request parameter (OpenID Connect Core 1.0 section 5.5, issue 31 item 4): what an authorization request
-- asked for by name, as JSON ({"userinfo": {...}, "id_token": {...}}, only the claims this server understands),
-- remembered with the code and with every token issued from it, so that UserInfo and refreshed ID tokens honour it.
-- NULL: no claims parameter. Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_access_grants" ADD COLUMN "claims" TEXT;

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN "claims" TEXT;
