#!/usr/bin/env bash
# Builds the jax-runtimes container image offline, when it is missing or stale, and prints its
# tag, last and alone on stdout.
#
#   functions/build-image.sh [--force] [TAG]   # default tag: localhost/jax-runtimes:dev
#   functions/build-image.sh --hash            # the hash an image of the current binary carries
#
# 1. functions/build-static.sh builds the static release binary on the host (no base image, no
#    registry: the image is FROM scratch); cargo makes that a no-op when nothing changed.
# 2. The image carries the label dev.jax-runtimes.binary: a hash of what it is made of (that
#    binary, functions/Dockerfile, functions/image/). An image of TAG with the same hash is up to
#    date and is kept (--force rebuilds it); so an edit that leaves the binary as it was (a test,
#    a comment, a doc) costs no image build.
# 3. Otherwise podman (or docker: the first that answers `info`; CONTAINER_ENGINE=docker|podman
#    picks) builds functions/Dockerfile --target prebuilt from a context holding only that binary
#    and functions/image/: the same layout stage and binary path as the published build.
# 4. The image is run once, as kpt runs functions (`--network none --user nobody`) and with a
#    read-only root filesystem, to show the binary starts in it.
#
# tests/krm_image.rs runs this for the image it tests ($JAX_RUNTIMES_IMAGE, default: the default
# tag above) and checks the label. Podman needs runc and `default_ulimits = []` on these machines
# (tests/run sets that up): see functions/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

force= hash_only=
case ${1:-} in
  --force) force=1; shift ;;
  --hash) hash_only=1; shift ;;
  -*)
    echo "usage: functions/build-image.sh [--force] [TAG] | --hash" >&2
    exit 2
    ;;
esac
tag=${1:-localhost/jax-runtimes:dev}

bin=$(functions/build-static.sh)
# What the image is made of: the binary's bytes, and the Dockerfile and functions/image/ with their paths.
hash=$({ sha256sum "$bin" | cut -d' ' -f1; find functions/Dockerfile functions/image -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } | sha256sum | cut -d' ' -f1)
if [[ -n $hash_only ]]; then
  echo "$hash"
  exit 0
fi

# The engine: one that answers (a docker client without a daemon does not).
engine=${CONTAINER_ENGINE:-}
if [[ -z $engine ]]; then
  for e in podman docker; do
    if command -v $e >/dev/null && $e info >/dev/null 2>&1; then
      engine=$e
      break
    fi
  done
  if [[ -z $engine ]]; then
    echo "build-image.sh: no container engine answers (\`podman info\`, \`docker info\`); Debian: apt-get install -y podman runc (tests/run does it as root)" >&2
    exit 2
  fi
fi

if [[ -z $force && "$("$engine" image inspect --format '{{index .Config.Labels "dev.jax-runtimes.binary"}}' "$tag" 2>/dev/null || true)" == "$hash" ]]; then
  echo "build-image.sh: $tag is up to date (the same binary)" >&2
  echo "$tag"
  exit 0
fi
echo "build-image.sh: building $tag with $engine" >&2
version=$("$bin" --version | cut -d' ' -f2)

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
  --label "dev.jax-runtimes.binary=$hash" \
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
