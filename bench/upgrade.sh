#!/usr/bin/env bash
# The upgrade drill: an app with in-memory state serves RATE requests a second through the apps listener while
# the server is stopped and started again on the same data dir and ports, as an upgrade does; once with SIGTERM
# (a graceful stop) and once with SIGKILL (a crash). Prints, for each: requests, failed requests, the longest gap
# between two answered requests, and whether the app's process (its id and its request counter) survived.
# Goal: 0 failed, a gap of at most 50 ms after SIGTERM, the same process after both.
# Needs: node, curl, jq, zip, a JDK >= 21. Knobs: RATE (50), BEFORE/AFTER (seconds of load around the restart: 3/5),
# ISOLATION (auto), BENCH_PORT (18680).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RATE="${RATE:-50}"
BEFORE="${BEFORE:-3}"
AFTER="${AFTER:-5}"
PORT="${BENCH_PORT:-18680}"

"$here/slipway" --version >/dev/null   # builds the jar if needed
start_server "$PORT" $((PORT + 1))

app="$work/src-stateful"; mkdir -p "$app"
cat > "$app/package.json" <<'JSON'
{"name": "stateful", "version": "1.0.0", "private": true, "scripts": {"start": "node server.js"}}
JSON
cat > "$app/server.js" <<'JS'
// a pid says nothing in the sandbox's pid namespace: the process names itself with a random id at start
const id = require("crypto").randomUUID().slice(0, 8);
let count = 0;
require("http").createServer((req, res) => res.end(`app:${id} count:${++count}\n`))
  .listen(Number(process.env.PORT), "127.0.0.1");
JS
(cd "$app" && zip -q -r -X "$work/stateful.zip" .)
mig=$(call POST /v1/migrations "{\"source\":\"zip\",\"upload_id\":\"$(upload "$work/stateful.zip")\",\"framework\":\"node-express\"}")
project=$(echo "$mig" | jq -er .data.project_id) || { echo "bench: migration refused: $mig" >&2; exit 1; }
await_migration "$(echo "$mig" | jq -r .data.id)"
host="$(call GET "/v1/projects/$project" | jq -r .data.name).localhost:$apps_port"
await_body "http://127.0.0.1:$apps_port/" "$host" "app:" 30 0.02

# restart SIGNAL: stops the server with SIGNAL and starts it again on the same data dir and ports
restart() {
  kill "-$1" "$server_pid"; wait "$server_pid" 2>/dev/null || true
  env "${server_env[@]}" "$here/slipway" server --api-port "$PORT" --apps-port "$apps_port" >> "$data/server.log" 2>&1 &
  server_pid=$!
}

drill() { # SIGNAL
  local before after
  before=$(curl -s -H "Host: $host" "http://127.0.0.1:$apps_port/")
  node "$here/bench/steady-load.mjs" "$apps_port" "$host" "$RATE" $((BEFORE + AFTER)) > "$work/load.json" &
  local load=$!
  sleep "$BEFORE"   # the load runs this long before the restart: a schedule, not a wait for work
  restart "$1"
  wait "$load"
  await_body "http://127.0.0.1:$apps_port/" "$host" "app:" 60 0.05
  after=$(curl -s -H "Host: $host" "http://127.0.0.1:$apps_port/")
  jq -r --arg sig "$1" --arg before "$before" --arg after "$after" \
    '"\($sig): \(.requests) requests, \(.failed) failed, longest gap \(.longest_gap_ms) ms; app before \($before | rtrimstr("\n")), after \($after | rtrimstr("\n")) (\(if ($before | split(" ")[0]) == ($after | split(" ")[0]) then "same process" else "restarted" end))"' \
    "$work/load.json"
}

section "upgrade drill: $RATE requests/s, ${BEFORE}s before and ${AFTER}s after the restart"
drill TERM
drill KILL
