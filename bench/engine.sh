#!/usr/bin/env bash
# Engine benchmark: starts the server on H2 (ISOLATION=auto|sandbox|none, passed as
# SLIPWAY_ISOLATION; run it once each way to see what the sandbox costs) and prints
#   1. platform overhead: POST /v1/deployments of the express fixture (a new zip each run, node-express, to a
#      project a warm-up migration made) until the new app answers through the apps listener, divided by the
#      same install and start run by hand (npm ci with
#      NodeBuild's flags and the platform's build environment, then node app.js until it answers);
#      N runs after one warm-up, each and the median (target <= 1.10); each run starts once the server is idle
#      (its JIT compiling after a deploy would otherwise slow the by-hand run that follows); each platform run
#      also prints the CPU time the server used meanwhile, which competes with npm on a small machine and is
#      far less noisy than wall time when the machine is shared.
#      Each run is two platform deploys next to one by-hand run: "cold", whose package-lock.json has bytes no
#      earlier build had (the same packages, trailing spaces), so it misses the build cache and runs npm ci as
#      before; then "cache", a code-only change of that app, which hits the build cache (the install is
#      skipped). Both are divided by the same by-hand run (target: cold <= 1.10, cache <= 0.30).
#      How each side waits (WAIT): "cheap" (default) waits the way that costs the measured side least: the
#      platform run long-polls its deployment (GET ?wait=, answered the moment it is live; the answers read with
#      bash builtins, no jq) and then asks the
#      router; the by-hand run probes the app's port with bash's /dev/tcp every 5 ms (no process started) and
#      then asks the app. "curl" polls both with curl every 20 ms from the start: every poll of the router
#      during the build is a request the server answers (about 2 ms of CPU each on a small VM, ~150 ms per
#      deploy, taken from npm), while a poll of the by-hand app before it listens is a refused connection;
#   2. rollback to the previous production while it is still running (warm): POST .../rollback until the
#      first request served by it through the router, N times after WARMUP_ROLLBACKS unmeasured ones (default
#      4: on a fresh server the JIT compiles the rollback's path meanwhile, over a second of compiler CPU
#      on this 2-core machine; 0 measures the fresh server) (target <= 20 ms); WARM_TRAFFIC=S first
#      sends S s of authenticated API reads and S s of app requests through the listener (wrk, 4 connections),
#      as a server in use has served; ROLLBACK_PAUSE=S waits S s before each measured rollback;
#   3. router throughput: wrk (CONNECTIONS connections, DURATION s) to the app's own port and through the
#      apps listener with a Host header (target: router >= 70% of direct);
#   4. rollback to a stopped app (cold artifact): a second server with SLIPWAY_RETIRE_AFTER_SECONDS=1, wait
#      until the old app has stopped, roll back, time to its first request (target <= 300 ms).
# By-hand installs use one npm cache (BENCH_NPM_CACHE, default ~/.cache/slipway-bench/npm) and measured
# platform builds their project's cache, warmed by the project's first build; both with npm_config_offline=true.
# VERBOSE=1 prints each platform run's and rollback's deployment log with its timestamps.
#   5. router vs nginx: the plain Node `http` app (fixtures/node-plain) deployed on two servers at once, one
#      with ISOLATION=none (its app runs bare) and one with ISOLATION (its app in its sandbox, unless this machine
#      has none); then wrk (2 threads, CONNECTIONS connections, DURATION s) straight to each app's port, through
#      nginx (Debian's, 1 worker, keep-alive upstream, the same X-Forwarded-* headers; started here with its own
#      config in a temp dir on loopback ports) in front of each, and through each server's apps listener:
#      ROUNDS rounds (default 3), all interleaved in each round, after a warm-up (WARMUP s through each apps
#      listener, default 20: the JIT; then 5 s more at a time until the server uses at most a tenth of its edge's
#      CPU, at most WARMUP_MAX s, default 120). It prints the medians, the CPU each proxy used per request (its
#      server and edge processes together, and the server's part; far less noisy than req/s on a shared machine),
#      and three comparisons: the two
#      proxies on the same bare app (target: Slipway req/s >= 1.0x nginx's, p99 <= 1.2x), the two on the
#      sandboxed app's port (>= 1.0x), and Slipway with the app in its sandbox against nginx in front of the bare
#      app (>= 0.9x), with what the sandbox's inbound path alone costs (direct to its port / direct to the bare app).
# PARTS=overhead runs part 1 only, PARTS=rollback part 2 only, PARTS=cold part 4 only, PARTS=router part 5 only;
# the default, PARTS=all, runs all five.
# Needs: wrk, curl, jq, zip, node + npm, a JDK >= 21, nginx (part 5). Takes about 10 minutes with the defaults (part 5: 6-8).
set -euo pipefail
N="${N:-3}"
PARTS="${PARTS:-all}"
WAIT="${WAIT:-cheap}"
case "$PARTS" in all|overhead|rollback|cold|router) ;; *) echo "bench: PARTS must be all, overhead, rollback, cold or router, got '$PARTS'" >&2; exit 2 ;; esac
case "$WAIT" in cheap|curl) ;; *) echo "bench: WAIT must be cheap or curl, got '$WAIT'" >&2; exit 2 ;; esac
DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-64}"
PORT="${BENCH_PORT:-18580}"        # API port; apps on PORT+1; by-hand app on PORT+9
# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
case "$PARTS" in all|router) command -v wrk >/dev/null || { echo "bench: needs wrk (apt-get install wrk)" >&2; exit 1; } ;; esac
case "$PARTS" in all|router) command -v nginx >/dev/null || { echo "bench: needs nginx (apt-get install nginx)" >&2; exit 1; } ;; esac
ROUNDS="${ROUNDS:-3}"

