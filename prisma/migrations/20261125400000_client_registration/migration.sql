-- Dynamic client registration, RFC 7591 / RFC 7592 (issue 19): the registration access token of a self-registered
-- client (SHA-256 hex, unique) and who registered each application ('admin' or 'dynamic').
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "registration_access_token" VARCHAR,
ADD COLUMN "registered_by" VARCHAR NOT NULL DEFAULT 'admin';

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_applications_on_registration_access_token" ON "oauth_applications"("registration_access_token");
