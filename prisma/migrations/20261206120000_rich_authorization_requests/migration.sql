-- Issue 36 item 4, RFC 9396: rich authorization requests. A resource (RFC 8707) declares the authorization_details
-- types it serves, each with an optional JSON Schema and the consent page's text per locale, as one JSON object
-- (NULL: none). A code and a token keep the authorization_details granted, as the JSON array (NULL: none), for the
-- token response, the JWT access token's claim, introspection and the narrowing at refresh.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_resources" ADD COLUMN "authorization_details_types" TEXT;

-- AlterTable
ALTER TABLE "oauth_access_grants" ADD COLUMN "authorization_details" TEXT;

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN "authorization_details" TEXT;
