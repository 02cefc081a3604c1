-- Self-registered clients hold only what the operator allowed (issue 29): the grant types and scopes an initial
-- access token allows beyond registration.allowedGrantTypes / allowedScopes, and, on the application registered
-- with it, what that token allowed. Empty for every existing row: nothing beyond the policy.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "operator_grant_types" VARCHAR NOT NULL DEFAULT '',
ADD COLUMN "operator_scopes" VARCHAR NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "oauth_registration_tokens" ADD COLUMN "grant_types" VARCHAR NOT NULL DEFAULT '',
ADD COLUMN "scopes" VARCHAR NOT NULL DEFAULT '';
