#!/usr/bin/env bash
# Noisy neighbour benchmark: how much a CPU-bound app slows the API. Starts the server on H2
# (ISOLATION=auto|sandbox|none, as SLIPWAY_ISOLATION), then measures authenticated GET /v1/projects/{id}
# with wrk (CONNECTIONS=2 connections, DURATION s): first on an idle machine, then while an app of
# instance type starter runs 8 threads that spin forever. Target: p99 under the hog <= 50 ms.
# Under the sandbox the hog gets its CFS quota (0.25 CPU); without it, it takes what it can.
# Needs: wrk, curl, jq, zip, node, a JDK >= 21. About a minute.
set -euo pipefail
DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-2}"
PORT="${BENCH_PORT:-18680}"
# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
command -v wrk >/dev/null || { echo "bench: needs wrk (apt-get install wrk)" >&2; exit 1; }
"$here/slipway" --version >/dev/null

mkdir -p "$work/hog"
cat > "$work/hog/package.json" <<'JSON'
{"name": "hog", "version": "1.0.0", "private": true, "scripts": {"start": "node server.js"}}
JSON
cat > "$work/hog/server.js" <<'JS'
const { Worker } = require("worker_threads");
for (let i = 0; i < 8; i++) new Worker("for (;;) {}", { eval: true });
require("http").createServer((q, s) => s.end("hog")).listen(Number(process.env.PORT), "127.0.0.1");
JS
(cd "$work/hog" && zip -q -r -X "$work/hog.zip" .)

start_server "$PORT" $((PORT + 1))
isolation=$(curl -s "$api/readyz" | jq -r .isolation)
echo "Slipway noisy-neighbour benchmark: isolation $isolation, wrk $CONNECTIONS connections ${DURATION}s, $(nproc) cores"
project=$(call POST /v1/projects '{"source":"github","repo":"bench/quiet"}' | jq -er .data.id)
read_url="$api/v1/projects/$project"
measure() { # label: p50/p99 of the authenticated read
  local out
  wrk -t1 -c"$CONNECTIONS" -d5s -H "Authorization: Bearer $key" "$read_url" >/dev/null   # warm-up
  out=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "Authorization: Bearer $key" "$read_url")
  printf "  %-28s %9s req/s   p50 %8s   p99 %8s\n" "$1" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1=="50%" {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')"
}
measure "idle machine"
mig=$(call POST /v1/migrations "{\"source\":\"zip\",\"framework\":\"node-express\",\"instance_type\":\"starter\",\"upload_id\":\"$(upload "$work/hog.zip")\"}")
dep=$(call GET "/v1/migrations/$(echo "$mig" | jq -er .data.id)" | jq -er .data.deployment_id)
await_deployment "$dep" live
hog_pid=$(log_pid "$(logs_of "$dep")"); app_pids+=("$hog_pid")
sleep 2
measure "while a starter app spins"
echo "  machine load while spinning: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_server
echo "Total $SECONDS s"
