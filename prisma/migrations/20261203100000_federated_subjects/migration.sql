-- Issue 34 item 3, RFC 7523 section 2.1: which user here a trusted issuer's subject is. One row per (issuer, subject)
-- seen in an accepted JWT bearer assertion, written when the subject first finds its user (by a verified email or
-- created just in time); every later assertion of that subject finds the user by it. Deleted with the user.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_federated_subjects" (
    "issuer" VARCHAR NOT NULL,
    "subject" VARCHAR NOT NULL,
    "user_id" BIGINT NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_federated_subjects_pkey" PRIMARY KEY ("issuer","subject")
);

-- CreateIndex
CREATE INDEX "index_oauth_federated_subjects_on_user_id" ON "oauth_federated_subjects"("user_id");

-- AddForeignKey
ALTER TABLE "oauth_federated_subjects" ADD CONSTRAINT "fk_oauth_federated_subjects_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
