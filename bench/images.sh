#!/usr/bin/env bash
# Images benchmark: a Dockerfile app and a prebuilt image on a server with the sandbox (run as root), against a
# registry on loopback (Debian's docker-registry) holding a busybox base made here. Prints
#   1. a cold Dockerfile build on the platform (its log: "Copying the source" to "Build finished") divided by the
#      same build by hand (skopeo copy of the base, buildah pull, bud, push to an OCI layout, umoci unpack: what the
#      platform runs, without its cell), fresh storage on both sides (target <= 1.10);
#   2. a code-only rebuild (a file the last stage copies) divided by the cold build: the layer cache (target <= 0.3);
#   3. start to healthy ("Starting" to "App is healthy") of the image app and of the native express fixture:
#      the image's cell against a native one.
# ROUNDS rounds (default 3) of 1 and 2, medians; VERBOSE=1 prints each rebuild's log with its timestamps; BASE_MB=N
# adds N MB of incompressible files to the base image (a language runtime's size; default 0: busybox alone). Needs: root, curl, jq, zip, skopeo, umoci, buildah, uidmap,
# docker-registry, busybox-static, node + npm, a JDK >= 21. Takes about 2 minutes.
set -euo pipefail
ROUNDS="${ROUNDS:-3}"
BASE_MB="${BASE_MB:-0}"
PORT="${BENCH_PORT:-18780}"
# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench: run as root (the sandbox)" >&2; exit 1; }
for tool in skopeo umoci buildah newuidmap docker-registry busybox; do
  command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install skopeo umoci buildah uidmap docker-registry busybox-static)" >&2; exit 1; }
done

"$here/slipway" --version >/dev/null   # builds the jar if needed
prepare_npm_cache
make_app native native

# --- a registry on loopback and a busybox base in it ------------------------------------------------------------
registry_port=$((PORT + 2))
mkdir -p "$work/registry"
cat > "$work/registry/config.yml" <<EOF
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $work/registry/data}}
http: {addr: 127.0.0.1:$registry_port}
EOF
docker-registry serve "$work/registry/config.yml" > "$work/registry/log" 2>&1 &
extra_pids+=($!)
until curl -sf "http://127.0.0.1:$registry_port/v2/" >/dev/null; do sleep 0.05; done
registry="127.0.0.1:$registry_port"
(
  cd "$work" && umoci init --layout base-layout && umoci new --image base-layout:b \
    && umoci unpack --rootless --image base-layout:b base-bundle >/dev/null \
    && mkdir -p base-bundle/rootfs/bin && cp /usr/bin/busybox base-bundle/rootfs/bin/busybox \
    && cp /usr/bin/busybox base-bundle/rootfs/bin/sh \
    && { [ "$BASE_MB" = 0 ] || { mkdir -p base-bundle/rootfs/opt && head -c "${BASE_MB}M" /dev/urandom > base-bundle/rootfs/opt/runtime.bin; }; } \
    && umoci repack --image base-layout:b base-bundle \
    && umoci config --image base-layout:b --config.env PATH=/bin \
    && skopeo copy -q --dest-tls-verify=false oci:base-layout:b "docker://$registry/base/busybox:1"
) || { echo "bench: making the base image failed" >&2; exit 1; }
base="$registry/base/busybox:1"

# make_docker NAME CODE: a two-stage Dockerfile app whose first stage runs a RUN step and whose last copies code.txt
make_docker() {
  local dir="$work/src-$1"
  rm -rf "$dir"; mkdir -p "$dir"
  cat > "$dir/Dockerfile" <<EOF
FROM $base AS build
RUN /bin/busybox mkdir -p /out && /bin/busybox seq 1 20000 > /out/numbers.txt
FROM $base
COPY --from=build /out /www
COPY serve.sh /srv/serve.sh
COPY code.txt /www/code.txt
WORKDIR /srv
CMD ["/bin/busybox", "sh", "serve.sh"]
EOF
  cat > "$dir/serve.sh" <<'EOF'
B=/bin/busybox
$B mkdir -p /tmp/www
$B cat /www/code.txt > /tmp/www/index.html
exec $B httpd -f -p $PORT -h /tmp/www
EOF
  echo "$2" > "$dir/code.txt"
  (cd "$dir" && zip -q -r -X "$work/$1.zip" .)
}

