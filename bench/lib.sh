# Helpers shared by bench/engine.sh and bench/pipeline.sh (sourced, not run).
# They start real servers on loopback ports with their own data dirs, and clean up after themselves.

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FIXTURE="$here/src/test/resources/fixtures/express"
# npm cache shared by the platform's builds and the by-hand runs, so both install from the same warm
# cache and offline. Filled once (the only time a benchmark goes beyond loopback: registry.npmjs.org).
NPM_CACHE="${BENCH_NPM_CACHE:-$HOME/.cache/slipway-bench/npm}"
PG_ADMIN="${BENCH_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}"

for tool in curl jq zip node npm; do
  command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }
done

work="$(mktemp -d /tmp/slipway-bench.XXXXXX)"
server_pid=""
other_servers=() # servers started before the current one, still running
extra_pids=()   # processes the benchmark started itself (by-hand apps)
app_pids=()     # app processes the servers started (killed if a server did not stop them)
databases=()    # PostgreSQL databases to drop
kill_ours() { # stops an app this run started, if still running: its working dir is under $work (pids get reused)
  local cwd
  cwd=$(readlink "/proc/$1/cwd" 2>/dev/null) || return 0
  case "$cwd" in "$work"/*) kill "$1" 2>/dev/null ;; esac
  return 0
}
cleanup() {
  set +e
  for p in "$server_pid" "${other_servers[@]}"; do [ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  for p in "${extra_pids[@]}" "${app_pids[@]}"; do kill_ours "$p"; done
  for db in "${databases[@]}"; do psql "$(psql_url)" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_us() { echo "${EPOCHREALTIME/./}"; }
ms_since() { echo $(( ($(now_us) - $1) / 1000 )); }   # ms since a now_us value

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
percentile() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p/100)+0.999999); if (i<1) i=1; print a[i]}'; }

pg_database() { # the admin JDBC URL with the database name replaced
  echo "$PG_ADMIN" | sed -E "s#^(jdbc:postgresql://[^/?]+)(/[^?]*)?#\1/$1#"
}
psql_url() { # the admin JDBC URL (or with $1 as database) as a libpq connection for psql
  local hostport db user
  hostport=$(echo "$PG_ADMIN" | sed -E 's#^jdbc:postgresql://([^/?]+).*#\1#')
  db=$(echo "$PG_ADMIN" | sed -nE 's#^jdbc:postgresql://[^/?]+/([^?]*).*#\1#p')
  user=$(echo "$PG_ADMIN" | sed -nE 's#.*[?&]user=([^&]*).*#\1#p')
  echo "postgresql://${user:-postgres}@${hostport}/${1:-${db:-postgres}}"
}

# start_server API_PORT APPS_PORT [VAR=value ...]: a server with a fresh data dir and an account whose
# rate limit does not get in the way. Sets server_pid, api, apps_port, data, key, account, server_env.
start_server() {
  local port="$1" apps="$2"; shift 2
  data="$work/server-$port"; mkdir -p "$data"
  # a bench's stop stops its apps and the edge too: it leaves nothing running (extra arguments may say otherwise)
  server_env=(SLIPWAY_DATA_DIR="$data" SLIPWAY_ISOLATION="${ISOLATION:-auto}" SLIPWAY_STOP_APPS_WITH_SERVER=true "$@")
  env "${server_env[@]}" "$here/slipway" server --api-port "$port" --apps-port "$apps" > "$data/server.log" 2>&1 &
  server_pid=$!
  local deadline=$(( $(now_us) + 120000000 ))
  until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do
    if ! kill -0 "$server_pid" 2>/dev/null || [ "$(now_us)" -gt "$deadline" ]; then
      echo "bench: the server did not start:" >&2; cat "$data/server.log" >&2; exit 1
    fi
    sleep 0.05
  done
  api="http://127.0.0.1:$port"; apps_port="$apps"
  # SLIPWAY_JAVA_OPTS (a profiler, say) is for the server, not for these CLI commands
  account=$(env -u SLIPWAY_JAVA_OPTS "${server_env[@]}" "$here/slipway" accounts create --name bench --tier team --rate-limit 1000000 --json \
      | jq -r .id)
  key=$(env -u SLIPWAY_JAVA_OPTS "${server_env[@]}" "$here/slipway" keys create --account "$account" --json | jq -r .key)
}

stop_server() {
  [ -n "$server_pid" ] || return 0
  kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# call METHOD PATH [JSON]: the API with the bench key; prints the body
call() {
  if [ -n "${3:-}" ]; then
    curl -sS -X "$1" "$api$2" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$3"
  else
    curl -sS -X "$1" "$api$2" -H "Authorization: Bearer $key"
  fi
}

upload() { # upload ZIP → upload id
  curl -sS -X POST "$api/v1/uploads" -H "Authorization: Bearer $key" -H 'Content-Type: application/zip' \
      --data-binary @"$1" | jq -er .data.id
}

# make_app NAME MARKER [LOCK]: a copy of the express fixture whose / answers "fixture:express MARKER", and its
# zip; with LOCK (a number), package-lock.json ends in that many more spaces: the same packages, but other
# bytes, so another build cache key
make_app() {
  local dir="$work/src-$1"
  rm -rf "$dir"; cp -r "$FIXTURE" "$dir"
  sed -i "s#fixture:express#fixture:express $2#" "$dir/app.js"
  if [ -n "${3:-}" ]; then printf '%*s' "$3" '' >> "$dir/package-lock.json"; fi
  (cd "$dir" && zip -q -r -X "$work/$1.zip" .)
}

# The environment of the benchmark's projects: the shared warm cache without the sandbox. In the sandbox a
# build sees only its project's own cache (npm_config_cache is the platform's there), so a project's first
# build fills that from the registry; measured runs pass npm_config_offline=true as a deployment's env var.
PROJECT_ENV="{\"npm_config_cache\":\"$NPM_CACHE\"}"
OFFLINE_ENV="{\"npm_config_offline\":\"true\"}"
# the build environment of the platform (CommandRunner + BuildEnvironment), for by-hand runs (env -i)
HAND_ENV=(PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" NODE_ENV=production npm_config_cache="$NPM_CACHE"
          npm_config_offline=true npm_config_update_notifier=false npm_config_progress=false)
NPM_CI=(npm ci --no-audit --no-fund --prefer-offline --include=dev)   # NodeBuild's install command
# The platform passes the server's NODE_EXTRA_CA_CERTS (a file under /etc or /usr) to Node build steps, not to apps:
# the by-hand install gets it too (Node reads the whole file at its start, 30-40 ms here).
HAND_INSTALL_ENV=("${HAND_ENV[@]}")
case "${NODE_EXTRA_CA_CERTS:-}" in
  /etc/*|/usr/*) [ -r "$NODE_EXTRA_CA_CERTS" ] && HAND_INSTALL_ENV+=(NODE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS") ;;
esac

# Fills the shared npm cache with the fixture's packages unless an offline install already works.
prepare_npm_cache() {
  local dir="$work/npm-check"
  rm -rf "$dir"; cp -r "$FIXTURE" "$dir"
  mkdir -p "$NPM_CACHE"
  if ! (cd "$dir" && env -i "${HAND_ENV[@]}" "${NPM_CI[@]}" >/dev/null 2>&1); then
    echo "bench: filling the npm cache $NPM_CACHE from the registry (once; later runs are offline)"
    (cd "$dir" && env -i "${HAND_ENV[@]}" npm_config_offline=false "${NPM_CI[@]}" > "$work/npm-fill.log" 2>&1) \
      || { echo "bench: npm ci of the fixture failed:" >&2; cat "$work/npm-fill.log" >&2; exit 1; }
  fi
  rm -rf "$dir"
}

# await_migration ID: long-polls until the migration is complete (its first deployment is live)
await_migration() {
  local status wait=0 deadline=$(( $(now_us) + 300000000 ))
  while :; do
    status=$(call GET "/v1/migrations/$1?wait=$wait" | jq -r .data.status); wait=20
    [ "$status" = complete ] && return 0
    if [ "$status" = failed ] || [ "$(now_us)" -gt "$deadline" ]; then
      echo "bench: migration $1 is $status; its log:" >&2
      call GET "/v1/migrations/$1/logs" | jq -r '.data.logs[] | "\(.timestamp) \(.level) \(.message)"' >&2
      exit 1
    fi
  done
}

# await_deployment ID STATUS: long-polls until the deployment has STATUS (exits on failure)
await_deployment() {
  local id="$1" want="$2" status wait=0 deadline=$(( $(now_us) + 300000000 ))
  while :; do
    status=$(call GET "/v1/deployments/$id?wait=$wait" | jq -r .data.status); wait=20
    [ "$status" = "$want" ] && return 0
    if [ "$status" = failed ] || [ "$(now_us)" -gt "$deadline" ]; then
      echo "bench: deployment $id is $status, expected $want; its log:" >&2
      call GET "/v1/deployments/$id/logs" | jq -r '.data.logs[] | "\(.timestamp) \(.level) \(.message)"' >&2
      exit 1
    fi
  done
}

# await_body URL HOST MARKER [TIMEOUT_S [PAUSE_S]]: polls URL with that Host until the answer contains MARKER
# (PAUSE_S between attempts; 0: back to back, each attempt a fresh curl and connection)
await_body() {
  local url="$1" host="$2" marker="$3" deadline=$(( $(now_us) + ${4:-120} * 1000000 )) pause="${5:-0}" body
  while :; do
    body=$(curl -s -m 2 -H "Host: $host" "$url" || true)
    case "$body" in *"$marker"*) return 0 ;; esac
    if [ "$(now_us)" -gt "$deadline" ]; then echo "bench: $host never answered '$marker' (last: ${body:0:80})" >&2; exit 1; fi
    [ "$pause" = 0 ] || sleep "$pause"
  done
}

# The log of a deployment; log_ms LOGS FROM TO: ms between the first entries starting with FROM and TO
logs_of() { call GET "/v1/deployments/$1/logs"; }
log_ms() {
  echo "$1" | jq -r --arg a "$2" --arg b "$3" '
    def ts: capture("^(?<s>[^.Z]+)(\\.(?<f>[0-9]+))?Z$") | (.s + "Z" | fromdateiso8601) + (if .f then ("0." + .f | tonumber) else 0 end);
    def at($p): first(.data.logs[] | select(.message | startswith($p))).timestamp | ts;
    ((at($b) - at($a)) * 1000 | round)'
}
# the pid the deployment's log says serves it (a started app, or the still-running app it switched to)
log_pid() { echo "$1" | jq -r '[.data.logs[].message | capture("pid (?<p>[0-9]+)").p] | last // empty'; }
log_port() { echo "$1" | jq -r '[.data.logs[].message | capture("^Starting .* on port (?<p>[0-9]+)").p] | last // empty'; }

# wrk_run LABEL URL [HOST]: prints requests/s and latency; leaves requests/s in $work/last_rps
wrk_run() {
  local label="$1" url="$2" out
  if [ -n "${3:-}" ]; then out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "Host: $3" "$url")
  else out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$url"); fi
  local rps p50 p99 non2xx errors
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $4}')
  errors=$(echo "$out" | awk '/Socket errors/ {print $0}' | sed 's/^ *//')
  printf "  %-34s %10s req/s   p50 %8s   p99 %8s   non-2xx %s %s\n" "$label" "$rps" "$p50" "$p99" "${non2xx:-0}" "$errors"
  echo "$rps" > "$work/last_rps"
  if [ -n "$non2xx$errors" ]; then echo 1 > "$work/last_bad"; else echo 0 > "$work/last_bad"; fi
  # p99 in ms (wrk prints us, ms or s)
  echo "$p99" | awk '/us$/ {print $1/1000; next} /ms$/ {print $1+0; next} /s$/ {print $1*1000; next} {print $1}' > "$work/last_p99"
}

# settle: waits (at most 5 s) until the server is idle, i.e. used at most one clock tick of CPU in 200 ms, so that
# its work after a deploy (the JIT compiling what just ran) does not run into the next measured run
settle() {
  [ -n "$server_pid" ] || return 0
  local deadline=$(( $(now_us) + 5000000 )) before after
  while [ "$(now_us)" -lt "$deadline" ]; do
    before=$(awk '{print $14 + $15}' "/proc/$server_pid/stat" 2>/dev/null) || return 0
    sleep 0.2
    after=$(awk '{print $14 + $15}' "/proc/$server_pid/stat" 2>/dev/null) || return 0
    [ $(( after - before )) -le 1 ] && return 0
  done
}

section() { printf "== %s  [t=%ds]\n" "$1" "$SECONDS"; }
