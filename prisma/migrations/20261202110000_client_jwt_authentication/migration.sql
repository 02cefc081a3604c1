-- JWT client authentication, RFC 7523 section 2.2 and OpenID Connect Core 9 (issue 34 item 1): a private_key_jwt
-- client's public keys, inline (jwks, a JWK Set as JSON text) or where they are fetched (jwks_uri). The assertions'
-- jti are remembered in oauth_dpop_proofs, whose rows are hashes with an expiry (no change there).
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "jwks" TEXT,
ADD COLUMN "jwks_uri" VARCHAR;
