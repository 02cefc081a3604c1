# shellcheck shell=bash
# Configuration files written by scripts/cluster.sh into $DIR (regenerated at every `up`).

# patroni_config N: node N's Patroni file. Short TTL and loop so a failover takes seconds in tests (production:
# the defaults, ttl 30 / loop_wait 10). Trust authentication on the private test subnet only.
patroni_config() {
  local n=$1 address="$SUBNET.$((10 + $1))"
  cat <<YAML
scope: $PREFIX
namespace: /$PREFIX/
name: pg$n
log:
  level: INFO
restapi:
  listen: $address:$PATRONI_PORT
  connect_address: $address:$PATRONI_PORT
etcd3:
  host: $SUBNET.1:$ETCD_PORT
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 3
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 200
        wal_log_hints: "on"
        wal_keep_size: 256MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication replicator $SUBNET.0/24 trust
    - host all all $SUBNET.0/24 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: $address,127.0.0.1:5432
  connect_address: $address:5432
  data_dir: $DIR/pg$n/data
  bin_dir: $PG_BIN
  pgpass: $DIR/pg$n/pgpass
  authentication:
    replication:
      username: replicator
      password: replicator
    superuser:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: $DIR/pg$n
tags:
  nofailover: false
  noloadbalance: false
YAML
}

# haproxy_config: writes to the leader (Patroni answers 200 on /primary only there), reads to the synchronous
# standbys (/sync). A server marked down has its sessions cut, so clients reconnect to the new leader at once.
haproxy_config() {
  local n
  cat <<CFG
global
    maxconn 1000
    pidfile $DIR/haproxy.pid
defaults
    mode tcp
    retries 2
    timeout client 30m
    timeout server 30m
    timeout connect 2s
    timeout check 2s
listen stats
    mode http
    bind 127.0.0.1:$HAPROXY_STATS_PORT
    stats enable
    stats uri /
listen writes
    bind 127.0.0.1:$WRITE_PORT
    bind $SUBNET.1:$WRITE_PORT
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
CFG
  for n in 1 2 3; do echo "    server pg$n $SUBNET.$((10 + n)):5432 maxconn 300 check port $PATRONI_PORT"; done
  cat <<CFG
listen reads
    bind 127.0.0.1:$READ_PORT
    bind $SUBNET.1:$READ_PORT
    balance roundrobin
    option httpchk GET /sync
    http-check expect status 200
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
CFG
  for n in 1 2 3; do echo "    server pg$n $SUBNET.$((10 + n)):5432 maxconn 300 check port $PATRONI_PORT"; done
}

# pgbouncer_config: transaction pooling in front of HAProxy's write port. `options` is ignored (dropped) so
# clients that send startup options can connect; settings the service needs per session go on the role.
pgbouncer_config() {
  cat <<INI
[databases]
* = host=127.0.0.1 port=$WRITE_PORT
[pgbouncer]
listen_addr = 127.0.0.1,$SUBNET.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/pgbouncer/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
server_reset_query =
server_check_delay = 0
; After a failed connect to HAProxy (no leader yet) try again within a second, not the default 15 s; a client
; waits at most 10 s for a server connection, then gets an error (query_wait_timeout) instead of hanging.
server_login_retry = 1
query_wait_timeout = 10
ignore_startup_parameters = extra_float_digits,options
admin_users = postgres
logfile = $DIR/logs/pgbouncer-internal.log
pidfile = $DIR/pgbouncer/pgbouncer.pid
INI
}
