#!/usr/bin/env bash
# Pipeline benchmark: starts the server on a fresh PostgreSQL database and prints
#   1. API overhead on a deploy: POST /v1/deployments until GET /v1/deployments/{id} says live, minus the
#      engine's own work on it (its log: "Build started" to "App is healthy"); N deploys after one warm-up,
#      each and the median (target <= 300 ms);
#   2. rollback: POST /v1/deployments/{id}/rollback until the first request served by the target through the
#      apps listener, ROLLBACKS times (target <= 1 s);
#   3. GET /v1/deployments?limit=100 with ROWS deployments in the account (one INSERT ... SELECT
#      generate_series, ids and created_at like real ones, spread over PROJECTS projects, then ANALYZE): p50/p90/p99 of REQUESTS requests
#      for the first page and for the page DEEP_PAGES pages deep (its cursor computed with SQL), plus
#      EXPLAIN ANALYZE of the deep page's query (target: deep <= 1.5 x first, both <= 10 ms).
# Builds use one npm cache (BENCH_NPM_CACHE, default ~/.cache/slipway-bench/npm) without the sandbox, and the
# project's own in it (filled by its first build). PostgreSQL: BENCH_POSTGRES_URL (default
# jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres), a user that may create databases.
# Needs: curl, jq, zip, psql, node + npm, a JDK >= 21. Takes about 2 minutes with the defaults (1 of them the INSERT).
set -euo pipefail
N="${N:-5}"
ROLLBACKS="${ROLLBACKS:-3}"
ROWS="${ROWS:-1000000}"
DEEP_PAGES="${DEEP_PAGES:-5000}"
REQUESTS="${REQUESTS:-200}"
PROJECTS="${PROJECTS:-5}"          # the rows spread over this many projects (a page names up to that many)
PORT="${BENCH_PORT:-18680}"        # API port; apps on PORT+1
# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
[ "$N" -ge 2 ] || { echo "bench: N must be at least 2 (the rollback goes back to the deploy before the last)" >&2; exit 1; }
command -v psql >/dev/null || { echo "bench: needs psql (apt-get install postgresql-client)" >&2; exit 1; }

"$here/slipway" --version >/dev/null   # builds the jar if needed
prepare_npm_cache
make_app v1 v1
make_app v2 v2

db="slipway_bench_pipeline_$$"
psql "$(psql_url)" -qc "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
databases+=("$db")
sql() { psql "$(psql_url "$db")" -v ON_ERROR_STOP=1 -X "$@"; }

echo "Slipway pipeline benchmark on PostgreSQL $(psql "$(psql_url)" -Atc 'SHOW server_version'): N=$N, $(nproc) cores"
start_server "$PORT" $((PORT + 1)) SLIPWAY_DATABASE_URL="$(pg_database "$db")"
project_id=$(call POST /v1/projects "{\"name\":\"pipe\",\"source\":\"zip\",\"framework\":\"node-express\",\"env_vars\":$PROJECT_ENV}" | jq -er .data.id)
u1=$(upload "$work/v1.zip"); u2=$(upload "$work/v2.zip")

# --- 1. API overhead on a deploy --------------------------------------------------------------------
# deploy UPLOAD: one timed deploy; sets run_ms, run_dep, run_detail, run_overhead
deploy() {
  local out logs engine
  out=$(node "$here/bench/timing.mjs" deploy "$api" "$key" "{\"project_id\":\"$project_id\",\"upload_id\":\"$1\"}")
  run_ms=$(echo "$out" | jq -r .ms); run_dep=$(echo "$out" | jq -r .id)
  logs=$(logs_of "$run_dep")
  app_pids+=("$(log_pid "$logs")")
  engine=$(log_ms "$logs" "Build started" "App is healthy")
  run_overhead=$(( run_ms - engine ))
  run_detail="POST $(echo "$out" | jq -r .post_ms), queued→build started $(log_ms "$logs" "Deployment queued" "Build started"), engine $engine, healthy→live $(log_ms "$logs" "App is healthy" "Deployment is live"), polls $(echo "$out" | jq -r .polls)"
}

section "API overhead on a deploy: POST /v1/deployments → live, minus the engine's build+start (ms)"
deploy "$u1"; echo "  warm-up: total $run_ms, overhead $run_overhead ($run_detail)"
: > "$work/t_overhead"
deps=()
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) = 1 ]; then deploy "$u2"; else deploy "$u1"; fi
  deps+=("$run_dep")
  echo "$run_overhead" >> "$work/t_overhead"
  printf "  run %d: total %5d   overhead %4d   (%s)\n" "$i" "$run_ms" "$run_overhead" "$run_detail"
done
echo "  median overhead: $(median < "$work/t_overhead") ms (target <= 300 ms)"

