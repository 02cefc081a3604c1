-- Issue 34 item 2, RFC 8628: device authorizations. One row per POST /oauth/device_authorization, found by the
-- SHA-256 of its device code (the token endpoint's polls) or of its user code (the /device page). The poll
-- interval and the last poll are stored so that slow_down holds on every instance; the row is decided once
-- (approved or denied) and used once. Deleted with its application; expired rows go with the cleanup's batches.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_device_authorizations" (
    "id" BIGSERIAL NOT NULL,
    "application_id" BIGINT NOT NULL,
    "device_code" VARCHAR NOT NULL,
    "user_code" VARCHAR NOT NULL,
    "scopes" VARCHAR NOT NULL DEFAULT '',
    "audience" TEXT,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(6) NOT NULL,
    "interval" INTEGER NOT NULL,
    "last_polled_at" TIMESTAMP(6),
    "entries" INTEGER NOT NULL DEFAULT 0,
    "status" VARCHAR NOT NULL DEFAULT 'pending',
    "resource_owner_id" BIGINT,
    "auth_time" TIMESTAMP(6),
    "session_id" VARCHAR,
    "decided_at" TIMESTAMP(6),

    CONSTRAINT "oauth_device_authorizations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_device_authorizations_on_device_code" ON "oauth_device_authorizations"("device_code");

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_device_authorizations_on_user_code" ON "oauth_device_authorizations"("user_code");

-- CreateIndex
CREATE INDEX "index_oauth_device_authorizations_on_expires_at" ON "oauth_device_authorizations"("expires_at");

-- AddForeignKey
ALTER TABLE "oauth_device_authorizations" ADD CONSTRAINT "fk_oauth_device_authorizations_application" FOREIGN KEY ("application_id") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;
