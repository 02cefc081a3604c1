# shellcheck shell=bash
# Background processes of scripts/cluster.sh: each started with its pid in $DIR/pids/NAME.pid and its output in
# $DIR/logs/NAME.log, stopped by that pid only, every wait bounded.

# start_process NAME NETNS|- USER|- COMMAND...: runs COMMAND in namespace NETNS ('-': root) as USER ('-': root).
# ip netns exec and setpriv both exec, so the recorded pid is COMMAND's own.
start_process() {
  local name=$1 netns=$2 user=$3
  shift 3
  local prefix=()
  [ "$netns" = - ] || prefix+=(ip netns exec "$netns")
  [ "$user" = - ] || prefix+=(setpriv --reuid="$user" --regid="$user" --init-groups)
  if is_alive "$name"; then return; fi
  setsid "${prefix[@]}" "$@" >"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/pids/$name.pid"
}

pid_of() { cat "$DIR/pids/$1.pid" 2>/dev/null; }

is_alive() {
  local pid
  pid=$(pid_of "$1") || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# stop_process NAME [SECONDS]: SIGTERM, then SIGKILL after SECONDS (default 15).
stop_process() {
  local name=$1 seconds=${2:-15} pid
  pid=$(pid_of "$name") || return 0
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_until "$seconds" "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/pids/$name.pid"
}

# wait_until SECONDS CONDITION: evaluates CONDITION every 0.2 s until it holds (0) or SECONDS pass (1).
wait_until() {
  local deadline=$((SECONDS + $1))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if eval "$2"; then return 0; fi
    sleep 0.2
  done
  eval "$2"
}
