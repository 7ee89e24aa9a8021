#!/bin/sh
# scripts/demo.sh FEEDSCOPE [OUT] - `make demo`: record the bundled example
# training job (examples/train_demo.py, real PyTorch DataLoader) with its
# dataset cold in the page cache, and print what feedscope saw. The dataset
# and the run file go in OUT (default build): OUT/demo-data, OUT/demo.db.
#
# Only the demo's own files leave the cache (examples/evict_cache.py: fsync,
# then posix_fadvise DONTNEED, no root needed); the rest of the machine's page
# cache is left alone.
set -eu
fs=${1:-build/feedscope}
out=${2:-build}
cd "$(dirname "$0")/.."
mkdir -p "$out"
py=/usr/bin/python3
# Generate the dataset first, so the recording is of training only.
$py examples/train_demo.py --data "$out/demo-data" --epochs 0 >/dev/null
$py examples/evict_cache.py "$out/demo-data" >&2 # cold: the first epoch reads from disk
echo "demo: feedscope run -o $out/demo.db -- $py examples/train_demo.py --data $out/demo-data" >&2
exec "$fs" run -f -o "$out/demo.db" -- $py examples/train_demo.py --data "$out/demo-data"
