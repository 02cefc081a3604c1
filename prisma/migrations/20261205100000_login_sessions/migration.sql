-- Issue 35 item 5: login sessions as rows, so that a user's sessions can be listed and ended from any instance. The
-- session cookie carries a random key; session_id is its SHA-256 (hex), the id tokens and logout deliveries
-- store. A row is deleted when its session ends, with its user, and by the cleanup once unused for the session
-- lifetime (last_seen_at). Sessions signed in before this migration have no row: they are signed out once.
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- CreateTable
CREATE TABLE "login_sessions" (
    "id" BIGSERIAL NOT NULL,
    "session_id" VARCHAR NOT NULL,
    "user_id" BIGINT NOT NULL,
    "auth_time" TIMESTAMP(6) NOT NULL,
    "amr" TEXT[],
    "acr" VARCHAR,
    "ip" VARCHAR,
    "user_agent" VARCHAR,
    "created_at" TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMP(6) NOT NULL,

    CONSTRAINT "login_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_login_sessions_on_session_id" ON "login_sessions"("session_id");

-- CreateIndex
CREATE INDEX "index_login_sessions_on_user_id" ON "login_sessions"("user_id");

-- CreateIndex
CREATE INDEX "index_login_sessions_on_last_seen_at" ON "login_sessions"("last_seen_at");

-- AddForeignKey
ALTER TABLE "login_sessions" ADD CONSTRAINT "fk_login_sessions_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
