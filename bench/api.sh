#!/usr/bin/env bash
# API benchmark: starts the server on H2 and on PostgreSQL, loads it with wrk (64 connections,
# DURATION seconds per endpoint) and prints requests/s and p50/p99 for
#   GET /healthz, authenticated GET /v1/projects/{id}, GET /v1/projects?limit=100
# plus start-to-ready time and idle resident memory; and first, as the baseline, a bare Javalin answering GET /hello
# with the server's Javalin settings and JVM flags (bench/BareJavalin.java), so that the authenticated read prints as
# a ratio of it (the goal: >= 0.6, p99 <= 10 ms).
# Needs: wrk (apt-get install wrk), a JDK >= 21, and for the PostgreSQL run a server reachable at
# BENCH_POSTGRES_URL (default jdbc:postgresql://127.0.0.1:5432/test?user=postgres) whose user may create databases.
# STORES="postgres" runs one store only.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
DURATION="${DURATION:-20}"
WARMUP="${WARMUP:-15}"   # seconds of load per endpoint before measuring
CONNECTIONS="${CONNECTIONS:-64}"
PORT="${BENCH_PORT:-18480}"
PG_ADMIN="${BENCH_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
command -v wrk >/dev/null || { echo "bench: needs wrk (apt-get install wrk)" >&2; exit 1; }

"$here/slipway" --version >/dev/null   # builds the jar if needed
work="$(mktemp -d /tmp/slipway-bench.XXXXXX)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

pg_database() { # jdbc url with the database name replaced
  echo "$PG_ADMIN" | sed -E "s#^(jdbc:postgresql://[^/?]+)(/[^?]*)?#\1/$1#"
}
psql_url() { # the admin JDBC URL as a libpq connection for psql
  local hostport db user
  hostport=$(echo "$PG_ADMIN" | sed -E 's#^jdbc:postgresql://([^/?]+).*#\1#')
  db=$(echo "$PG_ADMIN" | sed -nE 's#^jdbc:postgresql://[^/?]+/([^?]*).*#\1#p')
  user=$(echo "$PG_ADMIN" | sed -nE 's#.*[?&]user=([^&]*).*#\1#p')
  echo "postgresql://${user:-postgres}@${hostport}/${db:-postgres}"
}

wrk_run() { # label url [auth]
  local label="$1" url="$2" out
  if [ -n "${3:-}" ]; then
    out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "Authorization: Bearer $3" "$url")
  else
    out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$url")
  fi
  local rps p50 p99 non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  printf "  %-34s %10s req/s   p50 %8s   p99 %8s   non-2xx %s\n" "$label" "$rps" "$p50" "$p99" "${non2xx:-0}"
  [ -z "$non2xx" ] || echo "  ^ INVALID: $non2xx responses were not 2xx (a 429 or an error page is cheaper than the real answer)"
  echo "$rps" > "$work/last_rps"
}

run_store() { # h2|postgres
  local store="$1" data="$work/$1" url="" env=()
  mkdir -p "$data"
  if [ "$store" = postgres ]; then
    local db="slipway_bench_$$"
    psql "$(psql_url)" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
    url="$(pg_database "$db")"
    env=(SLIPWAY_DATABASE_URL="$url")
  fi
  local t0 t1
  t0=$(date +%s%N)
  env "${env[@]}" SLIPWAY_STOP_APPS_WITH_SERVER=true SLIPWAY_DATA_DIR="$data" "$here/slipway" server --api-port "$PORT" --apps-port $((PORT + 1)) \
      > "$data/server.log" 2>&1 &
  server_pid=$!
  until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do
    kill -0 "$server_pid" 2>/dev/null || { cat "$data/server.log"; exit 1; }
    sleep 0.02
  done
  t1=$(date +%s%N)
  local java_pid
  java_pid=$(pgrep -P "$server_pid" java || echo "$server_pid")
  [ -d "/proc/$java_pid" ] || java_pid=$server_pid
  local account key
  account=$(env "${env[@]}" SLIPWAY_DATA_DIR="$data" "$here/slipway" accounts create --name bench --tier team \
      --rate-limit 100000000 --json | sed -E 's/.*"id":"([^"]+)".*/\1/')
  key=$(env "${env[@]}" SLIPWAY_DATA_DIR="$data" "$here/slipway" keys create --account "$account" --json \
      | sed -E 's/.*"key":"([^"]+)".*/\1/')
  local id=""
  for i in $(seq 1 150); do
    id=$(curl -sf -X POST "http://127.0.0.1:$PORT/v1/projects" -H "Authorization: Bearer $key" \
        -H 'Content-Type: application/json' -d "{\"source\":\"github\",\"repo\":\"bench/app-$i\",\"env_vars\":{\"A\":\"b\"}}" \
        | sed -E 's/.*"id":"([^"]+)".*/\1/')
  done
  sleep 2  # let the JVM settle before reading idle memory
  local rss
  rss=$(awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$java_pid/status")
  echo "== $store: start to ready $(( (t1 - t0) / 1000000 )) ms (process spawn to /readyz 200, includes launcher), idle RSS ${rss} MB"
  # warm-up: on 2 cores the JIT needs 10-20 s of load before the JDBC paths reach steady state
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" "http://127.0.0.1:$PORT/healthz" >/dev/null
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/v1/projects/$id" >/dev/null
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/v1/projects?limit=100" >/dev/null
  wrk_run "GET /healthz" "http://127.0.0.1:$PORT/healthz"
  local health_rps; health_rps=$(cat "$work/last_rps")
  wrk_run "GET /v1/projects/{id} (auth)" "http://127.0.0.1:$PORT/v1/projects/$id" "$key"
  local read_rps; read_rps=$(cat "$work/last_rps")
  wrk_run "GET /v1/projects?limit=100" "http://127.0.0.1:$PORT/v1/projects?limit=100" "$key"
  awk -v a="$read_rps" -v h="$health_rps" 'BEGIN {printf "  authenticated read / healthz throughput: %.0f%%\n", 100*a/h}'
  awk -v a="$read_rps" -v b="$(cat "$work/bare_rps")" 'BEGIN {printf "  authenticated read / bare Javalin: %.2fx (goal >= 0.6)\n", a/b}'
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=""
  if [ "$store" = postgres ]; then
    psql "$(psql_url)" -qc "DROP DATABASE IF EXISTS slipway_bench_$$ WITH (FORCE)" >/dev/null
  fi
}

bare_javalin() {
  local java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
  "$java" -Xms32m -XX:+UseSerialGC -cp "$here/target/slipway.jar" "$here/bench/BareJavalin.java" "$PORT" > "$work/bare.log" 2>&1 &
  server_pid=$!
  until curl -sf "http://127.0.0.1:$PORT/hello" >/dev/null; do
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/bare.log"; exit 1; }
    sleep 0.05
  done
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" "http://127.0.0.1:$PORT/hello" >/dev/null
  echo "== bare Javalin (the baseline)"
  wrk_run "GET /hello" "http://127.0.0.1:$PORT/hello"
  cp "$work/last_rps" "$work/bare_rps"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

echo "Slipway API benchmark: wrk, $CONNECTIONS connections, ${DURATION}s per endpoint, $(nproc) cores"
bare_javalin
for store in ${STORES:-h2 postgres}; do run_store "$store"; done
