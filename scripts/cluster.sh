#!/usr/bin/env bash
# A highly available PostgreSQL topology on one machine, for the fault tests (issue 20) and for trying it out.
#
#   scripts/cluster.sh install             install the Debian packages that are missing (patroni, etcd-server, haproxy, pgbouncer)
#   scripts/cluster.sh up [DIR]            install what is missing, start everything, wait for a leader and a sync standby
#   scripts/cluster.sh down [DIR]          stop everything it started (by pid), delete the namespaces and DIR
#   scripts/cluster.sh status [DIR]        patronictl list, then KEY=VALUE lines (see print_endpoints)
#   scripts/cluster.sh partition N [DIR]   cut PostgreSQL node N (1-3) off the network; `heal N` reconnects it
#   scripts/cluster.sh kill N [DIR]        SIGKILL node N's Patroni and PostgreSQL (a crashed host)
#   scripts/cluster.sh start-node N [DIR]  start node N's Patroni again (after kill)
#   scripts/cluster.sh start-service N DIR -- COMMAND...
#                                          run COMMAND (a service instance) in namespace oha-svcN (10.77.0.2N), with
#                                          this environment; it reaches HAProxy and PgBouncer at 10.77.0.1 (SVC_* URLs)
#   scripts/cluster.sh stop-service N [DIR]   SIGTERM it (SIGKILL after 15 s); partition/heal take svcN too
#
#                       root namespace                                      bridge oha-br0 10.77.0.1/24
#   service ──► PgBouncer :17432 (transaction pooling) ──┐
#   service ──────────────────────────────► HAProxy :17430 writes ── GET /primary ──┐
#   service (databaseReadUrl) ────────────► HAProxy :17431 reads  ── GET /sync ─────┤ health checks on :8008
#                          etcd :17434 (one member, DCS) ◄──────────────────────────┤
#        ┌──────────────────────────────┬───────────────────────────────┬───────────┘
#   netns oha-pg1 10.77.0.11      netns oha-pg2 10.77.0.12        netns oha-pg3 10.77.0.13
#   Patroni :8008 + PG15 :5432    Patroni :8008 + PG15 :5432      Patroni :8008 + PG15 :5432
#   netns oha-svc1..3 10.77.0.21-23: service instances (start-service), on the same bridge
#   (synchronous_mode: the leader commits only once a synchronous standby has the WAL)
#
# Each PostgreSQL node runs in its own network namespace, joined to the bridge by a veth pair, so a node can be
# partitioned, not only killed. PostgreSQL and PgBouncer run as the `postgres` OS user. The database `oauth`,
# owned by role `oauth`, is created on the first leader. Trust authentication: a test subnet, never production
# (docs/operations.md, "High availability"). Ports: env OHA_PORT_BASE (default 17430) and the five after it: below
# Linux's ephemeral range (32768-60999), where any test server listening on port 0 could take one first, and below
# scripts/pg-cluster.sh's random ports (20000-59999).
# Names: env OHA_PREFIX (default oha: namespaces oha-pgN and oha-svcN, bridge oha-br0, DIR /tmp/oha-cluster) and
# OHA_SUBNET (default 10.77.0, the /24), so a second cluster can run beside the first one on other names.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/cluster/network.sh
. "$HERE/lib/cluster/network.sh"
# shellcheck source=lib/cluster/processes.sh
. "$HERE/lib/cluster/processes.sh"
# shellcheck source=lib/cluster/configs.sh
. "$HERE/lib/cluster/configs.sh"

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
# Names and addresses, overridable so two clusters can run side by side (e.g. CI's and a developer's):
# OHA_PREFIX names the namespaces (PREFIX-pgN, PREFIX-svcN), the bridge (PREFIX-br0) and the default DIR.
PREFIX="${OHA_PREFIX:-oha}"
SUBNET="${OHA_SUBNET:-10.77.0}"
BRIDGE="$PREFIX-br0"
PATRONI_PORT=8008
PORT_BASE="${OHA_PORT_BASE:-17430}"
WRITE_PORT=$PORT_BASE
READ_PORT=$((PORT_BASE + 1))
PGBOUNCER_PORT=$((PORT_BASE + 2))
HAPROXY_STATS_PORT=$((PORT_BASE + 3))
ETCD_PORT=$((PORT_BASE + 4))
ETCD_PEER_PORT=$((PORT_BASE + 5))
NODES="1 2 3"
SERVICES="1 2 3"

