-- OpenID Connect Registration 1.0 section 2: the algorithms a client registered for what it signs. Request objects and
-- client assertions signed with another are refused (the section's MUST); NULL: any the server offers.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "request_object_signing_alg" VARCHAR;
ALTER TABLE "oauth_applications" ADD COLUMN "token_endpoint_auth_signing_alg" VARCHAR;
