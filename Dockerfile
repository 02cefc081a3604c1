# syntax=docker/dockerfile:1
# oauth-service image: `docker build -t oauth-service .`, or `docker compose up` (see docker-compose.yml).
# The entrypoint is the CLI (`oauth-service`); its default command is `serve`, so
# `docker run IMAGE migrate` or `docker run IMAGE apps list --json` run the other commands.
# Nothing is downloaded at start: the Prisma client is generated and compiled at build time, and the
# migrations in prisma/migrations are applied by the service itself.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: all dependencies, generate the Prisma client (postinstall), compile TypeScript ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
# public/ is optional in the repository; create it so the final stage can always copy it.
RUN mkdir -p public \
 && npm run build

# ---- prod-deps: production dependencies only, exactly as .ci/run installs them ----
# --ignore-scripts: the root postinstall needs dev dependencies (the client is already compiled into dist).
# Optional dependencies stay: @node-rs/argon2's prebuilt binary is one.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && node -e 'require("@node-rs/argon2")' \
 && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma/migrations ./prisma/migrations
COPY --from=build /app/views ./views
COPY --from=build /app/public ./public
COPY --from=build /app/config.example.json ./config.example.json
# The application files stay owned by root (read-only to the service); only the embedded-database folder
# (used when no DATABASE_URL is given) is writable.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
