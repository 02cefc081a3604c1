# shellcheck shell=bash
# Network namespaces for scripts/cluster.sh: one bridge in the root namespace and one namespace per host, each
# joined to the bridge by a veth pair. Cutting a host off is taking its root-side veth down (partition_host).

# bridge_up: the bridge and its address (the root namespace's side of the test subnet).
bridge_up() {
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$SUBNET.1/24" dev "$BRIDGE"
  fi
  ip link set "$BRIDGE" up
}

# host_up NAME ADDRESS: namespace NAME with eth0 = ADDRESS/24, default route via the bridge.
host_up() {
  local name=$1 address=$2 veth="${1}-h"
  ip netns list | grep -qw "^$name" || ip netns add "$name"
  if ! ip link show "$veth" >/dev/null 2>&1; then
    ip link add "$veth" type veth peer name eth0 netns "$name"
    ip link set "$veth" master "$BRIDGE"
  fi
  ip link set "$veth" up
  ip netns exec "$name" ip link set lo up
  ip netns exec "$name" ip addr replace "$address/24" dev eth0
  ip netns exec "$name" ip link set eth0 up
  ip netns exec "$name" ip route replace default via "$SUBNET.1"
}

# partition_host NAME / heal_host NAME: cut NAME off the network (its processes keep running), and back.
partition_host() { ip link set "${1}-h" down; }
heal_host() { ip link set "${1}-h" up; }

host_down() {
  local name=$1
  ip link del "${name}-h" 2>/dev/null || true
  ip netns del "$name" 2>/dev/null || true
}

bridge_down() { ip link del "$BRIDGE" 2>/dev/null || true; }
