-- A user's revocation of an application (and an admin's "Revoke all tokens", disable) denies the device
-- authorizations that user approved and no device has polled yet, in the same transaction: found by their approver.

-- CreateIndex
CREATE INDEX "index_oauth_device_authorizations_on_resource_owner_id" ON "oauth_device_authorizations"("resource_owner_id");
