-- Issue 35 item 2: TOTP (RFC 6238) as a second factor. users.mfa is the user's own policy (off, optional,
-- required); user_totp_factors holds one confirmed authenticator per user, its secret encrypted under
-- KEY_ENCRYPTION_KEY when one is set, and the last time step a code was accepted for (every instance refuses a code
-- of that step or an earlier one: replay). user_recovery_codes holds the SHA-256 (hex) of each single-use recovery
-- code, used_at once it was used. Both go with their user.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "users" ADD COLUMN "mfa" VARCHAR NOT NULL DEFAULT 'optional';

-- CreateTable
CREATE TABLE "user_totp_factors" (
    "user_id" BIGINT NOT NULL,
    "secret" VARCHAR NOT NULL,
    "last_used_step" BIGINT,
    "created_at" TIMESTAMP(6) NOT NULL,

    CONSTRAINT "user_totp_factors_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "user_recovery_codes" (
    "id" BIGSERIAL NOT NULL,
    "user_id" BIGINT NOT NULL,
    "code_hash" VARCHAR NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL,
    "used_at" TIMESTAMP(6),

    CONSTRAINT "user_recovery_codes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "index_user_recovery_codes_on_user_id" ON "user_recovery_codes"("user_id");

-- AddForeignKey
ALTER TABLE "user_totp_factors" ADD CONSTRAINT "fk_user_totp_factors_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_recovery_codes" ADD CONSTRAINT "fk_user_recovery_codes_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