# --- 2. rollback ------------------------------------------------------------------------------------
section "rollback: POST /v1/deployments/{id}/rollback → first request served by the target via the router (ms)"
# production is the last deploy; the one before it runs the other version
last=${deps[$((N - 1))]}; before=${deps[$((N - 2))]}
last_marker=$([ $((N % 2)) = 1 ] && echo v2 || echo v1)
before_marker=$([ "$last_marker" = v1 ] && echo v2 || echo v1)
: > "$work/t_rollback"
for i in $(seq 1 "$ROLLBACKS"); do
  if [ $((i % 2)) = 1 ]; then target=$before; marker=$before_marker; else target=$last; marker=$last_marker; fi
  out=$(node "$here/bench/timing.mjs" switch "$api" "$key" "$target" "$apps_port" "pipe.localhost:$apps_port" "express $marker")
  ms=$(echo "$out" | jq -r .ms); rb=$(echo "$out" | jq -r .id)
  await_deployment "$rb" live
  logs=$(logs_of "$rb")
  how=$(echo "$logs" | jq -r 'if any(.data.logs[].message; startswith("Switching to the still-running app")) then "warm" else "cold" end')
  echo "$ms" >> "$work/t_rollback"
  printf "  run %d (to %s): %5d ms   (%s; POST %s, queued→live %s on the server)\n" "$i" "$marker" "$ms" "$how" \
    "$(echo "$out" | jq -r .post_ms)" "$(log_ms "$logs" "Rollback queued" "Deployment is live")"
done
echo "  median: $(median < "$work/t_rollback") ms (target <= 1000 ms)"

