-- Issue 32 item 7: the audit trail. One row per security event (who, what, which object, from which address, when,
-- outcome; never a secret), written in the transaction of the change where there is one and deleted by the cleanup
-- after audit.retentionDays (walking the occurred_at index). The other indexes serve the admin page's and
-- `audit list`'s filters, newest first.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "oauth_audit_events" (
    "id" BIGSERIAL NOT NULL,
    "occurred_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "type" VARCHAR NOT NULL,
    "outcome" VARCHAR NOT NULL,
    "actor" VARCHAR NOT NULL,
    "subject_type" VARCHAR,
    "subject_id" VARCHAR,
    "client_id" VARCHAR,
    "user_id" BIGINT,
    "ip" VARCHAR,
    "details" VARCHAR,

    CONSTRAINT "oauth_audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "index_oauth_audit_events_on_occurred_at" ON "oauth_audit_events"("occurred_at");

-- CreateIndex
CREATE INDEX "index_oauth_audit_events_on_user_id_and_occurred_at" ON "oauth_audit_events"("user_id", "occurred_at");

-- CreateIndex
CREATE INDEX "index_oauth_audit_events_on_client_id_and_occurred_at" ON "oauth_audit_events"("client_id", "occurred_at");

-- CreateIndex
CREATE INDEX "index_oauth_audit_events_on_type_and_occurred_at" ON "oauth_audit_events"("type", "occurred_at");
