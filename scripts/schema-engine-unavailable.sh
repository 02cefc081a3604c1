#!/bin/sh
# Stand-in for Prisma's native schema engine, which air-gapped installs cannot download (SPEC 5b).
# `prisma generate` only checks that the engine exists; migrations are plain SQL applied by the service
# itself (`oauth-service migrate`), so nothing here ever needs the real engine.
echo "oauth-service: Prisma's schema engine is not installed (it is not needed)." >&2
echo "Apply migrations with 'npm run cli -- migrate'; generate the client with 'npm run generate'." >&2
exit 1
