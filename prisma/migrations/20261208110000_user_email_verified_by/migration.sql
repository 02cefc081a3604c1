-- Where a user's email verification came from (against account pre-hijacking by an upstream): the identityProviders id
-- whose sign-in wrote the email or email_verified (a user made just in time, or the claims refreshed at a sign-in), or
-- NULL when it was written here (the admin, the CLI, `apply`). Linking by verified email (linkByVerifiedEmail, the JWT
-- bearer grant's userMatch "email") counts a user only when the address was verified here or by the provider linking,
-- so that one upstream's word never decides another's links. Every existing row is NULL: as before.

-- AlterTable
ALTER TABLE "users" ADD COLUMN "email_verified_by" VARCHAR;
