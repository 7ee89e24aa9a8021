#!/bin/sh
# scripts/demo.sh FEEDSCOPE - `make demo`: record the bundled example training
# job (examples/train_demo.py, real PyTorch DataLoader) from a cold page cache
# and print what feedscope saw.
set -eu
fs=${1:-build/feedscope}
cd "$(dirname "$0")/.."
mkdir -p build
py=/usr/bin/python3
# Generate the dataset first, so the recording is of training only.
$py examples/train_demo.py --epochs 0 >/dev/null
if [ "$(id -u)" -eq 0 ]; then
	sync
	echo 3 >/proc/sys/vm/drop_caches # cold cache: the first epoch reads from disk
fi
echo "demo: feedscope run -o build/demo.db -- $py examples/train_demo.py" >&2
exec "$fs" run -f -o build/demo.db -- $py examples/train_demo.py
