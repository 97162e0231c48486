#!/usr/bin/env bash
# Webhook benchmark: how long from a state change to its webhook arriving at a receiver.
# For each store (H2, then PostgreSQL): a server, a receiver on loopback (bench/webhook-receiver.mjs) with
# two endpoints subscribed to "*": /fast answers at once, /slow takes SLOW_MS per request (it must slow
# nothing else). MIGRATIONS migrations of a repository on an unreachable git host each make five state
# changes (deployment queued, migration processing, deployment building, deployment failed, migration
# failed) = five events. Prints p50/p90/p99/max of payload timestamp (taken in the state change's
# transaction) → arrival at /fast, over every event.
# Needs: curl, jq, node, psql for the PostgreSQL run (BENCH_POSTGRES_URL, a user that may create databases),
# a JDK >= 21. Everything stays on loopback. Takes about a minute with the defaults.
set -euo pipefail
MIGRATIONS="${MIGRATIONS:-100}"
SLOW_MS="${SLOW_MS:-2000}"
PORT="${BENCH_PORT:-18780}"        # API port; apps on PORT+1, receiver on PORT+2, the unreachable git host PORT+3
# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
"$here/slipway" --version >/dev/null   # builds the jar if needed

run() { # run STORE [VAR=value ...]
  local store="$1"; shift
  local rport=$((PORT + 2)) lat="$work/latencies-$store.json"
  SLOW_MS="$SLOW_MS" node "$here/bench/webhook-receiver.mjs" "$rport" "$lat" > "$work/receiver.log" 2>&1 &
  local receiver=$!; extra_pids+=("$receiver")
  until curl -s -o /dev/null "http://127.0.0.1:$rport/"; do sleep 0.05; done
  start_server "$PORT" $((PORT + 1)) SLIPWAY_WEBHOOKS_ALLOW_PRIVATE=true \
      SLIPWAY_GIT_HOSTS="github=http://127.0.0.1:$((PORT + 3))" "$@"
  for path in fast slow; do
    call POST /v1/webhooks "{\"url\":\"http://127.0.0.1:$rport/$path\",\"events\":[\"*\"]}" | jq -e .data.id >/dev/null
  done
  local started ids=()
  started=$(now_us)
  for i in $(seq 1 "$MIGRATIONS"); do
    ids+=("$(call POST /v1/migrations '{"source":"github","repo":"bench/missing","framework":"node-express"}' | jq -er .data.id)")
  done
  local want=$((MIGRATIONS * 5)) deadline=$(( $(now_us) + 300000000 ))
  until [ "$(curl -s "http://127.0.0.1:$rport/count")" -ge "$want" ]; do
    kill -0 "$receiver" || { echo "bench: the receiver died" >&2; exit 1; }
    [ "$(now_us)" -gt "$deadline" ] && { echo "bench: timed out waiting for $want webhooks" >&2; exit 1; }
    sleep 0.2
  done
  kill -TERM "$receiver"; wait "$receiver" 2>/dev/null || true
  stop_server
  local pct='sort | "p50 \(.[length/2|floor]|.*10|round/10)  p90 \(.[length*0.9|floor]|.*10|round/10)  p99 \(.[length*0.99|floor]|.*10|round/10)  max \(.[-1]|.*10|round/10)"'
  echo "$store: $(jq '.events|length' "$lat") events in $(( ($(now_us) - started) / 1000000 )) s; state change → arrival at /fast (ms):"
  echo "  all:             $(jq -r "[.events[].ms] | $pct" "$lat")"
  echo "  second half:     $(jq -r ".events | [.[length/2|floor:][].ms] | $pct" "$lat")"
  echo "  meanwhile /slow (${SLOW_MS} ms per request, one at a time) got $(jq .slow "$lat") requests"
}

echo "Slipway webhook benchmark: $MIGRATIONS migrations x 5 events, $(nproc) cores"
run h2
if command -v psql >/dev/null; then
  db="slipway_bench_webhooks_$$"
  psql "$(psql_url)" -qc "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  databases+=("$db")
  run postgres SLIPWAY_DATABASE_URL="$(pg_database "$db")"
fi
