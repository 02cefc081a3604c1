-- Issue 37: sign-in through upstream identity providers (config identityProviders).
-- An upstream identity is a row of oauth_federated_subjects (issuer + upstream sub -> the local user), the table the
-- JWT bearer grant's trusted issuers already link through: one person, one link, whichever way they come in.
-- provider_id: the identityProviders id the identity signed in through (NULL: linked by a trusted issuer's assertion).
-- email, claims: what the upstream said at the last sign-in (claims: the mapped claims, JSON text), shown on the account
-- and admin pages. last_signed_in_at: the last sign-in through it.

-- AlterTable
ALTER TABLE "oauth_federated_subjects" ADD COLUMN "provider_id" VARCHAR;
ALTER TABLE "oauth_federated_subjects" ADD COLUMN "email" VARCHAR;
ALTER TABLE "oauth_federated_subjects" ADD COLUMN "claims" TEXT;
ALTER TABLE "oauth_federated_subjects" ADD COLUMN "last_signed_in_at" TIMESTAMP(6);

-- A login session started upstream: which provider, the upstream sid and sub (its back-channel logout names them),
-- and the upstream ID token (the id_token_hint of RP-initiated logout at the upstream).
ALTER TABLE "login_sessions" ADD COLUMN "upstream_provider_id" VARCHAR;
ALTER TABLE "login_sessions" ADD COLUMN "upstream_subject" VARCHAR;
ALTER TABLE "login_sessions" ADD COLUMN "upstream_session_id" VARCHAR;
ALTER TABLE "login_sessions" ADD COLUMN "upstream_id_token" TEXT;

-- CreateIndex
CREATE INDEX "index_login_sessions_on_upstream_session" ON "login_sessions"("upstream_provider_id", "upstream_session_id");
