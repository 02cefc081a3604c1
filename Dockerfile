# oauth-service image: `docker build -t oauth-service .`, or `docker compose up` (see docker-compose.yml).
# No `# syntax=` line on purpose: BuildKit would fetch that frontend from a registry, which air-gapped builds cannot
# reach. Without a public registry, NODE_IMAGE names a local base (scripts/container-base.sh; docs/operations.md).
# The entrypoint is the CLI (`oauth-service`, also on PATH: `docker exec CONTAINER oauth-service apps list`); its
# default command is `serve`, so `docker run IMAGE migrate` or `docker run IMAGE apps list --json` run the others.
# Nothing is downloaded at start: the Prisma client is generated and compiled at build time, and the
# migrations in prisma/migrations are applied by the service itself.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: all dependencies, generate the Prisma client (postinstall), compile TypeScript ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
# npm workspaces: the guard's package.json is part of the install (node_modules/@oauth-service/guard links to it).
COPY packages/guard/package.json ./packages/guard/
# Only what the install's postinstall runs (the client's generation, with the schema engine Prisma is told it has not),
# so that a change to another script keeps the install's layer cached.
COPY scripts/generate-client.mjs scripts/schema-engine-unavailable.sh ./scripts/
COPY scripts/lib/generated-client.mjs ./scripts/lib/
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
# public/ is optional in the repository; create it so the final stage can always copy it.
# `npm run build` builds the guard package first (the service imports it), then the service.
RUN mkdir -p public \
 && npm run build \
 && chmod +x dist/main.js

# ---- prod-deps: production dependencies only, exactly as .ci/run installs them (it checks this RUN line) ----
# --ignore-scripts: the root postinstall needs dev dependencies (the client is already compiled into dist).
# Optional dependencies stay: @node-rs/argon2's prebuilt binary is one. The prune removes what only the build
# uses (Prisma CLI and Studio, TypeScript, effect: optional peers of @prisma/client that --omit=dev keeps), the
# query compilers of other databases, native addons built for other systems, source maps and type declarations
# (scripts/prune-production-install.mjs says why each may go): 390 MB -> 58 MB.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/guard/package.json ./packages/guard/
COPY scripts/prune-production-install.mjs ./scripts/
COPY --from=build /app/dist/storage/generated ./dist/storage/generated
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && node scripts/prune-production-install.mjs \
 && node -e 'require("@node-rs/argon2")' \
 && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/packages/guard/package.json ./packages/guard/package.json
COPY --from=build /app/packages/guard/dist ./packages/guard/dist
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma/migrations ./prisma/migrations
COPY --from=build /app/views ./views
COPY --from=build /app/locales ./locales
COPY --from=build /app/public ./public
COPY --from=build /app/config.example.json ./config.example.json
# The application files stay owned by root (read-only to the service); only the embedded-database folder
# (used when no DATABASE_URL is given) is writable. Under NODE_ENV=production the service and the CLI refuse to
# create a database there (a missing DATABASE_URL would otherwise start an empty one): set
# OAUTH_CREATE_EMBEDDED_DATABASE=1 to try the image without PostgreSQL on purpose. The CLI is `oauth-service` on PATH (package.json "bin").
RUN ln -s /app/dist/main.js /usr/local/bin/oauth-service \
 && mkdir -p /app/data && chown node:node /app/data
# The code V8 compiles for the service and the CLI, made once here as the node user (Node.js keys it by user id) and
# then read-only: a new container reuses it instead of compiling every module again (scripts/warm-compile-cache.sh).
# The folder is open to other users as /tmp is, so that `docker run --user` keeps a cache of its own there.
COPY --from=build /app/scripts/warm-compile-cache.sh ./scripts/
RUN mkdir -m 1777 /app/compile-cache \
 && runuser -u node -- sh scripts/warm-compile-cache.sh \
 && chown -R root:root /app/compile-cache \
 && chmod -R a+rX,go-w /app/compile-cache \
 && chmod 1777 /app/compile-cache
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["oauth-service"]
CMD ["serve"]
