#!/usr/bin/env bash
# Builds the jax-runtimes container image offline and prints its tag, last and alone on stdout.
#
#   functions/build-image.sh [TAG]        # default tag: localhost/jax-runtimes:dev
#   functions/build-image.sh --source-hash
#
# 1. functions/build-static.sh builds the static release binary on the host (no base image, no
#    registry: the image is FROM scratch).
# 2. podman (or docker, when that is what the machine has; CONTAINER_ENGINE=docker|podman picks)
#    builds functions/Dockerfile --target prebuilt from a context holding only that binary and
#    functions/image/: the same layout stage and binary path as the published build.
# 3. The image is run once, as kpt runs functions (`--network none --user nobody`) and with a
#    read-only root filesystem, to show the binary starts in it.
#
# The image carries the label dev.jax-runtimes.source: a hash of the files it is built from, which
# --source-hash prints. tests/krm_image.rs compares the two, so it never tests a stale image.
# .ci/run runs this before tests/run; tests/krm_image.rs uses $JAX_RUNTIMES_IMAGE (default: the
# default tag above). Podman needs runc and `default_ulimits = []` on these machines: see
# functions/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The files the image is made from, hashed with their paths.
source_hash() {
  find Cargo.toml Cargo.lock benches/render.rs src catalog functions/Dockerfile functions/build-static.sh functions/image -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

if [[ ${1:-} == --source-hash ]]; then
  source_hash
  exit 0
fi
if [[ ${1:-} == -* ]]; then
  echo "usage: functions/build-image.sh [TAG] | --source-hash" >&2
  exit 2
fi
tag=${1:-localhost/jax-runtimes:dev}

engine=${CONTAINER_ENGINE:-}
if [[ -z $engine ]]; then
  if command -v podman >/dev/null; then
    engine=podman
  elif command -v docker >/dev/null; then
    engine=docker
  else
    echo "build-image.sh: neither podman nor docker is installed (Debian: apt-get install podman runc)" >&2
    exit 2
  fi
fi

bin=$(functions/build-static.sh)
hash=$(source_hash)
version=$("$bin" --version | sed 's/^jax-runtimes //')

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
install -m 0755 "$bin" "$context/jax-runtimes"
mkdir -p "$context/functions/image"
cp -R functions/image/etc "$context/functions/image/"

# The image the tag named before, removed below once the tag has moved (unless something else
# still uses it), so that rebuilding does not pile up untagged 21 MB images.
previous=$("$engine" image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)

# podman keeps every intermediate image for its layer cache; this build needs no cache (two COPY
# steps), so it leaves only the tagged image behind.
cache=()
[[ $engine == podman ]] && cache=(--layers=false)

"$engine" build "${cache[@]}" \
  --file functions/Dockerfile \
  --target prebuilt \
  --label "dev.jax-runtimes.source=$hash" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.title=jax-runtimes" \
  --tag "$tag" \
  "$context" >&2

current=$("$engine" image inspect --format '{{.Id}}' "$tag")
if [[ -n $previous && $previous != "$current" ]]; then
  "$engine" rmi "$previous" >/dev/null 2>&1 || true
fi

"$engine" run --rm --network none --user nobody --read-only --security-opt=no-new-privileges "$tag" --version >&2
echo "$tag"
