-- Self-registering clients, issue 19: the RFC 7591 metadata kept as registered (grant types, authentication method,
-- application type, display URIs, contacts, software), Client ID Metadata Documents' refetch time, the admin's
-- approval and disabling, the first use (cleanup of unused registrations), and the initial access tokens of the
-- initialAccessToken policy. Every new column is nullable or defaulted: existing applications keep working.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "grant_types" VARCHAR,
ADD COLUMN "token_endpoint_auth_method" VARCHAR,
ADD COLUMN "application_type" VARCHAR,
ADD COLUMN "client_uri" VARCHAR,
ADD COLUMN "logo_uri" VARCHAR,
ADD COLUMN "policy_uri" VARCHAR,
ADD COLUMN "tos_uri" VARCHAR,
ADD COLUMN "contacts" TEXT NOT NULL DEFAULT '',
ADD COLUMN "software_id" VARCHAR,
ADD COLUMN "software_version" VARCHAR,
ADD COLUMN "metadata_expires_at" TIMESTAMP(6),
ADD COLUMN "approved_at" TIMESTAMP(6),
ADD COLUMN "disabled_at" TIMESTAMP(6),
ADD COLUMN "used_at" TIMESTAMP(6);

-- CreateTable
CREATE TABLE "oauth_registration_tokens" (
    "id" BIGSERIAL NOT NULL,
    "token" VARCHAR NOT NULL,
    "uses_remaining" INTEGER,
    "expires_at" TIMESTAMP(6),
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMP(6),

    CONSTRAINT "oauth_registration_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_registration_tokens_on_token" ON "oauth_registration_tokens"("token");
