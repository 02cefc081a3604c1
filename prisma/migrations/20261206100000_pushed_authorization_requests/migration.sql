-- Issue 36 item 1, RFC 9126: pushed authorization requests. One row per POST /oauth/par, found by the SHA-256 of the
-- random part of its request_uri (the plain value exists in the PAR response alone), so any instance can serve it.
-- The parameters are the validated request as JSON. opened_at is set at the first /oauth/authorize that uses it
-- (which gives the sign-in and consent their own window), consumed_at when the authorization completes (a code or
-- token issued, or denied): single use. Deleted with its application; expired rows go with the cleanup's batches.
-- The per-client require_pushed_authorization_requests of RFC 9126 section 6 goes on oauth_applications.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_pushed_authorization_requests" (
    "id" BIGSERIAL NOT NULL,
    "application_id" BIGINT NOT NULL,
    "reference" VARCHAR NOT NULL,
    "parameters" TEXT NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(6) NOT NULL,
    "opened_at" TIMESTAMP(6),
    "consumed_at" TIMESTAMP(6),

    CONSTRAINT "oauth_pushed_authorization_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_oauth_pushed_authorization_requests_on_reference" ON "oauth_pushed_authorization_requests"("reference");

-- CreateIndex
CREATE INDEX "index_oauth_pushed_authorization_requests_on_expires_at" ON "oauth_pushed_authorization_requests"("expires_at");

-- AddForeignKey
ALTER TABLE "oauth_pushed_authorization_requests" ADD CONSTRAINT "fk_oauth_pushed_authorization_requests_application" FOREIGN KEY ("application_id") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "require_pushed_authorization_requests" BOOLEAN NOT NULL DEFAULT false;
