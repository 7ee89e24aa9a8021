#!/bin/sh
# make bench: print the recorder's own cost (see bench/recorder_cost.py).
set -eu
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/recorder_cost.py "${1:-build/feedscope}" "${BENCH_SECONDS:-20}"
