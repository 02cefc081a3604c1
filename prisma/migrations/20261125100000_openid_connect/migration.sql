-- OpenID Connect (issue 16): the users' standard claims, a stable subject and a disabled flag; the nonce and
-- sign-in of a code, kept with the tokens it yields (a refresh's ID token repeats auth_time and sid); and the
-- applications' logout URIs and signing choices. Existing rows keep working: every new column is nullable or
-- has a default, and each existing user gets a random subject.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "users"
    ADD COLUMN "subject" VARCHAR NOT NULL DEFAULT (gen_random_uuid())::text,
    ADD COLUMN "disabled_at" TIMESTAMP(6),
    ADD COLUMN "name" VARCHAR,
    ADD COLUMN "given_name" VARCHAR,
    ADD COLUMN "family_name" VARCHAR,
    ADD COLUMN "middle_name" VARCHAR,
    ADD COLUMN "nickname" VARCHAR,
    ADD COLUMN "preferred_username" VARCHAR,
    ADD COLUMN "profile" VARCHAR,
    ADD COLUMN "picture" VARCHAR,
    ADD COLUMN "website" VARCHAR,
    ADD COLUMN "email" VARCHAR,
    ADD COLUMN "email_verified" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "gender" VARCHAR,
    ADD COLUMN "birthdate" VARCHAR,
    ADD COLUMN "zoneinfo" VARCHAR,
    ADD COLUMN "locale" VARCHAR,
    ADD COLUMN "phone_number" VARCHAR,
    ADD COLUMN "phone_number_verified" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "address" TEXT,
    ADD COLUMN "profile_updated_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateIndex
CREATE UNIQUE INDEX "index_users_on_subject" ON "users"("subject");

-- AlterTable
ALTER TABLE "oauth_access_grants"
    ADD COLUMN "nonce" TEXT,
    ADD COLUMN "auth_time" TIMESTAMP(6),
    ADD COLUMN "session_id" VARCHAR;

-- AlterTable
ALTER TABLE "oauth_access_tokens"
    ADD COLUMN "auth_time" TIMESTAMP(6),
    ADD COLUMN "session_id" VARCHAR;

-- AlterTable
ALTER TABLE "oauth_applications"
    ADD COLUMN "post_logout_redirect_uri" TEXT NOT NULL DEFAULT '',
    ADD COLUMN "id_token_signed_response_alg" VARCHAR,
    ADD COLUMN "userinfo_signed_response_alg" VARCHAR;