log() { printf 'cluster: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

usage() {
  echo "usage: $0 install | up|down|status [DIR] | partition|heal|kill|start-node N [DIR] | start-service N DIR -- COMMAND... | stop-service N [DIR]" >&2
  exit 2
}

install_packages() {
  local missing=()
  command -v patroni >/dev/null || missing+=(patroni)
  command -v etcd >/dev/null || missing+=(etcd-server)
  command -v haproxy >/dev/null || missing+=(haproxy)
  command -v pgbouncer >/dev/null || missing+=(pgbouncer)
  [ -x "$PG_BIN/postgres" ] || missing+=(postgresql-15)
  [ ${#missing[@]} -eq 0 ] && return
  log "installing ${missing[*]}"
  # Debian starts a package's daemon on install unless policy-rc.d says no: our own instances use those ports.
  local policy=/usr/sbin/policy-rc.d created=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  [ "$created" = 1 ] && rm -f "$policy"
  return 0
}

check_root() { [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"; }

prepare_dir() {
  mkdir -p "$DIR/pids" "$DIR/logs" "$DIR/pgbouncer"
  # etcd's data on a memory file system when there is one. Each etcd write waits for its fsync; with the disk busy (CI
  # runs the browser tests beside the fault tests) Patroni's write of the initialize key once outlasted its request
  # timeout: the key was written, the node that wrote it took it as lost, and all three waited "for leader to
  # bootstrap" for ever. The DCS of a test topology needs no durability.
  # A link whose folder went with a reboot gets an empty one: etcd starts afresh, Patroni's nodes keep their data.
  if [ -L "$DIR/etcd" ]; then
    mkdir -p "$(readlink "$DIR/etcd")" && chmod 700 "$(readlink "$DIR/etcd")"
  elif [ ! -e "$DIR/etcd" ]; then
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then ln -s "$(mktemp -d "/dev/shm/$PREFIX-etcd.XXXXXX")" "$DIR/etcd"; else mkdir -p "$DIR/etcd"; fi
  fi
  for n in $NODES; do
    mkdir -p "$DIR/pg$n"
    patroni_config "$n" >"$DIR/pg$n/patroni.yml"
    chown -R postgres:postgres "$DIR/pg$n"
    chmod 700 "$DIR/pg$n"
  done
  haproxy_config >"$DIR/haproxy.cfg"
  pgbouncer_config >"$DIR/pgbouncer/pgbouncer.ini"
  printf '"postgres" ""\n"oauth" ""\n' >"$DIR/pgbouncer/userlist.txt"
  chown -R postgres:postgres "$DIR/pgbouncer" "$DIR/logs"
  chmod 755 "$DIR"
}

start_etcd() {
  start_process etcd - - etcd --name "$PREFIX" --data-dir "$DIR/etcd" \
    --listen-client-urls "http://$SUBNET.1:$ETCD_PORT,http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://$SUBNET.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "$PREFIX=http://127.0.0.1:$ETCD_PEER_PORT"
  wait_until 20 "curl -sf http://127.0.0.1:$ETCD_PORT/health >/dev/null" || die "etcd did not become healthy ($DIR/logs/etcd.log)"
}

start_node() {
  local n=$1
  start_process "pg$n" "$PREFIX-pg$n" postgres patroni "$DIR/pg$n/patroni.yml"
}

# kill_node N: SIGKILL Patroni, then the postmaster (its pid is line 1 of postmaster.pid): the host has crashed.
kill_node() {
  local n=$1 pid
  pid=$(pid_of "pg$n") && kill -KILL "$pid" 2>/dev/null || true
  pid=$(head -1 "$DIR/pg$n/data/postmaster.pid" 2>/dev/null) && [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  rm -f "$DIR/pids/pg$n.pid"
}

# stop_node N: Patroni stops its PostgreSQL on SIGTERM; a postmaster left behind is stopped by its own pid.
stop_node() {
  local n=$1 pid
  stop_process "pg$n" 30
  pid=$(head -1 "$DIR/pg$n/data/postmaster.pid" 2>/dev/null) || return 0
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    wait_until 15 "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid" 2>/dev/null || true
  fi
}

patroni_get() { curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$SUBNET.1$1" 2>/dev/null; }
node_answers() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$SUBNET.$((10 + $1)):$PATRONI_PORT$2")" = 200 ]; }

leader_node() {
  local n
  for n in $NODES; do if node_answers "$n" /primary; then echo "$n" && return 0; fi; done
  return 1
}

sync_standby_ready() {
  local n
  for n in $NODES; do if node_answers "$n" /sync; then return 0; fi; done
  return 1
}

psql_write() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$WRITE_PORT" -U postgres -d postgres "$@"; }

# show_logs: what each engine said first and last (Patroni's loop lines left out), for a bring-up that failed: a CI
# machine's temporary folder is gone by the time anyone reads its verdict.
show_logs() {
  local file said
  timeout 10 patronictl -c "$DIR/pg1/patroni.yml" list >&2 2>&1 || log "patronictl list failed"
  for file in "$DIR"/logs/pg*.log "$DIR"/logs/etcd.log; do
    [ -f "$file" ] || continue
    said=$(grep -v -e 'no action' -e '^ ' -e 'Traceback' "$file" | cut -c1-300 || true)
    # The first lines say who raced for the initialize key and how its bootstrap went; the last ones where it stands.
    log "first and last lines of $file:"
    head -n 12 <<<"$said" >&2
    log "..."
    tail -n 12 <<<"$said" >&2
  done
}

# ports_free: none of the cluster's ports answers on this machine before it starts (an etcd left running by an
# earlier cluster would pass the health check below with another cluster's keys, and no leader would ever come).
ports_free() {
  local port
  for port in $WRITE_PORT $READ_PORT $PGBOUNCER_PORT $HAPROXY_STATS_PORT $ETCD_PORT $ETCD_PEER_PORT; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "port $port on 127.0.0.1 is taken: a cluster left running? (scripts/cluster.sh down DIR, or another OHA_PORT_BASE)"
    fi
  done
}

create_service_database() {
  psql_write -tAc "SELECT 1 FROM pg_roles WHERE rolname = 'oauth'" | grep -q 1 || psql_write -c 'CREATE ROLE oauth LOGIN CREATEDB'
  psql_write -tAc "SELECT 1 FROM pg_database WHERE datname = 'oauth'" | grep -q 1 || psql_write -c 'CREATE DATABASE oauth OWNER oauth'
  # databaseReadUrl needs remote_apply on the primary's sessions; PgBouncer drops the startup option that sets it.
  psql_write -c 'ALTER ROLE oauth SET synchronous_commit = remote_apply'
}

up() {
  check_root
  install_packages
  prepare_dir
  is_alive etcd || ports_free
  bridge_up
  for n in $NODES; do host_up "$PREFIX-pg$n" "$SUBNET.$((10 + n))"; done
  for n in $SERVICES; do host_up "$PREFIX-svc$n" "$SUBNET.$((20 + n))"; done
  start_etcd
  for n in $NODES; do start_node "$n"; done
  # Bootstrap is initdb, a checkpoint and two base backups: seconds when idle, much longer on a busy CI machine.
  wait_until 150 "leader_node >/dev/null" || {
    show_logs
    die "no Patroni leader after 150 s ($DIR/logs/pg*.log)"
  }
  start_process haproxy - - haproxy -db -f "$DIR/haproxy.cfg"
  wait_until 20 "psql_write -tAc 'SELECT 1' >/dev/null 2>&1" || die "HAProxy's write port does not reach the leader ($DIR/logs/haproxy.log)"
  # HAProxy may still cut the first sessions while its checks settle: retry for a while, then show the error.
  wait_until 20 "create_service_database 2>/dev/null" || create_service_database
  start_process pgbouncer - postgres pgbouncer "$DIR/pgbouncer/pgbouncer.ini"
  wait_until 15 "(exec 3<>/dev/tcp/127.0.0.1/$PGBOUNCER_PORT) 2>/dev/null" || die "PgBouncer does not listen ($DIR/logs/pgbouncer.log)"
  wait_until 90 sync_standby_ready || {
    show_logs
    die "no synchronous standby after 90 s"
  }
  log "up: leader pg$(leader_node)"
  print_endpoints
}

# print_endpoints: what a test parses (test/helpers/ha-cluster.ts), one KEY=VALUE a line.
print_endpoints() {
  local n role
  echo "DIR=$DIR"
  echo "WRITE_URL=postgresql://oauth@127.0.0.1:$WRITE_PORT/oauth"
  echo "READ_URL=postgresql://oauth@127.0.0.1:$READ_PORT/oauth"
  echo "PGBOUNCER_URL=postgresql://oauth@127.0.0.1:$PGBOUNCER_PORT/oauth"
  echo "ADMIN_URL=postgresql://postgres@127.0.0.1:$WRITE_PORT/postgres"
  echo "HAPROXY_STATS_URL=http://127.0.0.1:$HAPROXY_STATS_PORT/"
  echo "ETCD_URL=http://127.0.0.1:$ETCD_PORT"
  echo "BRIDGE_ADDRESS=$SUBNET.1"
  # The same endpoints as seen from the service namespaces (start-service).
  echo "SVC_WRITE_URL=postgresql://oauth@$SUBNET.1:$WRITE_PORT/oauth"
  echo "SVC_READ_URL=postgresql://oauth@$SUBNET.1:$READ_PORT/oauth"
  echo "SVC_PGBOUNCER_URL=postgresql://oauth@$SUBNET.1:$PGBOUNCER_PORT/oauth"
  for n in $NODES; do
    role=unreachable
    if node_answers "$n" /primary; then role=leader; elif node_answers "$n" /sync; then role=sync_standby; elif node_answers "$n" /replica; then role=replica; fi
    echo "NODE$n=pg$n netns=$PREFIX-pg$n address=$SUBNET.$((10 + n)) role=$role pid=$(pid_of "pg$n" || true)"
  done
  echo "LEADER=$(leader_node | sed 's/^/pg/' || true)"
  for n in $SERVICES; do
    echo "SERVICE$n=svc$n netns=$PREFIX-svc$n address=$SUBNET.$((20 + n)) running=$(is_alive "svc$n" && echo yes || echo no) pid=$(pid_of "svc$n" || true)"
  done
}

status() {
  [ -f "$DIR/pg1/patroni.yml" ] || die "no cluster in $DIR"
  timeout 10 patronictl -c "$DIR/pg1/patroni.yml" list >&2 || log "patronictl list failed"
  print_endpoints
}

down() {
  check_root
  for n in $SERVICES; do stop_process "svc$n" 15; done
  stop_process pgbouncer 10
  stop_process haproxy 10
  for n in $NODES; do stop_node "$n" & done
  wait
  stop_process etcd 10
  for n in $NODES; do host_down "$PREFIX-pg$n"; done
  for n in $SERVICES; do host_down "$PREFIX-svc$n"; done
  bridge_down
  if [ -L "$DIR/etcd" ]; then
    case "$(readlink "$DIR/etcd")" in /dev/shm/*) rm -rf "$(readlink "$DIR/etcd")" ;; esac
  fi
  case "$DIR" in /tmp/*) rm -rf "$DIR" ;; *) log "left $DIR in place (not under /tmp)" ;; esac
}

node_arg() { case "${1:-}" in 1 | 2 | 3) ;; *) usage ;; esac; }

command=${1:-}
case "$command" in
  install) install_packages ;;
  up | down | status)
    DIR=$(realpath -m "${2:-/tmp/$PREFIX-cluster}")
    "$command"
    ;;
  partition | heal | kill | start-node)
    # N is a PostgreSQL node (1-3), or svcN for a service namespace (partition and heal only).
    target=${2:-}
    case "$command:$target" in partition:svc[123] | heal:svc[123]) ;; *) node_arg "$target" ;; esac
    DIR=$(realpath -m "${3:-/tmp/$PREFIX-cluster}")
    case "$target" in svc*) host="$PREFIX-$target" ;; *) host="$PREFIX-pg$target" ;; esac
    case "$command" in
      partition) partition_host "$host" ;;
      heal) heal_host "$host" ;;
      kill) kill_node "$target" ;;
      start-node) start_node "$target" ;;
    esac
    ;;
  start-service)
    node_arg "${2:-}"
    [ "${4:-}" = -- ] && [ $# -ge 5 ] || usage
    DIR=$(realpath -m "$3")
    n=$2
    shift 4
    start_process "svc$n" "$PREFIX-svc$n" - "$@"
    echo "SERVICE${n}_PID=$(pid_of "svc$n")"
    ;;
  stop-service)
    node_arg "${2:-}"
    DIR=$(realpath -m "${3:-/tmp/$PREFIX-cluster}")
    stop_process "svc$2" 15
    ;;
  *) usage ;;
esac
