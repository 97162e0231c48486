#!/usr/bin/env bash
# The inbound path into a network namespace, without Slipway: what a cell's way in costs on this machine.
# The plain Node http app (fixtures/node-plain) runs three times: bare on the host's loopback; in a network namespace
# that pasta connects (as a cell's is, a loopback port forwarded in); and in a network namespace joined to the host
# by a veth pair (a /30 of 10.204.0.0/16, nftables DNAT from its address to the app's loopback, route_localnet).
# nginx (1 worker, keep-alive upstream) stands in front of each; wrk runs straight to each app and through nginx,
# the rows interleaved, ROUNDS rounds of DURATION s. Prints req/s and p99, and each path as a ratio of the bare one.
# Needs root, wrk, nginx, node, pasta, nft, ip.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
DURATION="${DURATION:-10}"
ROUNDS="${ROUNDS:-2}"
PORT="${BENCH_PORT:-18700}"
for tool in wrk nginx node pasta nft ip; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces and a veth pair)" >&2; exit 1; }

work="$(mktemp -d /tmp/slipway-inbound.XXXXXX)"
ns="slwbench$$"; pns="slwbenchp$$"; host_if="slwbh$$"; cell_if="slwbc$$"
pids=()
cleanup() {
  disown -a 2>/dev/null || true
  for p in "${pids[@]}"; do pkill -9 -P "$p" 2>/dev/null || true; kill -9 "$p" 2>/dev/null || true; done
  ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  ip link del "$host_if" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  [ -f "$work/pasta.pid" ] && kill -9 "$(cat "$work/pasta.pid")" 2>/dev/null || true
  ip netns pids "$pns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  ip netns del "$pns" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
app="$here/src/test/resources/fixtures/node-plain/server.js"
bare=$PORT; pasta_port=$((PORT + 1)); veth_port=$((PORT + 2))

wait_port() { # host port
  for _ in $(seq 1 100); do curl -sf -m 2 "http://$1/" >/dev/null && return 0; sleep 0.1; done
  echo "bench: nothing answers on $1" >&2; exit 1
}

PORT=$bare node "$app" > /dev/null & pids+=("$!")
# pasta: a namespace that pasta connects, the host's 127.0.0.1:port forwarded in (as a cell's)
ip netns add "$pns"
pasta --runas 0 --quiet --pid "$work/pasta.pid" --netns "/run/netns/$pns" --config-net --no-map-gw \
  -t "127.0.0.1/$pasta_port:$pasta_port" -u none -T none -U none
ip netns exec "$pns" env PORT="$pasta_port" node "$app" > /dev/null & pids+=("$!")
# veth: the namespace at 10.204.0.2, the host at 10.204.0.1
ip netns add "$ns"
ip link add "$host_if" type veth peer name "$cell_if"
ip link set "$cell_if" netns "$ns"
ip addr add 10.204.0.1/30 dev "$host_if"; ip link set "$host_if" up
ip netns exec "$ns" ip addr add 10.204.0.2/30 dev "$cell_if"
ip netns exec "$ns" ip link set "$cell_if" up; ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" sysctl -qw "net.ipv4.conf.$cell_if.route_localnet=1" net.ipv4.conf.all.route_localnet=1
ip netns exec "$ns" nft -f - <<EOF
table ip bench { chain pre { type nat hook prerouting priority dstnat; tcp dport $veth_port dnat to 127.0.0.1:$veth_port; }; }
EOF
ip netns exec "$ns" env PORT="$veth_port" node "$app" > /dev/null & pids+=("$!")
wait_port "127.0.0.1:$bare"; wait_port "127.0.0.1:$pasta_port"; wait_port "10.204.0.2:$veth_port"

ngx="$work/nginx"; mkdir -p "$ngx/logs"; n0=$((PORT + 10))
{
  printf 'worker_processes 1;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/logs/error.log warn;\nevents { worker_connections 4096; }\n' "$ngx" "$ngx"
  printf 'http {\n  access_log off;\n'
  i=0
  for up in "127.0.0.1:$bare" "127.0.0.1:$pasta_port" "10.204.0.2:$veth_port"; do
    printf '  upstream u%d { server %s; keepalive 64; }\n' "$i" "$up"
    printf '  server { listen 127.0.0.1:%d; location / { proxy_pass http://u%d; proxy_http_version 1.1; proxy_set_header Connection ""; } }\n' $((n0 + i)) "$i"
    i=$((i + 1))
  done
  printf '}\n'
} > "$ngx/nginx.conf"
nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/logs/error.log" & pids+=("$!")
wait_port "127.0.0.1:$n0"

declare -A url=([bare]="127.0.0.1:$bare" [pasta]="127.0.0.1:$pasta_port" [veth]="10.204.0.2:$veth_port"
  [nginx_bare]="127.0.0.1:$n0" [nginx_pasta]="127.0.0.1:$((n0 + 1))" [nginx_veth]="127.0.0.1:$((n0 + 2))")
rows=(bare pasta veth nginx_bare nginx_pasta nginx_veth)
declare -A rps p99
for r in "${rows[@]}"; do wrk -t2 -c64 -d5s "http://${url[$r]}/" > /dev/null; done # warm-up
for round in $(seq 1 "$ROUNDS"); do
  for r in "${rows[@]}"; do
    out=$(wrk -t2 -c64 -d"${DURATION}s" --latency "http://${url[$r]}/")
    rps[$r]="${rps[$r]:-} $(echo "$out" | awk '/Requests\/sec/ {print $2}')"
    p99[$r]="${p99[$r]:-} $(echo "$out" | awk '$1 == "99%" {print $2}')"
  done
done
mean() { echo "$@" | tr ' ' '\n' | awk 'NF {s += $1; n++} END {printf "%.0f", s / n}'; }
echo "Inbound paths, wrk 2 threads 64 connections, $ROUNDS rounds of ${DURATION}s, $(nproc) cores"
for r in "${rows[@]}"; do printf '  %-12s %8s req/s  (rounds:%s; p99:%s)\n' "$r" "$(mean ${rps[$r]})" "${rps[$r]}" "${p99[$r]}"; done
ratio() { awk -v a="$(mean ${rps[$1]})" -v b="$(mean ${rps[$2]})" 'BEGIN {printf "%.2fx", a / b}'; }
echo "  straight in: pasta / bare $(ratio pasta bare), veth / bare $(ratio veth bare)"
echo "  nginx in front: pasta / bare $(ratio nginx_pasta nginx_bare), veth / bare $(ratio nginx_veth nginx_bare)"