# the platform's storage driver: overlay from Linux 5.11, vfs before
driver=$(awk -F. '{ print ($1 > 5 || ($1 == 5 && $2 >= 11)) ? "overlay" : "vfs" }' /proc/sys/kernel/osrelease)
# by_hand DIR: the platform's steps run directly, as root, on fresh storage; prints ms
by_hand() {
  local dir="$1" t store="$work/hand-$RANDOM"
  mkdir -p "$store"
  t=$(now_us)
  skopeo copy -q --src-tls-verify=false "docker://$base" "oci:$store/bases:image" >/dev/null
  local b=(buildah --root "$store/root" --runroot "$store/run" --storage-driver "$driver")
  id=$(cd "$store" && "${b[@]}" pull -q "oci:bases:image"); "${b[@]}" tag "$id" "$base"
  "${b[@]}" bud -q --pull=never --isolation chroot --layers -f "$dir/Dockerfile" -t hand:latest "$dir" >/dev/null
  "${b[@]}" push -q --disable-compression hand:latest "oci:$store/out:image" >/dev/null
  umoci unpack --rootless --image "$store/out:image" "$store/bundle" >/dev/null
  ms_since "$t"
  rm -rf "$store"
}

start_server "$PORT" $((PORT + 1)) SLIPWAY_IMAGE_INSECURE=true SLIPWAY_ISOLATION=sandbox
echo "Slipway images benchmark: $ROUNDS rounds, base image busybox + $BASE_MB MB, $driver storage, $(nproc) cores, $(buildah --version)"

build_ms() { log_ms "$1" "Copying the source" "Build finished"; }
healthy_ms() { log_ms "$1" "Starting " "App is healthy"; }

section "1-2. Dockerfile builds: cold platform ÷ by hand, code-only rebuild ÷ cold (ms)"
: > "$work/cold_ratio"; : > "$work/cache_ratio"; : > "$work/image_start"
for round in $(seq 1 "$ROUNDS"); do
  make_docker "d$round" "cold $round"
  hand=$(by_hand "$work/src-d$round")
  project=$(call POST /v1/projects "{\"name\":\"img$round\",\"source\":\"zip\"}" | jq -er .data.id)
  dep=$(call POST /v1/deployments "{\"project_id\":\"$project\",\"upload_id\":\"$(upload "$work/d$round.zip")\"}" | jq -er .data.id)
  await_deployment "$dep" live
  logs=$(logs_of "$dep"); cold=$(build_ms "$logs"); healthy_ms "$logs" >> "$work/image_start"
  make_docker "d${round}b" "code change $round"
  dep=$(call POST /v1/deployments "{\"project_id\":\"$project\",\"upload_id\":\"$(upload "$work/d${round}b.zip")\"}" | jq -er .data.id)
  await_deployment "$dep" live
  logs=$(logs_of "$dep"); cached=$(build_ms "$logs"); healthy_ms "$logs" >> "$work/image_start"
  [ "${VERBOSE:-0}" = 1 ] && echo "$logs" | jq -r '.data.logs[] | "    \(.timestamp[11:23]) \(.message[0:150])"'
  echo "$cold $hand" | awk '{printf "%.3f\n", $1/$2}' >> "$work/cold_ratio"
  echo "$cached $cold" | awk '{printf "%.3f\n", $1/$2}' >> "$work/cache_ratio"
  echo "  round $round: cold $cold, by hand $hand, code-only rebuild $cached"
done
echo "  cold ÷ by hand: median $(median < "$work/cold_ratio") (target <= 1.10)"
echo "  rebuild ÷ cold: median $(median < "$work/cache_ratio") (target <= 0.30)"

section "3. start to healthy: an image's cell against a native app's (ms)"
project=$(call POST /v1/projects "{\"name\":\"native\",\"source\":\"zip\",\"framework\":\"node-express\",\"env_vars\":$PROJECT_ENV}" | jq -er .data.id)
: > "$work/native_start"
for round in $(seq 1 "$ROUNDS"); do
  make_app "n$round" "native $round"
  dep=$(call POST /v1/deployments "{\"project_id\":\"$project\",\"upload_id\":\"$(upload "$work/n$round.zip")\"}" | jq -er .data.id)
  await_deployment "$dep" live
  healthy_ms "$(logs_of "$dep")" >> "$work/native_start"
done
image=$(median < "$work/image_start"); native=$(median < "$work/native_start")
echo "  image app: median $image ($(tr '\n' ' ' < "$work/image_start")); native express: median $native ($(tr '\n' ' ' < "$work/native_start"))"
echo "  image ÷ native: $(echo "$image $native" | awk '{printf "%.2f", $1/$2}')"
