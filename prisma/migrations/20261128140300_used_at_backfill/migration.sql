-- Issue 29 item 5: a self-registered client never used within registration.unusedClientLifetimeSeconds expires, and
-- the lookups of the authorization and token endpoints decide that from used_at alone (no query per request). A
-- client registered before used_at was tracked (20261125500000) may hold tokens with used_at still NULL: it is in
-- use, so used_at becomes the creation time of its first token. Data only; the schema does not change.

UPDATE "oauth_applications" AS a
SET "used_at" = (SELECT min(t."created_at") FROM "oauth_access_tokens" t WHERE t."application_id" = a."id")
WHERE a."used_at" IS NULL
  AND a."registered_by" <> 'admin'
  AND EXISTS (SELECT 1 FROM "oauth_access_tokens" t WHERE t."application_id" = a."id");
