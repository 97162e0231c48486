#!/usr/bin/env bash
# Relay cost: what one relayed request costs the relay's own threads (apps-relay-*), read from
# com.sun.management.ThreadMXBean around N requests: heap bytes allocated (steady whatever the machine's load)
# and CPU time, user + system (the machine's load shows in it: compare runs made side by side). 4 keep-alive
# clients send wrk's request through the relay to a loopback app answering as Node's http module does; after
# WARMUP requests (the JIT), REQUESTS are measured, in ROUNDS rounds (3). Two relays run side by side, the order
# alternating each round: one counts and logs every request (request metrics and request log, taken each second as
# the server takes them), the other does neither; the last line is the median ratio of their req/s (on / off, the
# goal >= 0.97) and of their CPU per request. Runs RelayCostTest, which also fails above 256 bytes per request.
# Usage: bench/relay-cost.sh [source tree, default this one]; REQUESTS (40000), WARMUP (20000).
set -euo pipefail
tree="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$tree"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
./mvnw -B -q test -Dtest=RelayCostTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Drelay.cost.requests="${REQUESTS:-40000}" -Drelay.cost.warmup="${WARMUP:-20000}" -Drelay.cost.rounds="${ROUNDS:-3}" >/dev/null 2>&1 || echo "RelayCostTest failed (see target/surefire-reports)"
grep -h "relay cost" target/surefire-reports/dev.slipway.router.RelayCostTest-output.txt
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
