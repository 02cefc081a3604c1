-- Resource servers (issue 17): APIs registered as resources (RFC 8707), the audience a code and a token are for,
-- and the access token format of an application (RFC 9068). Every new column is nullable or has a default:
-- existing rows mean what they meant (no audience: any API that trusts the service; opaque tokens).
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_resources" (
    "id" BIGSERIAL NOT NULL,
    "uri" VARCHAR NOT NULL,
    "name" VARCHAR NOT NULL DEFAULT '',
    "scopes" VARCHAR NOT NULL DEFAULT '',
    "token_format" VARCHAR NOT NULL DEFAULT 'opaque',
    "access_token_lifetime" INTEGER,
    "server_client_id" VARCHAR,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_resources_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_resources_on_uri" ON "oauth_resources"("uri");

-- AlterTable
ALTER TABLE "oauth_access_grants" ADD COLUMN "audience" TEXT;

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN "audience" TEXT;

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "access_token_format" VARCHAR NOT NULL DEFAULT 'opaque';
