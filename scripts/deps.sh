#!/bin/sh
# scripts/deps.sh [build|test] - install the Debian packages feedscope needs,
# only those missing; does nothing (and needs no network) when all are there.
#   build: compiler and libraries (libmicrohttpd-dev: the exporter's HTTP
#          server; clang, bpftool and libbpf-dev: the job
#          source's BPF path for thread states; libelf and zlib for libbpf;
#          libhdf5-dev: bench generate's hdf5 format)
#   test:  build + what the tests, benchmarks and demo use (PyTorch and
#          torchvision/PIL and iproute2 for the broad scenario suite, h5py to
#          read bench's HDF5 files back, fio,
#          sysstat's iostat/pidstat, dstat, sqlite3 CLI, util-linux losetup,
#          chromium for the HTML report's test, prometheus and curl for the
#          exporter's)
#   fuzz:  build + clang (libFuzzer) for `make fuzz`
#   missing core|build|test: print the set's packages that are not
#          installed (one line, space-separated; empty when none), install
#          nothing: the Makefile's check before it compiles. core is build
#          without the BPF path's (HAVE_BPF=0).
set -eu
core_pkgs="gcc make pkg-config libc6-dev libsqlite3-dev liburing-dev libyaml-dev libncurses-dev libhdf5-dev libmicrohttpd-dev"
build_pkgs="$core_pkgs clang bpftool libbpf-dev libelf-dev zlib1g-dev"
test_pkgs="$build_pkgs sqlite3 python3 python3-torch python3-torchvision python3-pil python3-numpy python3-h5py iproute2 fio sysstat dstat util-linux e2fsprogs procps tar libopenmpi-dev openmpi-bin chromium prometheus curl"

only_list=0
if [ "${1:-}" = missing ]; then
	only_list=1
	shift
	# not a Debian system: nothing to say (the compiler will)
	command -v dpkg-query >/dev/null 2>&1 || exit 0
fi
case "${1:-build}" in
core) pkgs=$core_pkgs ;;
build) pkgs=$build_pkgs ;;
test) pkgs=$test_pkgs ;;
fuzz) pkgs="$build_pkgs clang" ;;
*) echo "usage: $0 [build|test|fuzz] | $0 missing core|build|test" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ $only_list = 1 ]; then
	echo $missing
	exit 0
fi
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
