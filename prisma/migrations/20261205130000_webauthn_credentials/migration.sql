-- Issue 35 item 1: passkeys (WebAuthn Level 3). One row per credential a user registered, several per user; the
-- credential id is what the authenticator returns at sign-in (a discoverable credential names its user by this row).
-- sign_count is the last signature counter seen (0: the authenticator keeps none); a regression is refused.
-- Deleted with its user. Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts
-- checks it.

-- CreateTable
CREATE TABLE "webauthn_credentials" (
    "id" BIGSERIAL NOT NULL,
    "credential_id" VARCHAR NOT NULL,
    "user_id" BIGINT NOT NULL,
    "public_key" VARCHAR NOT NULL,
    "sign_count" BIGINT NOT NULL DEFAULT 0,
    "transports" TEXT[],
    "backup_eligible" BOOLEAN NOT NULL DEFAULT false,
    "backed_up" BOOLEAN NOT NULL DEFAULT false,
    "device_type" VARCHAR NOT NULL,
    "aaguid" VARCHAR,
    "name" VARCHAR NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(6),

    CONSTRAINT "webauthn_credentials_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_webauthn_credentials_on_credential_id" ON "webauthn_credentials"("credential_id");

-- CreateIndex
CREATE INDEX "index_webauthn_credentials_on_user_id" ON "webauthn_credentials"("user_id");

-- AddForeignKey
ALTER TABLE "webauthn_credentials" ADD CONSTRAINT "fk_webauthn_credentials_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
