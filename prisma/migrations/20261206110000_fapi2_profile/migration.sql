-- Issue 36 items 2, 3 and 5: per-client settings of the FAPI 2.0 work.
-- require_signed_request_object (RFC 9101 section 10.5): its authorization requests must be signed request objects.
-- authorization_signed_response_alg (JARM section 3): the algorithm of its JWT-secured responses; NULL is RS256.
-- profile: 'none', or 'fapi2' (FAPI 2.0 Security Profile section 5, enforced by src/oauth/clients/fapi2-profile.ts).

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "require_signed_request_object" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "oauth_applications" ADD COLUMN "authorization_signed_response_alg" VARCHAR;
ALTER TABLE "oauth_applications" ADD COLUMN "profile" VARCHAR NOT NULL DEFAULT 'none';
