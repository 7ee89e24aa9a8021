#!/bin/sh
# scripts/deps.sh [build|test] - install the Debian packages feedscope needs,
# only those missing; does nothing (and needs no network) when all are there.
#   build: compiler and libraries (clang, bpftool and libbpf-dev: the job
#          source's BPF path for thread states; libelf and zlib for libbpf;
#          libhdf5-dev: bench generate's hdf5 format)
#   test:  build + what the tests, benchmarks and demo use (PyTorch and
#          torchvision/PIL and iproute2 for the broad scenario suite, h5py to
#          read bench's HDF5 files back, fio,
#          sysstat's iostat/pidstat, dstat, sqlite3 CLI, util-linux losetup,
#          chromium for the HTML report's test, prometheus for the exporter's)
#   fuzz:  build + clang (libFuzzer) for `make fuzz`
set -eu
build_pkgs="gcc make pkg-config libc6-dev libsqlite3-dev liburing-dev libyaml-dev libncurses-dev clang bpftool libbpf-dev libelf-dev zlib1g-dev libhdf5-dev"
test_pkgs="$build_pkgs sqlite3 python3 python3-torch python3-torchvision python3-pil python3-numpy python3-h5py iproute2 fio sysstat dstat util-linux e2fsprogs procps tar libopenmpi-dev openmpi-bin chromium prometheus"

case "${1:-build}" in
build) pkgs=$build_pkgs ;;
test) pkgs=$test_pkgs ;;
fuzz) pkgs="$build_pkgs clang" ;;
*) echo "usage: $0 [build|test|fuzz]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "deps.sh: installing:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: not root; run: sudo apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
	{ apt-get update -qq && apt-get install -y --no-install-recommends $missing; }
