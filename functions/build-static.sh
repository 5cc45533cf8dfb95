#!/bin/sh
# Builds the statically linked, stripped release binary of jax-runtimes (the one the container
# image holds) and prints its path, last and alone on stdout; cargo's output goes to stderr.
#
#   functions/build-static.sh                 # target: the host's *-linux-gnu triple
#   JAX_RUNTIMES_TARGET=aarch64-unknown-linux-gnu functions/build-static.sh
#
# glibc is linked in (`-C target-feature=+crt-static`), and so is mimalloc, the allocator: the
# binary needs no loader, libc or certificates, so it runs in an empty (FROM scratch) image.
# Both image builds use this script: functions/build-image.sh on the host, functions/Dockerfile in
# its build stage. With --target, RUSTFLAGS reach only the binary's crates, not build scripts or
# proc macros, which stay dynamic host programs; the output lands in target/TRIPLE/release/.
set -eu
cd "$(dirname "$0")/.."

target=${JAX_RUNTIMES_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
case $target in
  *-linux-gnu*) ;;
  *)
    echo "build-static.sh: target $target is not a *-linux-gnu triple; set JAX_RUNTIMES_TARGET (e.g. x86_64-unknown-linux-gnu)" >&2
    exit 2
    ;;
esac

CARGO_PROFILE_RELEASE_STRIP=symbols RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build --release --locked --target "$target" >&2

bin=${CARGO_TARGET_DIR:-target}/$target/release/jax-runtimes
command -v readelf >/dev/null || { echo "build-static.sh: readelf (binutils) is needed to check that $bin is static" >&2; exit 2; }
# A dynamic binary would fail in the empty image with a bare "no such file or directory".
if readelf -lW "$bin" | grep -q 'program interpreter' || readelf -dW "$bin" | grep -q '(NEEDED)'; then
  echo "build-static.sh: $bin is dynamically linked:" >&2
  readelf -dW "$bin" | grep '(NEEDED)' >&2 || true
  exit 1
fi
echo "$bin"
