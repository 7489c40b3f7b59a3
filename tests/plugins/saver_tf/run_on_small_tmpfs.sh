#!/bin/sh
# Usage: run_on_small_tmpfs.sh DIR PROGRAM [ARGS...]
# Runs PROGRAM with TGRAPH_SMALL_TMPFS=DIR, a 1 MiB tmpfs mounted on DIR inside a private
# user and mount namespace (no root needed, nothing changes outside). Exits 77 (ctest:
# skipped) where this machine allows no such namespace or mount.
set -u
dir=$1
shift
unshare -rm true 2>/dev/null || { echo "no user/mount namespaces here: skipped"; exit 77; }
exec unshare -rm sh -c '
  dir=$1; shift
  mount -t tmpfs -o size=1m tmpfs "$dir" || { echo "cannot mount a tmpfs: skipped"; exit 77; }
  TGRAPH_SMALL_TMPFS=$dir exec "$@"' sh "$dir" "$@"
