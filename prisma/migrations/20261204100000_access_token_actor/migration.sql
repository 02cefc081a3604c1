-- Issue 34 item 4, RFC 8693 section 4.1: the actor of a token issued by token exchange (delegation), the act claim as
-- JSON ({"sub", "client_id"}, with the earlier actors nested under "act"), shown by JWT access tokens and
-- introspection. NULL: no one acts for the subject (every other grant, and impersonation).
-- Hand-written to match prisma/schema.prisma; test/integration/schema-matches-migrations.test.ts checks it.

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN "act" TEXT;
