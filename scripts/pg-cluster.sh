#!/usr/bin/env bash
# A private, throw-away PostgreSQL 15 cluster for tests and CI.
#
#   scripts/pg-cluster.sh start DIR   initialise (if needed) and start a cluster in DIR; prints its URL
#   scripts/pg-cluster.sh stop DIR    stop the cluster in DIR (pg_ctl stop -m fast); a no-op if it is not running
#   scripts/pg-cluster.sh standby DIR PRIMARY_DIR
#                                     make (if needed) and start in DIR a synchronous streaming replica of the
#                                     running cluster in PRIMARY_DIR (pg_basebackup -R; the primary lists it in
#                                     synchronous_standby_names); prints its URL like start
#
# The cluster listens on 127.0.0.1 only, on a free port picked at start, with trust authentication and
# settings fit for tests (fsync off, max_connections 200). It has a role `oauth` (LOGIN CREATEDB) owning a
# database `oauth`. `start` prints postgresql://oauth@127.0.0.1:PORT/oauth as the last line of stdout and writes
# it to DIR/url. Starting a cluster that is already running just prints its URL. Diagnostics go to stderr.
#
# Run as root, the server runs as the `postgres` OS user (initdb refuses root); run as another user, it runs as
# that user. PG_BIN overrides where the server binaries are (default /usr/lib/postgresql/15/bin).
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_USER_OS=postgres

