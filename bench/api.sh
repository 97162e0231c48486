#!/usr/bin/env bash
# API benchmark: starts the server on H2 and on PostgreSQL, loads it with wrk (64 connections,
# DURATION seconds per endpoint) and prints requests/s and p50/p99 for
#   GET /healthz, authenticated GET /v1/projects/{id}, GET /v1/projects?limit=100
# plus start-to-ready time and idle resident memory. The baseline is a bare Javalin answering GET /hello with the
# server's Javalin settings and JVM flags (bench/BareJavalin.java), running beside the server: ROUNDS times, wrk loads
# the bare /hello and then the authenticated read, one after the other, so each round's ratio compares two runs a few
# seconds apart on the same machine; it prints each round's ratio of requests/s and of server CPU per request
# (user + system from /proc), and their medians (the goal: read >= 0.6x bare, p99 <= 10 ms).
# Needs: wrk (apt-get install wrk), a JDK >= 21, and for the PostgreSQL run a server reachable at
# BENCH_POSTGRES_URL (default jdbc:postgresql://127.0.0.1:5432/test?user=postgres) whose user may create databases.
# STORES="postgres" runs one store only.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
DURATION="${DURATION:-20}"
WARMUP="${WARMUP:-15}"   # seconds of load per endpoint before measuring
ROUNDS="${ROUNDS:-5}"    # paired rounds of bare /hello and the authenticated read
CONNECTIONS="${CONNECTIONS:-64}"
PORT="${BENCH_PORT:-18480}"
PG_ADMIN="${BENCH_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
command -v wrk >/dev/null || { echo "bench: needs wrk (apt-get install wrk)" >&2; exit 1; }

"$here/slipway" --version >/dev/null   # builds the jar if needed
work="$(mktemp -d /tmp/slipway-bench.XXXXXX)"
server_pid=""
bare_pid=""
BARE_PORT=$((PORT + 10))
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  [ -n "$bare_pid" ] && kill "$bare_pid" 2>/dev/null
  wait 2>/dev/null; rm -rf "$work"
}
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
  echo "$p99" | awk '/us$/ {print $1/1000; next} /ms$/ {print $1+0; next} /s$/ {print $1*1000}' > "$work/last_p99"
}

cpu_ticks() { # user + system clock ticks of a process so far
  awk '{print $14 + $15}' "/proc/$1/stat"
}

cpu_per_request() { # ticks rps: microseconds of CPU per request over a DURATION-second wrk run
  awk -v t="$1" -v r="$2" -v d="$DURATION" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", 1e6 * t / hz / (r * d)}'
}

median() { # of the numbers on stdin
  sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

paired_rounds() { # server_java_pid key id: the read against bare Javalin, ROUNDS times side by side
  local pid="$1" key="$2" id="$3" i c0 c1 bare_rps bare_cpu read_rps read_cpu
  : > "$work/ratios"; : > "$work/cpu_ratios"; : > "$work/read_p99"
  echo "  -- $ROUNDS paired rounds: bare /hello, then the authenticated read"
  for i in $(seq 1 "$ROUNDS"); do
    c0=$(cpu_ticks "$bare_pid"); wrk_run "round $i: bare GET /hello" "http://127.0.0.1:$BARE_PORT/hello"; c1=$(cpu_ticks "$bare_pid")
    bare_rps=$(cat "$work/last_rps")
    bare_cpu=$(cpu_per_request $((c1 - c0)) "$bare_rps")
    c0=$(cpu_ticks "$pid"); wrk_run "round $i: GET /v1/projects/{id}" "http://127.0.0.1:$PORT/v1/projects/$id" "$key"; c1=$(cpu_ticks "$pid")
    read_rps=$(cat "$work/last_rps"); cat "$work/last_p99" >> "$work/read_p99"
    read_cpu=$(cpu_per_request $((c1 - c0)) "$read_rps")
    awk -v a="$read_rps" -v b="$bare_rps" 'BEGIN {printf "%.3f\n", a / b}' >> "$work/ratios"
    awk -v a="$read_cpu" -v b="$bare_cpu" 'BEGIN {printf "%.3f\n", b / a}' >> "$work/cpu_ratios"
    printf "     round %d: read / bare %.2fx; server CPU per request: bare %s us, read %s us\n" "$i" "$(tail -1 "$work/ratios")" "$bare_cpu" "$read_cpu"
  done
  printf "  authenticated read / bare Javalin: median %.2fx over %d rounds (rounds: %s) (goal >= 0.6)\n" \
      "$(median < "$work/ratios")" "$ROUNDS" "$(sort -g "$work/ratios" | tr '\n' ' ' | sed 's/ $//')"
  printf "  bare's CPU per request / the read's: median %.2fx (the same ratio free of wrk's share of the cores)\n" \
      "$(median < "$work/cpu_ratios")"
  printf "  authenticated read p99: median %.1f ms, worst %.1f ms (goal <= 10 ms)\n" \
      "$(median < "$work/read_p99")" "$(sort -g "$work/read_p99" | tail -1)"
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
  local java_pid # the JVM listening on the API port (the launcher may run it as a child)
  java_pid=$(ss -ltnpH "sport = :$PORT" | sed -nE 's/.*pid=([0-9]+).*/\1/p' | head -1)
  [ -d "/proc/${java_pid:-none}" ] || java_pid=$server_pid
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
  paired_rounds "$java_pid" "$key" "$id"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=""
  if [ "$store" = postgres ]; then
    psql "$(psql_url)" -qc "DROP DATABASE IF EXISTS slipway_bench_$$ WITH (FORCE)" >/dev/null
  fi
}

bare_javalin() { # started once, beside every store's server
  local java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
  "$java" -Xms32m -XX:+UseSerialGC -cp "$here/target/slipway.jar" "$here/bench/BareJavalin.java" "$BARE_PORT" > "$work/bare.log" 2>&1 &
  bare_pid=$!
  until curl -sf "http://127.0.0.1:$BARE_PORT/hello" >/dev/null; do
    kill -0 "$bare_pid" 2>/dev/null || { cat "$work/bare.log"; exit 1; }
    sleep 0.05
  done
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" "http://127.0.0.1:$BARE_PORT/hello" >/dev/null
}

echo "Slipway API benchmark: wrk, $CONNECTIONS connections, ${DURATION}s per endpoint, $(nproc) cores"
bare_javalin
for store in ${STORES:-h2 postgres}; do run_store "$store"; done
