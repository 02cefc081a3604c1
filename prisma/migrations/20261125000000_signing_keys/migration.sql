-- Keys that sign ID tokens (and later JWT access tokens), shared by every instance (issue 16). The private key
-- is stored encrypted (AES-256-GCM under KEY_ENCRYPTION_KEY, never in the database); the public one as its JWK.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_signing_keys" (
    "id" BIGSERIAL NOT NULL,
    "kid" VARCHAR NOT NULL,
    "alg" VARCHAR NOT NULL,
    "public_jwk" TEXT NOT NULL,
    "private_jwk" TEXT NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL,
    "signs_from" TIMESTAMP(6) NOT NULL,
    "rotate_at" TIMESTAMP(6) NOT NULL,
    "retired_at" TIMESTAMP(6),

    CONSTRAINT "oauth_signing_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_signing_keys_on_kid" ON "oauth_signing_keys"("kid");