# --- 3. deep pagination -----------------------------------------------------------------------------
section "GET /v1/deployments?limit=100 with $ROWS deployments of $PROJECTS projects: first page vs $DEEP_PAGES pages deep"
projects=("$project_id")
for i in $(seq 2 "$PROJECTS"); do
  projects+=("$(call POST /v1/projects "{\"name\":\"pipe-$i\",\"source\":\"zip\"}" | jq -er .data.id)")
done
project_array="ARRAY['$(IFS=,; echo "${projects[*]}" | sed "s/,/','/g")']"
t0=$(now_us)
sql -q <<SQL
-- ids like Ids.next("dep"): 10 base32 characters of the creation millis, 16 random ones
WITH pairs AS (SELECT array_agg(substr(a, i / 32 + 1, 1) || substr(a, i % 32 + 1, 1) ORDER BY i) AS t
               FROM generate_series(0, 1023) i, (VALUES ('0123456789abcdefghjkmnpqrstvwxyz')) v(a)),
     s AS (SELECT g, now() - interval '1 hour' - g * interval '1000037 microseconds' AS at
           FROM generate_series(1, $ROWS) g)
INSERT INTO deployments (id, account_id, project_id, commit_sha, commit_message, branch, status, artifact_id,
                         region, instance_type, build_duration_seconds, created_at, live_at, finished_at)
SELECT 'dep_' || t[((ms >> 40) & 1023)::int + 1] || t[((ms >> 30) & 1023)::int + 1] || t[((ms >> 20) & 1023)::int + 1]
              || t[((ms >> 10) & 1023)::int + 1] || t[(ms & 1023)::int + 1]
              || t[((r1 >> 30) & 1023)::int + 1] || t[((r1 >> 20) & 1023)::int + 1] || t[((r1 >> 10) & 1023)::int + 1]
              || t[(r1 & 1023)::int + 1] || t[((r2 >> 30) & 1023)::int + 1] || t[((r2 >> 20) & 1023)::int + 1]
              || t[((r2 >> 10) & 1023)::int + 1] || t[(r2 & 1023)::int + 1],
       '$account', ($project_array)[1 + g % $PROJECTS], md5(g::text) || substr(md5((-g)::text), 1, 8), 'Commit number ' || g,
       'main', CASE g % 20 WHEN 0 THEN 'failed' WHEN 1 THEN 'rolled_back' ELSE 'live' END, 'art_bench' || g,
       'us-east-1', 'local', 20 + g % 40, at, CASE WHEN g % 20 = 0 THEN NULL ELSE at + interval '40 s' END,
       at + interval '40 s'
FROM s, pairs,
     LATERAL (SELECT floor(extract(epoch FROM s.at) * 1000)::bigint AS ms,
                     (random() * 1099511627775)::bigint AS r1, (random() * 1099511627775)::bigint AS r2) x;
ANALYZE deployments;
SQL
echo "  inserted $ROWS rows and analyzed in $(ms_since "$t0") ms; deployments now $(sql -Atc 'SELECT count(*) FROM deployments')"

# the cursor of the last row of page DEEP_PAGES (api/Cursor.java: base64url("c1|<epoch micros>|<id>"))
row=$(sql -AtF ' ' -c "SELECT (extract(epoch FROM created_at) * 1000000)::bigint, id, created_at FROM deployments
                       WHERE account_id = '$account' ORDER BY created_at DESC, id DESC OFFSET $((DEEP_PAGES * 100 - 1)) LIMIT 1")
read -r micros last_id last_at_date last_at_time <<<"$row"
cursor=$(printf 'c1|%s|%s' "$micros" "$last_id" | base64 -w0 | tr '+/' '-_' | tr -d '=')
expected_first=$(sql -Atc "SELECT id FROM deployments WHERE account_id = '$account'
                           ORDER BY created_at DESC, id DESC OFFSET $((DEEP_PAGES * 100)) LIMIT 1")
first_url="$api/v1/deployments?limit=100"
deep_url="$api/v1/deployments?limit=100&cursor=$cursor"
page=$(call GET "/v1/deployments?limit=100&cursor=$cursor")
[ "$(echo "$page" | jq -r '.data | length')" = 100 ] && [ "$(echo "$page" | jq -r '.data[0].id')" = "$expected_first" ] \
  || { echo "bench: the deep page is not rows $((DEEP_PAGES * 100))..: $(echo "$page" | head -c 300)" >&2; exit 1; }
# the server's own cursors have the same form: page 1's next_cursor is the one of row 99
own=$(call GET "/v1/deployments?limit=100" | jq -r .pagination.next_cursor)
row99=$(sql -AtF '|' -c "SELECT (extract(epoch FROM created_at) * 1000000)::bigint, id FROM deployments
                         WHERE account_id = '$account' ORDER BY created_at DESC, id DESC OFFSET 99 LIMIT 1")
[ "$own" = "$(printf 'c1|%s' "$row99" | base64 -w0 | tr '+/' '-_' | tr -d '=')" ] \
  || { echo "bench: cursor encoding differs from the server's ($own)" >&2; exit 1; }

# latencies URL COUNT: time_total of COUNT requests on one keep-alive connection, in ms, one a line
latencies() {
  local args=() i
  for i in $(seq 1 "$2"); do args+=(-o /dev/null "$1"); done
  curl -sS -H "Authorization: Bearer $key" -w '%{http_code} %{time_total}\n' "${args[@]}" \
    | awk '$1 != 200 {print "bench: HTTP " $1 > "/dev/stderr"; exit 1} {printf "%.3f\n", $2 * 1000}'
}
latencies "$first_url" 50 >/dev/null; latencies "$deep_url" 50 >/dev/null   # warm-up (JIT, prepared statements)
: > "$work/t_first"; : > "$work/t_deep"
block=$(( REQUESTS / 4 > 0 ? REQUESTS / 4 : 1 ))
for _ in 1 2 3 4; do   # alternating blocks, so both see the same noise
  latencies "$first_url" "$block" >> "$work/t_first"
  latencies "$deep_url" "$block" >> "$work/t_deep"
done
stats() { printf "p50 %6.2f ms   p90 %6.2f ms   p99 %6.2f ms   (%d requests)" \
  "$(percentile 50 < "$1")" "$(percentile 90 < "$1")" "$(percentile 99 < "$1")" "$(wc -l < "$1")"; }
printf "  %-24s %s\n" "first page:" "$(stats "$work/t_first")" "page $((DEEP_PAGES + 1)) (rows $((DEEP_PAGES * 100))+):" "$(stats "$work/t_deep")"
awk -v d="$(percentile 50 < "$work/t_deep")" -v f="$(percentile 50 < "$work/t_first")" \
  'BEGIN {printf "  deep / first (p50): %.2f (target <= 1.5, both <= 10 ms)\n", d/f}'

echo "  EXPLAIN ANALYZE of the deep page's query (api/Keyset.java), with its values:"
sql -At <<SQL | sed 's/^/    /'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM deployments
WHERE account_id = '$account' AND (created_at, id) < ('$last_at_date $last_at_time'::timestamptz, '$last_id')
ORDER BY created_at DESC, id DESC LIMIT 101;
SQL
echo "  the same as a generic plan (what a prepared statement may get):"
sql -At <<SQL | grep -v '^SET$\|^PREPARE$' | sed 's/^/    /'
SET plan_cache_mode = force_generic_plan;
PREPARE deep(varchar, timestamptz, varchar, int) AS SELECT * FROM deployments
WHERE account_id = \$1 AND (created_at, id) < (\$2, \$3) ORDER BY created_at DESC, id DESC LIMIT \$4;
EXPLAIN (ANALYZE, BUFFERS) EXECUTE deep('$account', '$last_at_date $last_at_time', '$last_id', 101);
SQL
stop_server
echo "Total $SECONDS s"
