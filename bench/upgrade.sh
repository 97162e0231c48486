#!/usr/bin/env bash
# The upgrade drill: an app with in-memory state serves RATE requests a second through the apps listener (the edge
# process) while the server is stopped and started again on the same data dir and ports, as an upgrade does; once
# with SIGTERM (a graceful stop) and once with SIGKILL (a crash). Prints, for each: requests, failed requests, the
# longest gap between two answered requests, whether the app's process (its id and its request counter) survived,
# and how long the new server took to adopt the running cells (CELLS of them: the app migrated CELLS times, each a
# project of its own).
# Goal: 0 failed, a gap of at most 50 ms after SIGTERM, the same process after both.
# Needs: node, curl, jq, zip, a JDK >= 21. Knobs: RATE (50), BEFORE/AFTER (seconds of load around the restart: 3/5),
# CELLS (1), ISOLATION (auto), BENCH_PORT (18680).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RATE="${RATE:-50}"
BEFORE="${BEFORE:-3}"
AFTER="${AFTER:-5}"
PORT="${BENCH_PORT:-18680}"
CELLS="${CELLS:-1}"

"$here/slipway" --version >/dev/null   # builds the jar if needed
start_server "$PORT" $((PORT + 1)) SLIPWAY_STOP_APPS_WITH_SERVER=false

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
upload_id=$(upload "$work/stateful.zip")
for ((i = 1; i < CELLS; i++)); do   # more projects of the same app: CELLS cells for the new server to adopt
  more=$(call POST /v1/migrations "{\"source\":\"zip\",\"upload_id\":\"$upload_id\",\"framework\":\"node-express\"}")
  await_migration "$(echo "$more" | jq -er .data.id)"
done

# restart SIGNAL [VAR=value…]: stops the server with SIGNAL and starts it again on the same data dir and ports
restart() {
  local signal="$1"; shift
  kill "-$signal" "$server_pid"; wait "$server_pid" 2>/dev/null || true
  env "${server_env[@]}" "$@" "$here/slipway" server --api-port "$PORT" --apps-port "$apps_port" >> "$data/server.log" 2>&1 &
  server_pid=$!
}

recoveries() { grep -c "runtime recovery: " "$data/server.log" || true; }
await_recovery() { # SEEN: until the server log has more recoveries than SEEN (the new server adopted the apps)
  local deadline=$((SECONDS + 60))
  until [ "$(recoveries)" -gt "$1" ] || [ "$SECONDS" -gt "$deadline" ]; do sleep 0.1; done
}

drill() { # SIGNAL
  local before after seen
  before=$(curl -s -H "Host: $host" "http://127.0.0.1:$apps_port/")
  seen=$(recoveries)
  node "$here/bench/steady-load.mjs" "$apps_port" "$host" "$RATE" $((BEFORE + AFTER)) > "$work/load.json" &
  local load=$!
  sleep "$BEFORE"   # the load runs this long before the restart: a schedule, not a wait for work
  restart "$1"
  wait "$load"
  await_body "http://127.0.0.1:$apps_port/" "$host" "app:" 60 0.05
  await_recovery "$seen"
  local recovered; recovered=$(grep "runtime recovery: " "$data/server.log" | tail -1)
  after=$(curl -s -H "Host: $host" "http://127.0.0.1:$apps_port/")
  jq -r --arg sig "$1" --arg before "$before" --arg after "$after" \
    '"\($sig): \(.requests) requests, \(.failed) failed, longest gap \(.longest_gap_ms) ms; app before \($before | rtrimstr("\n")), after \($after | rtrimstr("\n")) (\(if ($before | split(" ")[0]) == ($after | split(" ")[0]) then "same process" else "restarted" end))"' \
    "$work/load.json"
  echo "  $1: ${recovered#*runtime recovery: }"
}

section "upgrade drill: $RATE requests/s, ${BEFORE}s before and ${AFTER}s after the restart"
drill TERM
drill KILL
# the last stop stops the apps and the edge: the bench leaves nothing running
seen=$(recoveries)
restart TERM SLIPWAY_STOP_APPS_WITH_SERVER=true
await_recovery "$seen"   # a server stopped before it has adopted them could not stop them
