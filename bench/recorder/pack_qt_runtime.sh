#!/usr/bin/env bash
# Packs the shared libraries that BINARY needs beyond the C library (Qt and what it pulls in) into
# OUT.tar.xz, for the GPU machine, which has no Qt: bench/recorder/device_final.sh unpacks it
# into a folder on LD_LIBRARY_PATH.   bench/recorder/pack_qt_runtime.sh BINARY OUT.tar.xz
set -euo pipefail
binary=$1 out=$2
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# The loader, libc, libm, libstdc++ and friends are on every Linux the device runs (Ubuntu 24.04
# has newer ones); only the rest travels.
ldd "$binary" | awk '/=> \// {print $3}' |
  grep -vE '/(ld-linux|libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" "$staging/"; done
tar -C "$staging" -cJf "$out" .
echo "packed $(ls "$staging" | wc -l) libraries into $out ($(du -h "$out" | cut -f1))"
