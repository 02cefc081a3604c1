# UNTESTED (docs/ha/docker-compose.ha.yml): PgBouncer 1.18 from Debian bookworm, as scripts/cluster.sh runs it.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends pgbouncer && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 6432
CMD ["pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]
