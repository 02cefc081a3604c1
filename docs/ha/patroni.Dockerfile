# UNTESTED (docs/ha/docker-compose.ha.yml): Patroni from Debian bookworm on the official PostgreSQL 15 image.
FROM postgres:15-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends patroni && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 5432 8008
CMD ["patroni", "/etc/patroni.yml"]
