-- A login session's id of OpenID Connect apart from its cookie's key: the key changes at every sign-in (a stolen
-- cookie does not outlive a step-up), while the session a relying party knows (its sid, the tokens issued in it, the
-- logout tokens at its end) goes on while the same user signs in again in the browser. Until now the two were one
-- value; every session's id stays what it was.

-- AlterTable
ALTER TABLE "login_sessions" ADD COLUMN "openid_session_id" VARCHAR;
UPDATE "login_sessions" SET "openid_session_id" = "session_id";
ALTER TABLE "login_sessions" ALTER COLUMN "openid_session_id" SET NOT NULL;
