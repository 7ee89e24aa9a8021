#!/bin/sh
# bench/vs_fio.sh FEEDSCOPE - feedscope's io engines side by side with fio
# (Debian's fio 3.33), same machine, same run, same file system: prints
# feedscope / fio for
#   4 KiB random read IOPS, psync QD1, from the page cache (file read first);
#   4 KiB random read IOPS, io_uring QD32, O_DIRECT;
#   1 MiB sequential read MB/s, io_uring QD16, O_DIRECT (fio run both with
#   its default submission and with batched submission and completion, as
#   feedscope does for sequential reads; fio's better figure counts).
# feedscope runs its own command (`feedscope probe --only ...`), fio the
# equivalent job. Figures only, nothing asserted.
#
# Where: a scratch directory on the file system of the build directory (the
# root disk's own file system here, ext4 on /dev/vda): no loop device in
# between, which gives fio its best (a loop device adds a layer and a copy
# for both). fio gets --norandommap (feedscope keeps no random map either)
# and --invalidate=0 for the page-cache figure (else fio drops the cache
# first, docs/probe.md); otherwise its defaults (latency statistics on, as
# feedscope keeps its own histograms). As the probe writes its test file
# just before reading it, fio's file is written afresh before each of its
# runs too. Each pair runs ROUNDS times, alternating which goes first, and
# the best of each side is kept: on a shared machine the figures move.
#
#   VS_FIO_SECONDS  seconds per run (default 3)
#   VS_FIO_ROUNDS   rounds (default 3)
#   VS_FIO_SIZE     the test file of the O_DIRECT figures (default 1G)
set -eu
fs=${1:-build/feedscope}
secs=${VS_FIO_SECONDS:-3}
rounds=${VS_FIO_ROUNDS:-3}
size=${VS_FIO_SIZE:-1G}
pc_size=256M
py=/usr/bin/python3

if ! command -v fio >/dev/null 2>&1; then
	echo "  fio is not installed (apt-get install fio): no comparison"
	exit 0
fi
scratch=$(mktemp -d "$(dirname "$fs")/vs_fio.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir "$scratch/probe"
export FEEDSCOPE_PROBE_DB="$scratch/probes.db"

# feedscope's figure: fs_figure TEST FIELD ARGS... (TEST.FIELD of its JSON)
fs_figure() {
	t=$1 field=$2
	shift 2
	"$fs" probe --dir "$scratch/probe" --runtime "$secs" --no-save --json "$@" |
		$py -c "import json,sys; print(json.load(sys.stdin)['$t']['$field'])" || true
}

# fio ARGS... -> read IOPS or read bytes/s ($what)
fio_figure() { # what args...
	what=$1
	shift
	fio --name=vs --filename="$scratch/fio.dat" --time_based --runtime="$secs" --norandommap \
		--output-format=json "$@" 2>/dev/null |
		$py -c "import json,sys; r=json.load(sys.stdin)['jobs'][0]['read']; print(r['$what'])" || true
}

best() { # a b -> the larger
	awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'
}

echo "  (on $(df --output=source,fstype "$scratch" | tail -1 | tr -s ' '), ${secs} s per run, best of $rounds;"
echo "   fio $(fio --version | sed 's/^fio-//'), $(nproc) cores)"
printf '  %-44s %14s %14s %8s\n' "figure" "feedscope" "fio" "ratio"

row() { # label unit fs fio
	awk -v l="$1" -v u="$2" -v a="$3" -v b="$4" 'BEGIN {
		d = u == "MB/s" ? 1e6 : 1e3; s = u == "MB/s" ? "MB/s" : "k IOPS"
		if (a + 0 <= 0 || b + 0 <= 0) {
			x = (a + 0 > 0) ? sprintf("%.1f %s", a / d, s) : "failed"
			y = (b + 0 > 0) ? sprintf("%.1f %s", b / d, s) : "failed"
			printf "  %-44s %14s %14s %8s\n", l, x, y, "-"
			exit
		}
		printf "  %-44s %7.1f %-6s %7.1f %-6s %8.2f\n", l, a / d, s, b / d, s, a / b }'
}

# fio writes its file as the probe does (fresh, unique data in every 4 KiB
# block, fsync) right before each run: both tools read a file just written.
lay() { # size
	rm -f "$scratch/fio.dat"
	fio --name=lay --filename="$scratch/fio.dat" --size="$1" --rw=write --bs=1M --refill_buffers \
		--end_fsync=1 --output=/dev/null >/dev/null 2>&1
}

# pair LABEL UNIT FS_TEST FS_FIELD "FS_ARGS" FIO_FIELD "FIO_ARGS" SIZE PRE ["FIO_ARGS2"]
# (FIO_ARGS2: more fio options for a second fio run per round; fio's best counts)
# Runs both ROUNDS times, alternating which goes first, and prints the row.
pair() {
	a='' b=''
	for i in $(seq "$rounds"); do
		for who in $( [ $((i % 2)) = 1 ] && echo "fio fs" || echo "fs fio"); do
			if [ "$who" = fio ]; then
				lay "$8"
				[ "$9" = warm ] && cat "$scratch/fio.dat" >/dev/null
				# shellcheck disable=SC2086
				b=$(best "$b" "$(fio_figure "$6" --size="$8" $7)")
				if [ -n "${10:-}" ]; then # fio's other way, on a file written afresh
					lay "$8"
					# shellcheck disable=SC2086
					b=$(best "$b" "$(fio_figure "$6" --size="$8" $7 ${10})")
				fi
			else
				# shellcheck disable=SC2086
				a=$(best "$a" "$(fs_figure "$3" "$4" --size "$8" $5)")
			fi
		done
	done
	rm -f "$scratch/fio.dat"
	row "$1" "$2" "$a" "$b"
}

pair "4 KiB random read, psync QD1, page cache" IOPS randread iops \
	"--only randread --engine psync --buffered --qd 1" iops \
	"--rw=randread --bs=4k --ioengine=psync --iodepth=1 --direct=0 --invalidate=0" $pc_size warm
pair "4 KiB random read, io_uring QD32, O_DIRECT" IOPS randread_qd32 iops "--only qd32" iops \
	"--rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1" "$size" cold
pair "1 MiB sequential read, io_uring QD16, O_DIRECT" MB/s seq_read bytes_per_s "--only seq" bw_bytes \
	"--rw=read --bs=1M --ioengine=io_uring --iodepth=16 --direct=1" "$size" cold \
	"--iodepth_batch_submit=16 --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=16"
