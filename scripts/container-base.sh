#!/usr/bin/env bash
# Local base images made from Debian's archive only, for machines that cannot pull from a public registry (CI
# here; air-gapped sites): `bash scripts/container-base.sh [node|postgres|nginx|all]` (default all), as root.
#
#   oauth-local/debian:trixie     debootstrap --variant=minbase trixie, imported as an image
#   oauth-local/node:trixie       + the Dockerfile's Node.js (24) and the npm it ships with, from the npm registry
#                                 (scripts/image-node.sh --image-files), in /usr/local as the official image has them,
#                                 and a `node` user (uid 1000) as it has
#   oauth-local/postgres:17       + postgresql-17, an entrypoint that initializes an empty data volume from
#                                 POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB as the official image does
#   oauth-local/nginx:trixie      + nginx, configuration from /etc/nginx/conf.d/*.conf
#
# Then the product's own Dockerfile builds on the Node image: `docker build --network host --build-arg
# NODE_IMAGE=oauth-local/node:trixie -t oauth-service:local .`; examples/compose-local-images/compose.override.yml
# points Compose at all three (docs/operations.md, "Docker without a public registry").
#
# Idempotent: each image carries a label with a hash of what made it (this script, scripts/image-node.sh, the suite,
# the mirror, the CA bundle); an image whose label matches is kept, so a second run takes a second. The host's CA
# bundle is copied into the images (NODE_EXTRA_CA_CERTS) so that npm inside a build trusts what the host trusts: a
# site's own registry mirror or a TLS-inspecting proxy. Builds use the host's network (`--network host`) to reach the
# same mirrors.
#
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian), CA_BUNDLE (default
# /etc/ssl/certs/ca-certificates.crt), DOCKER (default docker), CONTAINER_BASE_REBUILD=1 to rebuild regardless.
set -euo pipefail

SUITE=trixie
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
DOCKER="${DOCKER:-docker}"
PREFIX=oauth-local
LABEL=oauth-local.recipe
# The classic builder: BuildKit would fetch its Dockerfile frontend from a registry for a `# syntax=` line.
export DOCKER_BUILDKIT=0

die() {
  printf 'container-base: %s\n' "$*" >&2
  exit 1
}

command -v "$DOCKER" >/dev/null || die "no docker client; install Debian's docker.io (apt-get install docker.io) and start dockerd"
"$DOCKER" info >/dev/null 2>&1 || die "the Docker engine does not answer; start it (dockerd, or systemctl start docker)"
[ -r "$CA_BUNDLE" ] || die "CA bundle $CA_BUNDLE not readable; set CA_BUNDLE"

SCRIPTS="$(dirname "${BASH_SOURCE[0]}")"
RECIPE_HASH=$( (cat "${BASH_SOURCE[0]}" "$SCRIPTS/image-node.sh" "$CA_BUNDLE"; echo "$SUITE $MIRROR") | sha256sum | cut -c1-16)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# True when IMAGE exists and was made by this recipe.
current() {
  [ "${CONTAINER_BASE_REBUILD:-0}" != 1 ] &&
    [ "$("$DOCKER" image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null)" = "$RECIPE_HASH" ]
}

built() {
  local size
  size=$("$DOCKER" image inspect --format '{{.Size}}' "$1")
  printf 'container-base: %s ready (%s MB)\n' "$1" "$((size / 1000000))"
}

debian_image() {
  local image="$PREFIX/debian:$SUITE" root="$WORK/rootfs"
  if current "$image"; then built "$image"; return; fi
  command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
  [ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
  echo "container-base: debootstrap --variant=minbase $SUITE from $MIRROR"
  debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  # As Docker's official Debian images: no recommends, no docs that nothing reads in a container.
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$root/etc/apt/apt.conf.d/90containers"
  tar -C "$root" -c . | "$DOCKER" import --change "LABEL $LABEL=$RECIPE_HASH" --change 'CMD ["bash"]' - "$image" >/dev/null
  rm -rf "$root"
  built "$image"
}

# build IMAGE: a Dockerfile on stdin, with $WORK/context as the build context.
build() {
  local image=$1
  cat >"$WORK/context/Dockerfile"
  "$DOCKER" build --network host --label "$LABEL=$RECIPE_HASH" -t "$image" "$WORK/context" >"$WORK/build.log" 2>&1 ||
    { tail -30 "$WORK/build.log" >&2; die "building $image failed"; }
  built "$image"
}

fresh_context() {
  rm -rf "$WORK/context"
  mkdir -p "$WORK/context"
}

node_image() {
  local image="$PREFIX/node:$SUITE"
  if current "$image"; then built "$image"; return; fi
  fresh_context
  cp "$CA_BUNDLE" "$WORK/context/host-ca-bundle.crt"
  # Debian's nodejs is 20 (trixie): the image the Dockerfile names runs 24, and a base of another major would leave
  # the image's runtime untried (its module compile cache, V8's flags, Web Crypto's algorithms differ).
  bash "$SCRIPTS/image-node.sh" --image-files "$WORK/context" || die "no Node.js for the Node image (scripts/image-node.sh)"
  build "$image" <<EOF
FROM $PREFIX/debian:$SUITE
COPY host-ca-bundle.crt /usr/local/share/ca-certificates/host-ca-bundle.crt
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN apt-get update \\
 && apt-get install -y ca-certificates libstdc++6 \\
 && update-ca-certificates \\
 && rm -rf /var/lib/apt/lists/* \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node \\
 && useradd --uid 1000 --gid node --create-home --shell /bin/bash node \\
 && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF
}

postgres_image() {
  local image="$PREFIX/postgres:17"
  if current "$image"; then built "$image"; return; fi
  fresh_context
  cat >"$WORK/context/postgres-entrypoint.sh" <<'EOF'
#!/bin/sh
# Initializes an empty data folder (the volume at $PGDATA) as the official postgres image does, then runs the command.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: the data folder $PGDATA is empty and POSTGRES_PASSWORD is not set: set it to initialize the database" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  # Other containers reach it over the network, with the password.
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\"" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "postgres-entrypoint: initialized $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
exec "$@"
EOF
  chmod 0755 "$WORK/context/postgres-entrypoint.sh"
  build "$image" <<EOF
FROM $PREFIX/debian:$SUITE
# No "main" cluster of Debian's own: the entrypoint initializes the volume.
RUN mkdir -p /etc/postgresql-common \\
 && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf \\
 && apt-get update \\
 && apt-get install -y postgresql-17 \\
 && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \\
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \\
 && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/17/bin:\$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
# SIGINT is PostgreSQL's fast shutdown; SIGTERM (smart) would wait for every pooled client to leave.
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint.sh"]
CMD ["postgres", "-c", "listen_addresses=*"]
EOF
}

nginx_image() {
  local image="$PREFIX/nginx:$SUITE"
  if current "$image"; then built "$image"; return; fi
  fresh_context
  build "$image" <<EOF
FROM $PREFIX/debian:$SUITE
RUN apt-get update \\
 && apt-get install -y nginx \\
 && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \\
 && ln -sf /dev/stdout /var/log/nginx/access.log \\
 && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
# SIGQUIT: nginx finishes the requests in flight, then stops.
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
EOF
}

what="${1:-all}"
case "$what" in
  node | postgres | nginx | all) ;;
  *) die "unknown image '$what': say node, postgres, nginx or all" ;;
esac
debian_image
case "$what" in
  node) node_image ;;
  postgres) postgres_image ;;
  nginx) nginx_image ;;
  all)
    node_image
    postgres_image
    nginx_image
    ;;
esac