"$here/slipway" --version >/dev/null   # builds the jar if needed
prepare_npm_cache
make_app v1 v1
make_app v2 v2
HAND_PORT=$((PORT + 9))

echo "Slipway engine benchmark: N=$N, WAIT=$WAIT, wrk $CONNECTIONS connections ${DURATION}s, $(nproc) cores, $(node --version), npm $(npm --version)"

# --- 1. platform overhead ---------------------------------------------------------------------------
# CPU time the server's JVM has used, in ms (user + system, from /proc)
server_cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{sub(/^.*\) /, ""); print int(($12 + $13) * 1000 / hz)}' "/proc/$server_pid/stat"; }


# The measured client reads the API's answers with bash builtins, as the by-hand run waits with them: jq
# starts in 20-50 ms here, which is the bench's time, not the platform's. json_field BODY NAME: the first
# "NAME":"value" of a flat answer (a string value of the API's is escaped JSON, so none can match inside one).
json_field() {
  [[ $1 =~ \"$2\":\"([^\"]*)\" ]] || return 1
  echo "${BASH_REMATCH[1]}"
}
# await_live ID: long-polls the deployment until it is live (await_deployment without jq)
await_live() {
  local status wait=0 deadline=$(( $(now_us) + 300000000 ))
  while :; do
    status=$(json_field "$(call GET "/v1/deployments/$1?wait=$wait")" status) || status=unknown; wait=20
    [ "$status" = live ] && return 0
    if [ "$status" = failed ] || [ "$(now_us)" -gt "$deadline" ]; then await_deployment "$1" live; fi
  done
}

# One deploy through the platform: sets run_ms, run_name, run_port, run_detail, run_cpu. The first (the
# warm-up) is a migration, which creates the project; the measured runs are deployments of a new zip to it,
# so that its build cache is warm as the by-hand run's is (in the sandbox each project has a cache of its own).
overhead_project=""
platform_runs=0
platform_run() { # [LOCK]: see make_app
  local t0 mig dep logs cpu0 upload_id label
  platform_runs=$((platform_runs + 1)); label="r$platform_runs"
  make_app "$label" "$label" "${1:-}"; upload_id=$(upload "$work/$label.zip")
  cpu0=$(server_cpu_ms)
  t0=$(now_us)
  if [ -z "$overhead_project" ]; then
    mig=$(call POST /v1/migrations "{\"source\":\"zip\",\"upload_id\":\"$upload_id\",\"framework\":\"node-express\",\"env_vars\":$PROJECT_ENV}")
    overhead_project=$(echo "$mig" | jq -er .data.project_id) || { echo "bench: migration refused: $mig" >&2; exit 1; }
    dep=$(echo "$mig" | jq -r .data.id)
    run_name=$(call GET "/v1/projects/$overhead_project" | jq -r .data.name)
    if [ "$WAIT" = cheap ]; then await_migration "$dep"; fi
  else
    dep=$(json_field "$(call POST /v1/deployments "{\"project_id\":\"$overhead_project\",\"upload_id\":\"$upload_id\",\"env_vars\":$OFFLINE_ENV}")" id) \
      || { echo "bench: deployment refused" >&2; exit 1; }
    if [ "$WAIT" = cheap ]; then await_live "$dep"; fi
  fi
  await_body "http://127.0.0.1:$apps_port/" "$run_name.localhost:$apps_port" "fixture:express $label" 300 0.02
  run_ms=$(ms_since "$t0")
  run_cpu=$(( $(server_cpu_ms) - cpu0 ))
  dep=$(call GET "/v1/projects/$overhead_project" | jq -r .data.production_deployment_id)
  logs=$(logs_of "$dep")
  if [ "${VERBOSE:-0}" = 1 ]; then echo "$logs" | jq -r '.data.logs[] | "         \(.timestamp) \(.message)"' | cut -c1-170 >&2; fi
  app_pids+=("$(log_pid "$logs")")
  run_port=$(log_port "$logs")
  # "Build cache:" (hit or miss) is logged just before the install would run
  run_phases="$(log_ms "$logs" "Deployment queued" "Build started") $(log_ms "$logs" "Build started" "Build cache:") $(log_ms "$logs" "Build cache:" "Build finished in") $(log_ms "$logs" "Build finished in" "App is healthy") $(log_ms "$logs" "App is healthy" "Deployment is live")"
  run_cache=$(echo "$logs" | jq -r '[.data.logs[].message | select(startswith("Build cache: hit") or startswith("Build cache: no entry"))] | first // "no build cache line" | .[0:40]')
  run_detail=$(echo "$run_phases" | awk -v cpu="$run_cpu" '{printf "queued→build %s, unzip+copy %s, install+freeze %s, start %s, healthy→live %s; server CPU %s", $1, $2, $3, $4, $5, cpu}')
}

# The same by hand, polled the same way from the start: sets run_ms, run_detail.
# Each run in a fresh directory: deleting the previous run's node_modules just before would leave the file
# system busy with it during this run's install.
hand_runs=0
hand_run() {
  local dir t0 pid npm_done
  hand_runs=$((hand_runs + 1)); dir="$work/hand-$hand_runs"
  cp -r "$FIXTURE" "$dir"
  t0=$(now_us)
  (cd "$dir" && env -i "${HAND_INSTALL_ENV[@]}" "${NPM_CI[@]}" > "$dir/.out" 2>&1 && echo "${EPOCHREALTIME/./}" > "$dir/.npm_done" \
     && exec env -i "${HAND_ENV[@]}" PORT="$HAND_PORT" node app.js >> "$dir/.out" 2>&1) &
  pid=$!
  extra_pids+=("$pid")
  local deadline=$(( t0 + 300000000 ))
  hand_failed() {
    if ! kill -0 "$pid" 2>/dev/null || [ "$(now_us)" -gt "$deadline" ]; then
      echo "bench: the by-hand run failed:" >&2; cat "$dir/.out" >&2; exit 1
    fi
  }
  if [ "$WAIT" = cheap ]; then
    # bash builtins only: a connect through /dev/tcp, and a read with a timeout on a FIFO nobody writes to
    until { : <> "/dev/tcp/127.0.0.1/$HAND_PORT"; } 2>/dev/null; do hand_failed; read -r -t 0.005 -u 7 || true; done
  fi
  until curl -sf -o /dev/null "http://127.0.0.1:$HAND_PORT/"; do hand_failed; sleep 0.02; done
  run_ms=$(ms_since "$t0")
  npm_done=$(cat "$dir/.npm_done")
  run_phases="$(( (npm_done - t0) / 1000 )) $(( run_ms - (npm_done - t0) / 1000 ))"
  run_detail=$(echo "$run_phases" | awk '{printf "install %s, start %s", $1, $2}')
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

mkfifo "$work/never"; exec 7<> "$work/never"   # the by-hand run's 5 ms pauses (WAIT=cheap)
if [ "$PARTS" = all ] || [ "$PARTS" = overhead ]; then
start_server "$PORT" $((PORT + 1))
section "platform overhead: POST /v1/deployments (a new zip; cold: a new lockfile, cache: a code-only change) → app answers via router, vs npm ci + node by hand (ms); isolation: $(curl -s "$api/readyz" | jq -r .isolation)"
platform_run; echo "  warm-up (the migration): platform $run_ms ($run_detail)"
hand_run; echo "  warm-up: by hand  $run_ms ($run_detail)"
: > "$work/t_ratio"; : > "$work/t_platform"; : > "$work/t_hand"; : > "$work/p_phases"; : > "$work/h_phases"; : > "$work/p_cpu"
: > "$work/t_cache_ratio"; : > "$work/t_cache"; : > "$work/c_phases"
for i in $(seq 1 "$N"); do
  settle; platform_run "$i"; p=$run_ms; pd="$run_detail; $run_cache"; echo "$run_phases" >> "$work/p_phases"; echo "$run_cpu" >> "$work/p_cpu"
  settle; hand_run; h=$run_ms; hd=$run_detail; echo "$run_phases" >> "$work/h_phases"
  settle; platform_run "$i"; c=$run_ms; cd="$run_detail; $run_cache"; echo "$run_phases" >> "$work/c_phases"
  ratio=$(awk -v p="$p" -v h="$h" 'BEGIN {printf "%.3f", p/h}')
  cache_ratio=$(awk -v p="$c" -v h="$h" 'BEGIN {printf "%.3f", p/h}')
  echo "$p" >> "$work/t_platform"; echo "$h" >> "$work/t_hand"; echo "$ratio" >> "$work/t_ratio"
  echo "$c" >> "$work/t_cache"; echo "$cache_ratio" >> "$work/t_cache_ratio"
  printf "  run %d: platform cold %5d   by hand %5d   ratio %s   platform cache hit %5d   ratio %s\n" "$i" "$p" "$h" "$ratio" "$c" "$cache_ratio"
  printf "         cold:     %s\n         by hand:  %s\n         cache:    %s\n" "$pd" "$hd" "$cd"
done
col() { awk -v c="$1" '{print $c}' "$2" | median; }   # median of column C of a phases file
printf "  median phases: platform queued→build %s, unzip+copy %s, install+freeze %s, start %s, healthy→live %s (server CPU %s ms); by hand install %s, start %s\n" \
  "$(col 1 "$work/p_phases")" "$(col 2 "$work/p_phases")" "$(col 3 "$work/p_phases")" "$(col 4 "$work/p_phases")" \
  "$(col 5 "$work/p_phases")" "$(median < "$work/p_cpu")" "$(col 1 "$work/h_phases")" "$(col 2 "$work/h_phases")"
printf "  median: platform %s ms, by hand %s ms, ratio %s (spread %s–%s; target <= 1.10)\n" \
  "$(median < "$work/t_platform")" "$(median < "$work/t_hand")" "$(median < "$work/t_ratio")" \
  "$(sort -n "$work/t_ratio" | head -1)" "$(sort -n "$work/t_ratio" | tail -1)"
printf "  median phases of the cache hits: queued→build %s, unzip+copy %s, restore+freeze %s, start %s, healthy→live %s\n" \
  "$(col 1 "$work/c_phases")" "$(col 2 "$work/c_phases")" "$(col 3 "$work/c_phases")" "$(col 4 "$work/c_phases")" "$(col 5 "$work/c_phases")"
printf "  median: code-only redeploy with a build cache hit %s ms, by hand %s ms, ratio %s (spread %s–%s; target <= 0.30)\n" \
  "$(median < "$work/t_cache")" "$(median < "$work/t_hand")" "$(median < "$work/t_cache_ratio")" \
  "$(sort -n "$work/t_cache_ratio" | head -1)" "$(sort -n "$work/t_cache_ratio" | tail -1)"
router_name=$run_name; router_port=$run_port
if [ "$PARTS" = overhead ]; then stop_server; echo "Total $SECONDS s"; exit 0; fi
fi

# --- 2. and 4. rollbacks (functions; part 2 runs below with part 3) ----------------------------------------------------------------------------
# Creates a zip project NAME with v1 then v2 deployed; sets dep_v1, dep_v2, pid_v1, pid_v2.
deploy_two_versions() {
  local name="$1" u1 u2 logs
  project_id=$(call POST /v1/projects "{\"name\":\"$name\",\"source\":\"zip\",\"framework\":\"node-express\",\"env_vars\":$PROJECT_ENV}" | jq -er .data.id)
  u1=$(upload "$work/v1.zip"); u2=$(upload "$work/v2.zip")
  dep_v1=$(call POST /v1/deployments "{\"project_id\":\"$project_id\",\"upload_id\":\"$u1\"}" | jq -er .data.id)
  await_deployment "$dep_v1" live
  logs=$(logs_of "$dep_v1"); pid_v1=$(log_pid "$logs"); app_pids+=("$pid_v1")
  dep_v2=$(call POST /v1/deployments "{\"project_id\":\"$project_id\",\"upload_id\":\"$u2\"}" | jq -er .data.id)
  await_deployment "$dep_v2" live
  logs=$(logs_of "$dep_v2"); pid_v2=$(log_pid "$logs"); app_pids+=("$pid_v2")
  await_body "http://127.0.0.1:$apps_port/" "$name.localhost:$apps_port" "express v2" 30 0.02
}

# rollback_run NAME TARGET_DEP MARKER: POST rollback until the router serves MARKER (timed by timing.mjs: one
# keep-alive connection, polls back to back); sets run_ms, run_dep, run_pid, run_how
rollback_run() {
  local name="$1" target="$2" marker="$3" out logs
  out=$(node "$here/bench/timing.mjs" switch "$api" "$key" "$target" "$apps_port" "$name.localhost:$apps_port" "express $marker")
  run_ms=$(echo "$out" | jq -r .ms); run_dep=$(echo "$out" | jq -r .id); run_post=$(echo "$out" | jq -r .post_ms); run_polls=$(echo "$out" | jq -r .polls)
  await_deployment "$run_dep" live
  logs=$(logs_of "$run_dep")
  run_pid=$(log_pid "$logs"); app_pids+=("$run_pid")
  if echo "$logs" | jq -e 'any(.data.logs[].message; startswith("Switching to the still-running app"))' >/dev/null; then
    run_how="warm: route switch; POST answered in $run_post ms, GETs until the target answered: $run_polls; server: queued→claimed $(log_ms "$logs" "Rollback queued" "Reusing the build") ms, →switching $(log_ms "$logs" "Reusing the build" "Switching to") ms, →live $(log_ms "$logs" "Switching to" "Deployment is live") ms"
  else
    run_how="cold: started from the artifact, $(log_ms "$logs" "Starting " "App is healthy") ms to healthy"
  fi
  if [ "${VERBOSE:-0}" = 1 ]; then echo "$logs" | jq -r '.data.logs[] | "         \(.timestamp) \(.message)"' | cut -c1-170 >&2; fi
}

if [ "$PARTS" = all ] || [ "$PARTS" = rollback ]; then
[ "$PARTS" = all ] || start_server "$PORT" $((PORT + 1))
section "rollback to the previous production, still running (warm): POST rollback → first request it serves"
deploy_two_versions warm
if [ "${WARM_TRAFFIC:-0}" -gt 0 ]; then
  # a server in use has answered API calls and relayed app requests: the code a rollback shares with them (HTTP,
  # authentication, the store's reads, the relay) is compiled; the rollback's own code is not, beyond the warm-ups
  command -v wrk >/dev/null || { echo "bench: WARM_TRAFFIC needs wrk (apt-get install wrk)" >&2; exit 1; }
  wrk -t1 -c4 -d"${WARM_TRAFFIC}s" -H "Authorization: Bearer $key" "$api/v1/projects/$project_id" >/dev/null
  wrk -t1 -c4 -d"${WARM_TRAFFIC}s" -H "Host: warm.localhost:$apps_port" "http://127.0.0.1:$apps_port/" >/dev/null
fi
: > "$work/t_warm"
for i in $(seq 1 "${WARMUP_ROLLBACKS:-4}"); do
  if [ $((i % 2)) = 1 ]; then rollback_run warm "$dep_v1" v1; to=v1; else rollback_run warm "$dep_v2" v2; to=v2; fi
  printf "  warm-up %d (to %s): %5d ms   (%s)\n" "$i" "$to" "$run_ms" "$run_how"
done
# the measured runs alternate from where the warm-ups left production
first=1; [ $(( ${WARMUP_ROLLBACKS:-4} % 2 )) = 1 ] && first=0
for i in $(seq 1 "$N"); do
  sleep "${ROLLBACK_PAUSE:-0}"   # ROLLBACK_PAUSE=5: the target has been idle past the relay's 4 s pool, as after a real incident
  if [ $(((i + 1 - first) % 2)) = 1 ]; then rollback_run warm "$dep_v1" v1; to=v1; else rollback_run warm "$dep_v2" v2; to=v2; fi
  echo "$run_ms" >> "$work/t_warm"
  printf "  run %d (to %s): %5d ms   (%s)\n" "$i" "$to" "$run_ms" "$run_how"
done
echo "  median: $(median < "$work/t_warm") ms (target <= 20 ms)"
[ "$PARTS" = all ] || stop_server
fi

if [ "$PARTS" = all ]; then
# --- 3. router throughput ---------------------------------------------------------------------------
section "router throughput: GET / of the express app, direct to its port $router_port vs via the apps listener"
wrk -t2 -c"$CONNECTIONS" -d5s "http://127.0.0.1:$router_port/" >/dev/null   # warm-up
wrk -t2 -c"$CONNECTIONS" -d5s -H "Host: $router_name.localhost:$apps_port" "http://127.0.0.1:$apps_port/" >/dev/null
wrk_run "direct (app port)" "http://127.0.0.1:$router_port/"
direct_rps=$(cat "$work/last_rps")
wrk_run "via router (Host header)" "http://127.0.0.1:$apps_port/" "$router_name.localhost:$apps_port"
router_rps=$(cat "$work/last_rps")
awk -v r="$router_rps" -v d="$direct_rps" 'BEGIN {printf "  router / direct: %.0f%% (target >= 70%%)\n", 100*r/d}'
stop_server
fi

# --- 4. cold rollback -------------------------------------------------------------------------------
if [ "$PARTS" = all ] || [ "$PARTS" = cold ]; then
section "rollback to a stopped app (cold artifact; SLIPWAY_RETIRE_AFTER_SECONDS=1): POST rollback → first request"
start_server $((PORT + 2)) $((PORT + 3)) SLIPWAY_RETIRE_AFTER_SECONDS=1
deploy_two_versions cold
previous=$pid_v1; current=$pid_v2
: > "$work/t_cold"
for i in $(seq 1 "$N"); do
  deadline=$(( $(now_us) + 60000000 ))
  t_wait=$(now_us)
  while kill -0 "$previous" 2>/dev/null; do   # the retired app is stopped 1 s after it was replaced
    [ "$(now_us)" -lt "$deadline" ] || { echo "bench: the retired app (pid $previous) was not stopped" >&2; exit 1; }
    sleep 0.05
  done
  waited=$(ms_since "$t_wait")
  if [ $((i % 2)) = 1 ]; then rollback_run cold "$dep_v1" v1; to=v1; else rollback_run cold "$dep_v2" v2; to=v2; fi
  echo "$run_ms" >> "$work/t_cold"
  printf "  run %d (to %s): %5d ms   (%s; waited %d ms for pid %s to stop)\n" "$i" "$to" "$run_ms" "$run_how" "$waited" "$previous"
  previous=$current; current=$run_pid
done
echo "  median: $(median < "$work/t_cold") ms (target <= 300 ms)"
stop_server
fi

# --- 5. router vs nginx on a plain Node http app ----------------------------------------------------------
# tree PID: the process and its descendants (an app in the sandbox runs under bwrap)
tree() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
# cpu_ticks PID...: CPU time (user + system, clock ticks) the processes have used, all their threads
cpu_ticks() { local t=0 p; for p in "$@"; do t=$(( t + $(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$p/stat") )); done; echo "$t"; }
# wrk_measure LABEL PIDS URL [HOST]: as wrk_run, and appends "rps p99_ms cpu_us_per_request first_us_per_request" to
# $work/m_LABEL: the CPU the processes PIDS (the proxy's: far less noisy than wall time on a shared machine) used per
# request, and the first one's part of it (for Slipway: its server's, beside its edge's)
wrk_measure() {
  local label="$1" pids="$2" c0 c1 f0 f1; shift 2
  # shellcheck disable=SC2086
  c0=$(cpu_ticks $pids); f0=$(cpu_ticks ${pids%% *})
  wrk_run "$label" "$@"
  # shellcheck disable=SC2086
  c1=$(cpu_ticks $pids); f1=$(cpu_ticks ${pids%% *})
  [ "$(cat "$work/last_bad")" = 0 ] || { echo "bench: $label answered errors or non-2xx; its numbers would mean nothing" >&2; exit 1; }
  echo "$(cat "$work/last_rps") $(cat "$work/last_p99") $(per_request $(( c1 - c0 ))) $(per_request $(( f1 - f0 )))" >> "$work/m_$label"
}
per_request() { awk -v c="$1" -v hz="$(getconf CLK_TCK)" -v r="$(cat "$work/last_rps")" -v d="$DURATION" 'BEGIN {printf "%.1f", c * 1e6 / hz / (r * d)}'; }
# warm_listener HOST APPS_PORT SERVER_PID EDGE_PIDS: WARMUP s of load through a server's apps listener, then 5 s more
# at a time until the server uses at most a tenth of the CPU its edge uses (at most WARMUP_MAX s in all). While
# requests are relayed the server takes the edge's request stats and sampled log lines once a second, and its JIT
# goes on compiling that path for a minute or more (measured: the server's CPU per 10 s of relaying fell from 23% of
# the edge's to 8% over 80 s); a server that has run for a while pays none of it.
warm_listener() {
  local host="$1" apps="$2" server="$3" edge="$4" s0 e0 s1 e1 waited="${WARMUP:-20}"
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP:-20}s" -H "Host: $host" "http://127.0.0.1:$apps/" >/dev/null
  while :; do
    # shellcheck disable=SC2086
    s0=$(cpu_ticks "$server"); e0=$(cpu_ticks $edge)
    wrk -t2 -c"$CONNECTIONS" -d5s -H "Host: $host" "http://127.0.0.1:$apps/" >/dev/null
    # shellcheck disable=SC2086
    s1=$(cpu_ticks "$server"); e1=$(cpu_ticks $edge); waited=$((waited + 5))
    if [ $(( (s1 - s0) * 10 )) -le $((e1 - e0)) ] || [ "$waited" -ge "${WARMUP_MAX:-120}" ]; then break; fi
  done
  echo "  warm-up through $host: $waited s; in its last 5 s the server used $(( (s1 - s0) * 100 / (e1 - e0 > 0 ? e1 - e0 : 1) ))% of the CPU its edge used"
}
# deploy_plain: the plain Node app on the current server; sets plain_port, plain_pid, plain_host
deploy_plain() {
  local mig project logs
  mig=$(call POST /v1/migrations "{\"source\":\"zip\",\"upload_id\":\"$(upload "$work/plain.zip")\"}")
  project=$(echo "$mig" | jq -er .data.project_id) || { echo "bench: migration refused: $mig" >&2; exit 1; }
  await_migration "$(echo "$mig" | jq -r .data.id)"
  logs=$(logs_of "$(call GET "/v1/projects/$project" | jq -r .data.production_deployment_id)")
  plain_port=$(log_port "$logs"); plain_pid=$(log_pid "$logs"); app_pids+=("$plain_pid")
  [ -n "$plain_port" ] || { echo "bench: no port in the plain app's log" >&2; exit 1; }
  plain_host="$(call GET "/v1/projects/$project" | jq -r .data.name).localhost:$apps_port"
  await_body "http://127.0.0.1:$apps_port/" "$plain_host" "fixture:node-plain" 30 0.02
}
# ratio A B FIELD: the median over rounds of A's FIELD (1 req/s, 2 p99, 3 CPU) divided by B's, and the rounds'
ratio() {
  paste "$work/m_$1" "$work/m_$2" | awk -v f="$3" '{print $f / $(f + 4)}' > "$work/r"
  printf "%.2fx (rounds: %s)" "$(median < "$work/r")" "$(paste -sd' ' "$work/r" | awk '{for(i=1;i<=NF;i++) printf "%s%.2f", (i>1?" ":""), $i}')"
}
if [ "$PARTS" = all ] || [ "$PARTS" = router ]; then
section "router vs nginx: GET / of a plain Node http app, $ROUNDS rounds of ${DURATION}s; nginx: 1 worker, keep-alive upstream"
plain="$work/src-plain"; rm -rf "$plain"; cp -r "$here/src/test/resources/fixtures/node-plain" "$plain"
(cd "$plain" && zip -q -r -X "$work/plain.zip" .)
# a server whose app runs bare (the same upstream for both proxies), and one whose app runs in its sandbox
ISOLATION=none start_server $((PORT + 4)) $((PORT + 5))
deploy_plain
bare_port=$plain_port; bare_pid=$plain_pid; bare_host=$plain_host; bare_apps=$apps_port
bare_slipway="$server_pid $(pgrep -f "dev.slipway.Main edge --data-dir $data" | tr '\n' ' ')"
other_servers+=("$server_pid"); server_pid=""
start_server $((PORT + 6)) $((PORT + 7))   # ISOLATION (default auto); SLIPWAY_JAVA_OPTS (a JFR recording) reaches both
cell_isolation=$(curl -s "$api/readyz" | jq -r .isolation)
cell_port=""
if [ "$cell_isolation" = sandbox ]; then
  deploy_plain
  cell_port=$plain_port; cell_pid=$plain_pid; cell_host=$plain_host; cell_apps=$apps_port
  cell_slipway="$server_pid $(pgrep -f "dev.slipway.Main edge --data-dir $data" | tr '\n' ' ')"
else
  echo "  no sandbox on this machine (isolation: $cell_isolation): the sandboxed rows are left out"
fi

# nginx: 1 worker, upstream keep-alive, the headers the apps listener adds; one server block in front of the bare
# app, one in front of the sandboxed app's port (its pasta); everything under a temp dir
ngx="$work/nginx"; mkdir -p "$ngx/logs"; NGINX_PORT=$((PORT + 8))
ngx_server() { # ngx_server PORT UPSTREAM
  cat <<NGINX
  upstream $2 { server 127.0.0.1:$3; keepalive 64; }
  server {
    listen 127.0.0.1:$1;
    location / {
      proxy_pass http://$2;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
      proxy_set_header X-Forwarded-Host \$http_host;
      proxy_set_header X-Forwarded-Port \$server_port;
    }
  }
NGINX
}
{
  printf 'worker_processes 1;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/logs/error.log warn;\nevents { worker_connections 4096; }\n' "$ngx" "$ngx"
  printf 'http {\n  access_log off;\n  client_body_temp_path %s/cb; proxy_temp_path %s/p; fastcgi_temp_path %s/f; uwsgi_temp_path %s/u; scgi_temp_path %s/s;\n' \
    "$ngx" "$ngx" "$ngx" "$ngx" "$ngx"
  ngx_server "$NGINX_PORT" bare "$bare_port"
  [ -z "$cell_port" ] || ngx_server $((NGINX_PORT + 1)) cell "$cell_port"
  echo "}"
} > "$ngx/nginx.conf"
nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/logs/error.log" &
extra_pids+=("$!"); nginx_pid=$!
await_body "http://127.0.0.1:$NGINX_PORT/" "$bare_host" "fixture:node-plain" 10 0.05

# warm-up: nginx's pools; the JVMs' JIT, which on a busy 2-core machine takes tens of seconds to compile the
# proxy's path (a server runs for days: the comparison is with its steady state)
wrk -t2 -c"$CONNECTIONS" -d3s -H "Host: $bare_host" "http://127.0.0.1:$NGINX_PORT/" >/dev/null
warm_listener "$bare_host" "$bare_apps" "${bare_slipway%% *}" "${bare_slipway#* }"
if [ -n "$cell_port" ]; then
  wrk -t2 -c"$CONNECTIONS" -d3s -H "Host: $cell_host" "http://127.0.0.1:$((NGINX_PORT + 1))/" >/dev/null
  warm_listener "$cell_host" "$cell_apps" "${cell_slipway%% *}" "${cell_slipway#* }"
fi
rm -f "$work"/m_*
rows=(direct nginx slipway)
[ -z "$cell_port" ] || rows+=(cell_direct cell_nginx cell_slipway)
for r in $(seq 1 "$ROUNDS"); do
  echo "  round $r (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  wrk_measure direct "$(tree "$bare_pid" | tr '\n' ' ')" "http://127.0.0.1:$bare_port/" "$bare_host"
  wrk_measure nginx "$(tree "$nginx_pid" | tr '\n' ' ')" "http://127.0.0.1:$NGINX_PORT/" "$bare_host"
  wrk_measure slipway "$bare_slipway" "http://127.0.0.1:$bare_apps/" "$bare_host"
  if [ -n "$cell_port" ]; then
    wrk_measure cell_direct "$(pgrep '^pas(ta|st)' -d' ')" "http://127.0.0.1:$cell_port/" "$cell_host"
    wrk_measure cell_nginx "$(tree "$nginx_pid" | tr '\n' ' ')" "http://127.0.0.1:$((NGINX_PORT + 1))/" "$cell_host"
    wrk_measure cell_slipway "$cell_slipway" "http://127.0.0.1:$cell_apps/" "$cell_host"
  fi
done
echo "  medians (CPU: the proxy's processes per request; the direct rows: the bare app's, and the sandboxed app's pastas)"
for m in "${rows[@]}"; do
  printf "  %-13s %10.0f req/s   p99 %6.2f ms   CPU %6.1f us/request" "$m" "$(awk '{print $1}' "$work/m_$m" | median)" \
    "$(awk '{print $2}' "$work/m_$m" | median)" "$(awk '{print $3}' "$work/m_$m" | median)"
  case "$m" in *slipway) printf "   (its server's: %.1f)" "$(awk '{print $4}' "$work/m_$m" | median)" ;; esac
  echo
done
echo "  the same upstream, a bare app: Slipway / nginx req/s $(ratio slipway nginx 1) (target >= 1.0),"
echo "    p99 $(ratio slipway nginx 2) (target <= 1.2), CPU per request $(ratio slipway nginx 3)"
if [ -n "$cell_port" ]; then
  echo "  the same upstream, the sandboxed app's port: Slipway / nginx req/s $(ratio cell_slipway cell_nginx 1) (target >= 1.0),"
  echo "    p99 $(ratio cell_slipway cell_nginx 2), CPU per request $(ratio cell_slipway cell_nginx 3)"
  echo "  sandboxed end to end: Slipway with the app in its sandbox / nginx in front of the bare app: req/s $(ratio cell_slipway nginx 1) (target >= 0.9),"
  echo "    p99 $(ratio cell_slipway nginx 2); the sandbox's inbound path alone: direct to its port / direct to the bare app $(ratio cell_direct direct 1)"
fi
echo "  load $(cut -d' ' -f1-3 /proc/loadavg)"
kill "$nginx_pid" 2>/dev/null; wait "$nginx_pid" 2>/dev/null || true
stop_server
for p in "${other_servers[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
other_servers=()
fi
echo "Total $SECONDS s"