log() { printf 'pg-cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  echo "usage: $0 start DIR | stop DIR | standby DIR PRIMARY_DIR" >&2
  exit 2
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# Run a server-side command as the cluster's owner, from a directory that owner can enter.
as_owner() {
  if is_root; then
    (cd / && runuser -u "$PG_USER_OS" -- "$@")
  else
    (cd / && "$@")
  fi
}

ensure_binaries() {
  if [ -x "$PG_BIN/pg_ctl" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/psql" ] && [ -x "$PG_BIN/pg_basebackup" ]; then
    return
  fi
  is_root || die "PostgreSQL 15 binaries not found in $PG_BIN, and installing them needs root (apt-get install postgresql)"
  log "PostgreSQL binaries not found in $PG_BIN; installing Debian's postgresql package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
  [ -x "$PG_BIN/pg_ctl" ] || die "apt-get installed postgresql but $PG_BIN/pg_ctl is still missing (not version 15?)"
}

port_in_use() {
  # A successful TCP connect means something listens there.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# 20000-32767: below Linux's ephemeral range (32768-60999), from which every listen on port 0 and every outgoing
# connection takes its port, so nothing the tests start can take it between this check and the server's listen; above
# scripts/lib/ports.ts's 10000-17399 and scripts/cluster.sh's 17430-17435.
pick_port() {
  local port _
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 12768))
    if ! port_in_use "$port"; then
      echo "$port"
      return
    fi
  done
  die "no free loopback port found"
}

is_running() {
  [ -f "$DATA/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

running_port() {
  # Line 4 of postmaster.pid is the port the running server listens on.
  sed -n 4p "$DATA/postmaster.pid" 2>/dev/null
}

psql_admin() {
  "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"
}

wait_ready() {
  local _
  for _ in $(seq 1 120); do
    if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -d postgres -U postgres; then
      return 0
    fi
    sleep 0.5
  done
  log "server on port $PORT did not accept connections within 60 s; its log:"
  tail -n 50 "$DIR/postgres.log" >&2 || true
  return 1
}

init_cluster() {
  log "initialising a cluster in $DATA"
  as_owner "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
    { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
  # Only loopback TCP, trusted; no Unix socket (DIR may be too long for a socket path, and nothing needs it).
  as_owner tee "$DATA/pg_hba.conf" >/dev/null <<'EOF'
# TYPE  DATABASE     USER  ADDRESS       METHOD
host    all          all   127.0.0.1/32  trust
host    replication  all   127.0.0.1/32  trust
EOF
  as_owner tee -a "$DATA/postgresql.conf" >/dev/null <<'EOF'

# --- scripts/pg-cluster.sh: a disposable test cluster ---
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
EOF
}

start() {
  ensure_binaries
  mkdir -p "$DIR"
  if is_root; then
    chown "$PG_USER_OS:" "$DIR"
    runuser -u "$PG_USER_OS" -- test -w "$DIR" ||
      die "the $PG_USER_OS user cannot write to $DIR (is a parent folder closed to it?)"
  fi

  if is_running; then
    PORT="$(running_port)"
    [ -n "$PORT" ] || die "a server is running in $DATA but its port is unknown"
    wait_ready
  else
    [ -f "$DATA/PG_VERSION" ] || init_cluster
    local attempt
    for attempt in 1 2 3 4 5; do
      # Keep the previous port (and so the URL) across restarts when it is still free.
      PORT="$(cat "$DIR/port" 2>/dev/null || true)"
      if [ "$attempt" -gt 1 ] || ! [[ "$PORT" =~ ^[0-9]+$ ]] || port_in_use "$PORT"; then
        PORT="$(pick_port)"
      fi
      log "starting PostgreSQL on 127.0.0.1:$PORT (data in $DATA)"
      if as_owner "$PG_BIN/pg_ctl" start -D "$DATA" -l "$DIR/postgres.log" -w -t 60 -o "-p $PORT" >/dev/null; then
        break
      fi
      # Lost a race for the port? Try another; anything else is fatal.
      if [ "$attempt" -lt 5 ] && tail -n 20 "$DIR/postgres.log" | grep -q 'could not bind\|Address already in use'; then
        log "port $PORT was taken meanwhile; trying another"
        continue
      fi
      tail -n 50 "$DIR/postgres.log" >&2 || true
      die "pg_ctl start failed"
    done
    wait_ready
  fi

  psql_admin <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'oauth') THEN
    CREATE ROLE oauth LOGIN CREATEDB;
  END IF;
END
$$;
SELECT 'CREATE DATABASE oauth OWNER oauth'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'oauth') \gexec
SQL

  local url="postgresql://oauth@127.0.0.1:$PORT/oauth"
  echo "$PORT" >"$DIR/port"
  echo "$url" >"$DIR/url"
  echo "$url"
}

standby() {
  ensure_binaries
  local primary_dir primary_port name
  primary_dir="$(cd "$PRIMARY_DIR" && pwd)"
  primary_port="$(sed -n 4p "$primary_dir/data/postmaster.pid" 2>/dev/null || true)"
  [[ "$primary_port" =~ ^[0-9]+$ ]] || die "no running cluster in $primary_dir"
  name="standby_$(basename "$DIR" | tr -c 'a-zA-Z0-9_\n' '_')"
  mkdir -p "$DIR"
  if is_root; then chown "$PG_USER_OS:" "$DIR"; fi
  if ! [ -f "$DATA/PG_VERSION" ]; then
    # Clusters made before replication was allowed get the pg_hba line now.
    if ! grep -q '^host *replication' "$primary_dir/data/pg_hba.conf"; then
      echo 'host    replication  all   127.0.0.1/32  trust' | as_owner tee -a "$primary_dir/data/pg_hba.conf" >/dev/null
      PORT="$primary_port" psql_admin -c 'SELECT pg_reload_conf()' >/dev/null
      sleep 1 # the postmaster rereads pg_hba.conf asynchronously
    fi
    log "copying the cluster on port $primary_port into $DATA (pg_basebackup)"
    as_owner "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$DATA" -R -X stream --checkpoint=fast >&2 ||
      die "pg_basebackup failed"
    echo "primary_conninfo = 'host=127.0.0.1 port=$primary_port user=postgres application_name=$name'" |
      as_owner tee -a "$DATA/postgresql.auto.conf" >/dev/null
  fi
  start >/dev/null
  # Commits on the primary now wait for this replica (with synchronous_commit = remote_apply, until it applied them).
  PORT="$primary_port" psql_admin >/dev/null <<SQL
ALTER SYSTEM SET synchronous_standby_names = '"$name"';
SELECT pg_reload_conf();
SQL
  local _
  for _ in $(seq 1 120); do
    if [ "$(PORT="$primary_port" psql_admin -At -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$name'")" = sync ]; then
      cat "$DIR/url"
      return 0
    fi
    sleep 0.5
  done
  die "the replica in $DIR did not become a synchronous standby of port $primary_port within 60 s"
}

stop() {
  if ! [ -f "$DATA/PG_VERSION" ]; then
    log "no cluster in $DIR; nothing to stop"
    return 0
  fi
  if is_running; then
    as_owner "$PG_BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 >/dev/null
    log "stopped the cluster in $DIR"
  else
    log "the cluster in $DIR is not running"
  fi
}

CMD="${1:-}"
DIR="${2:-}"
if [ "$CMD" = standby ]; then [ $# -eq 3 ] || usage; PRIMARY_DIR="$3"; else [ $# -eq 2 ] || usage; fi
[ -n "$DIR" ] || usage
if [ "$CMD" = stop ] && ! [ -d "$DIR" ]; then
  log "no cluster in $DIR; nothing to stop"
  exit 0
fi
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
DATA="$DIR/data"
PORT=""

case "$CMD" in
  start) start ;;
  stop) stop ;;
  standby) standby ;;
  *) usage ;;
esac
