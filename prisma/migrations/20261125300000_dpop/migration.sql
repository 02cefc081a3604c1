-- DPoP, RFC 9449 (issue 18): the key an access token (and a code) is bound to, the clients that must use it, and
-- the proofs seen recently (replay protection shared by every instance; rows expire with the proof window).
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN "dpop_jkt" VARCHAR;

-- AlterTable
ALTER TABLE "oauth_access_grants" ADD COLUMN "dpop_jkt" VARCHAR;

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "dpop_bound_access_tokens" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "oauth_dpop_proofs" (
    "proof_hash" VARCHAR NOT NULL,
    "expires_at" TIMESTAMP(6) NOT NULL,

    CONSTRAINT "oauth_dpop_proofs_pkey" PRIMARY KEY ("proof_hash")
);

-- CreateIndex
CREATE INDEX "index_oauth_dpop_proofs_on_expires_at" ON "oauth_dpop_proofs"("expires_at");
