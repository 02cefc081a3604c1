-- OpenID Connect Back-Channel Logout 1.0 (issue 31 item 5): each application's back-channel logout URI and whether
-- its logout tokens must carry a sid (section 2.2), and the logout tokens still to deliver, retried with backoff
-- by any instance until delivered or given up. Existing applications get none: nothing is sent to them.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_applications" ADD COLUMN "backchannel_logout_uri" VARCHAR,
ADD COLUMN "backchannel_logout_session_required" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "oauth_logout_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "application_id" BIGINT NOT NULL,
    "subject" VARCHAR,
    "session_id" VARCHAR,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(6) NOT NULL,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMP(6),
    "failed_at" TIMESTAMP(6),
    "last_error" VARCHAR,

    CONSTRAINT "oauth_logout_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "index_oauth_logout_deliveries_on_next_attempt_at" ON "oauth_logout_deliveries"("next_attempt_at");

-- CreateIndex
CREATE INDEX "index_oauth_logout_deliveries_on_created_at" ON "oauth_logout_deliveries"("created_at");

-- CreateIndex
CREATE INDEX "index_oauth_logout_deliveries_on_application_id" ON "oauth_logout_deliveries"("application_id");

-- AddForeignKey
ALTER TABLE "oauth_logout_deliveries" ADD CONSTRAINT "fk_oauth_logout_deliveries_application" FOREIGN KEY ("application_id") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;
