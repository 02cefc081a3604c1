-- Per client, when token responses carry a refresh token (OpenID Connect Core 1.0 section 11, issue 31 item 1):
-- "always" (while the client holds the refresh_token grant, as before: every existing client keeps it), or
-- "offline_access", only when the offline_access scope was granted.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "refresh_tokens" VARCHAR NOT NULL DEFAULT 'always';
