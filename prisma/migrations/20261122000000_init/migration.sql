-- Doorkeeper 5.9.5's tables (reference section 17) with the columns oauth-service adds, and users.
-- Hand-written to match prisma/schema.prisma (SPEC 5b); test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_applications" (
    "id" BIGSERIAL NOT NULL,
    "name" VARCHAR NOT NULL,
    "uid" VARCHAR NOT NULL,
    "secret" VARCHAR,
    "redirect_uri" TEXT NOT NULL DEFAULT '',
    "scopes" VARCHAR NOT NULL DEFAULT '',
    "confidential" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_applications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_access_grants" (
    "id" BIGSERIAL NOT NULL,
    "resource_owner_id" BIGINT NOT NULL,
    "application_id" BIGINT NOT NULL,
    "token" VARCHAR NOT NULL,
    "expires_in" INTEGER NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "scopes" VARCHAR NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMP(6),
    "code_challenge" VARCHAR,
    "code_challenge_method" VARCHAR,

    CONSTRAINT "oauth_access_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_access_tokens" (
    "id" BIGSERIAL NOT NULL,
    "resource_owner_id" BIGINT,
    "application_id" BIGINT,
    "token" VARCHAR NOT NULL,
    "refresh_token" VARCHAR,
    "expires_in" INTEGER,
    "scopes" VARCHAR,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMP(6),
    "previous_refresh_token" VARCHAR NOT NULL DEFAULT '',
    "access_grant_id" BIGINT,
    "refresh_family" VARCHAR,
    "refreshed_at" TIMESTAMP(6),

    CONSTRAINT "oauth_access_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" BIGSERIAL NOT NULL,
    "username" VARCHAR NOT NULL,
    "password_hash" VARCHAR NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_applications_on_uid" ON "oauth_applications"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_access_grants_on_token" ON "oauth_access_grants"("token");

-- CreateIndex
CREATE INDEX "index_oauth_access_grants_on_resource_owner_id" ON "oauth_access_grants"("resource_owner_id");

-- CreateIndex
CREATE INDEX "index_oauth_access_grants_on_application_id" ON "oauth_access_grants"("application_id");

-- CreateIndex
CREATE INDEX "index_oauth_access_grants_on_created_at" ON "oauth_access_grants"("created_at");

-- CreateIndex
CREATE INDEX "index_oauth_access_grants_on_revoked_at" ON "oauth_access_grants"("revoked_at");

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_access_tokens_on_token" ON "oauth_access_tokens"("token");

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_access_tokens_on_refresh_token" ON "oauth_access_tokens"("refresh_token");

-- CreateIndex
CREATE INDEX "index_oauth_access_tokens_on_resource_owner_id" ON "oauth_access_tokens"("resource_owner_id");

-- CreateIndex
CREATE INDEX "index_oauth_access_tokens_on_application_id" ON "oauth_access_tokens"("application_id");

-- CreateIndex
CREATE INDEX "index_oauth_access_tokens_on_access_grant_id" ON "oauth_access_tokens"("access_grant_id");

-- CreateIndex
CREATE INDEX "index_oauth_access_tokens_on_refresh_family" ON "oauth_access_tokens"("refresh_family");

-- CreateIndex
CREATE INDEX "index_oauth_access_tokens_on_created_at" ON "oauth_access_tokens"("created_at");

-- CreateIndex
CREATE INDEX "index_oauth_access_tokens_on_revoked_at" ON "oauth_access_tokens"("revoked_at");

-- CreateIndex
CREATE UNIQUE INDEX "index_users_on_username" ON "users"("username");

-- AddForeignKey
ALTER TABLE "oauth_access_grants" ADD CONSTRAINT "fk_rails_b4b53e07b8" FOREIGN KEY ("application_id") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_access_tokens" ADD CONSTRAINT "fk_rails_732cb83ab7" FOREIGN KEY ("application_id") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;
