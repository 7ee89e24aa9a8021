#!/bin/sh
# bench/vs_fio.sh FEEDSCOPE - feedscope's io engines side by side with fio
# (Debian's fio 3.33), same machine, same run, same file system: prints
# feedscope / fio for
#   `feedscope probe`:
#   4 KiB random read IOPS, psync QD1, from the page cache (file read first);
#   4 KiB random read IOPS, io_uring QD32, O_DIRECT;
#   1 MiB sequential read MB/s, io_uring QD16, O_DIRECT (fio run both with
#   its default submission, one request at a time as the probe submits, and
#   with batched submission and completion; fio's better way counts);
#   `feedscope bench` (a training run with no compute time, on a dataset it
#   generated; fio reads the same data file, --readonly):
#   4 KiB random read IOPS, psync, page cache: one file of 65536 4 KiB
#   records, sample_shuffle random, batch 1, one reader thread (DLIO's
#   defaults), the file read just before each run of either tool;
#   4 KiB random read IOPS, psync, uncached (O_DIRECT on both sides);
#   4 KiB random read IOPS, io_uring QD32, O_DIRECT (batches of 512: the
#   reader keeps 32 in flight across a batch's samples);
#   1 MiB sequential read MB/s, psync, uncached (O_DIRECT) and page cache:
#   one file of 256 1 MiB records, no shuffle;
#   the two page-cache figures again with both tools on one CPU (below).
# fio's buffers come from mmap (--mem=mmap), page-aligned as bench's are:
# its default (malloc, not page-aligned without O_DIRECT) copied 1 MiB reads
# out of the page cache at 1.9-2.7 GB/s here, page-aligned ones at 10-13.
# bench's figure is its JSON's read.iops / read.bw_bytes: reads (bytes)
# over the readers' I/O time, the time while at least one reader was
# reading a batch (docs/bench.md), as fio's are over the time its job
# spent on I/O; the pipeline's own rate (hand-overs to the accelerators
# included: one per sample at batch 1) is printed beside it (wall_iops).
# feedscope runs its own command, fio the equivalent job. Figures only,
# nothing asserted.
#
# Where: a scratch directory on the file system of the build directory (the
# root disk's own file system here, ext4 on /dev/vda): no loop device in
# between, which gives fio its best (a loop device adds a layer and a copy
# for both). fio gets --norandommap (feedscope keeps no random map either)
# and --invalidate=0 for the page-cache figure (else fio drops the cache
# first, docs/probe.md); otherwise its defaults (latency statistics on, as
# feedscope keeps its own histograms). As the probe writes its test file
# just before reading it, fio's file is written afresh before each of its
# runs too. Each pair runs ROUNDS times, alternating which goes first. On a
# shared machine (a virtual disk here) one tool's runs of the same job
# spread by a quarter or more, so each side prints its median and its
# lowest-highest run, and the ratio is of the medians, with the lowest and
# highest of the rounds' own ratios beside it (a round's two runs are
# neighbours in time). Every way gets the same number of runs: a best of
# more runs favours the side that has more (fio's two ways once gave it a
# best of 6 against feedscope's 3).
#
# The page cache: this machine kind runs DAMON's reclaim (kdamond: pages
# idle for ~6 s are paged out, 128 MiB/s), so a file read a minute ago is
# not cached now: each page-cache run reads its file just before it starts.
#
#   VS_FIO_SECONDS  seconds per run (default 3)
#   VS_FIO_ROUNDS   rounds (default 5)
#   VS_FIO_SIZE     the test file of the probe's O_DIRECT figures (default 1G)
#   VS_FIO_ONLY     probe or bench: only that half (default both)
set -eu
fs=${1:-build/feedscope}
secs=${VS_FIO_SECONDS:-3}
rounds=${VS_FIO_ROUNDS:-5}
size=${VS_FIO_SIZE:-1G}
only=${VS_FIO_ONLY:-}
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

echo "  (on $(df --output=source,fstype "$scratch" | tail -1 | tr -s ' '), ${secs} s per run, $rounds rounds;"
echo "   fio $(fio --version | sed 's/^fio-//'), $(nproc) cores; median (lowest-highest run))"

# row LABEL UNIT "FS_RUNS" "FIO_RUNS" "WAYS": one value per round in each
# list (0: that run failed); FIO_RUNS holds a list per way of running fio,
# separated by '|', as WAYS names them (by ';'); the way with the better
# median counts, and is named when there is more than one.
row() {
	awk -v l="$1" -v u="$2" -v a="$3" -v b="$4" -v w="$5" -v rounds="$rounds" '
	function sorted(s, v,   n, i, j, t) {
		n = split(s, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n
	}
	function median(s,   v, n) {
		n = sorted(s, v)
		return n == 0 ? 0 : n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function show(s, n,   v, k) {
		k = sorted(s, v)
		if (k < n || v[1] + 0 <= 0)
			return "failed"
		return sprintf("%.1f %s (%.0f-%.0f)", median(s) / d, unit, v[1] / d, v[k] / d)
	}
	BEGIN {
		d = u == "MB/s" ? 1e6 : 1e3; unit = u == "MB/s" ? "MB/s" : "k IOPS"
		n = split(a, x, " ")
		nw = split(b, ways, "|"); split(w, names, ";"); best = 1
		for (i = 2; i <= nw; i++)
			if (median(ways[i]) > median(ways[best]))
				best = i
		b = ways[best]
		fa = show(a, rounds); fb = show(b, rounds)
		if (fa == "failed" || fb == "failed") {
			printf "  %-47s %-26s %-26s %s\n", l, fa, fb, "-"
		} else {
			split(b, y, " "); r = ""
			for (i = 1; i <= n; i++)
				r = r " " x[i] / y[i]
			k = sorted(r, z)
			printf "  %-47s %-26s %-26s %.2f (%.2f-%.2f)\n", l, fa, fb, median(a) / median(b), z[1], z[k]
		}
		if (nw > 1)
			printf "  %-47s fio: %s (better of %d ways)\n", "", names[best] == "" ? "its defaults" : names[best], nw
	}'
}

# fio writes its file as the probe does (fresh, unique data in every 4 KiB
# block, fsync) right before each run: both tools read a file just written.
lay() { # size
	rm -f "$scratch/fio.dat"
	fio --name=lay --filename="$scratch/fio.dat" --size="$1" --rw=write --bs=1M --refill_buffers \
		--end_fsync=1 --output=/dev/null >/dev/null 2>&1
}

# pair LABEL UNIT FS_TEST FS_FIELD "FS_ARGS" FIO_FIELD "FIO_ARGS" SIZE PRE ["WAYS"]
# (WAYS: more ways of running fio, each more fio options, separated by ';';
# each way runs as many times as feedscope, on a file written afresh, and
# the better median counts). A failed run is recorded as 0. Runs each
# ROUNDS times, alternating which goes first, and prints the row.
pair() {
	a='' b=''
	ways=";${10:-}" # the first way: FIO_ARGS alone
	nways=$(printf '%s' "$ways" | awk -F';' '{ print NF }')
	[ -n "${10:-}" ] || nways=1
	for i in $(seq "$rounds"); do
		for who in $( [ $((i % 2)) = 1 ] && echo "fio fs" || echo "fs fio"); do
			if [ "$who" != fio ]; then
				# shellcheck disable=SC2086
				v=$(fs_figure "$3" "$4" --size "$8" $5)
				a="$a ${v:-0}"
				continue
			fi
			for k in $(seq "$nways"); do
				more=$(printf '%s' "$ways" | cut -d';' -f"$k")
				lay "$8"
				[ "$9" = warm ] && cat "$scratch/fio.dat" >/dev/null
				# shellcheck disable=SC2086
				v=$(fio_figure "$6" --size="$8" $7 $more)
				eval "w$k=\"\${w$k:-} ${v:-0}\""
			done
		done
	done
	for k in $(seq "$nways"); do
		eval "b=\"\$b\${b:+|}\$w$k\""
		unset "w$k"
	done
	rm -f "$scratch/fio.dat"
	row "$1" "$2" "$a" "$b" "$ways"
}

# fio's buffers in huge pages too, as the probe's (engine.c, fs_io_buf): only
# from hugetlb pages the administrator reserved; the script reserves none.
shmhuge=''
free_huge=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
[ "${free_huge:-0}" -ge 10 ] && shmhuge=';--mem=shmhuge'

[ "$only" = bench ] || {
printf '  %-47s %-26s %-26s %s\n' "figure" "feedscope probe" "fio" "ratio (rounds)"
pair "4 KiB random read, psync QD1, page cache" IOPS randread iops \
	"--only randread --engine psync --buffered --qd 1" iops \
	"--rw=randread --bs=4k --ioengine=psync --iodepth=1 --direct=0 --invalidate=0" $pc_size warm
pair "4 KiB random read, io_uring QD32, O_DIRECT" IOPS randread_qd32 iops "--only qd32" iops \
	"--rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1" "$size" cold
pair "1 MiB sequential read, io_uring QD16, O_DIRECT" MB/s seq_read bytes_per_s "--only seq" bw_bytes \
	"--rw=read --bs=1M --ioengine=io_uring --iodepth=16 --direct=1" "$size" cold \
	"--iodepth_batch_submit=16 --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=16$shmhuge"
[ -n "$shmhuge" ] || echo "  (fio's buffers are in 4 KiB pages, feedscope's in transparent huge pages:" \
	"fio --mem=shmhuge, its way to huge pages, needs 10 free hugetlb pages, vm.nr_hugepages)"
}
[ "$only" != probe ] || exit 0

# ---- feedscope bench against fio, on bench's own data file ----
bdir=$scratch/bench
mkdir "$bdir"
# bench_cfg NAME RECORD_BYTES SAMPLES SHUFFLE: a DLIO workload file, and its dataset
bench_cfg() {
	cat >"$bdir/$1.yaml" <<EOF
model:
  name: vs_fio_$1
framework: pytorch
workflow:
  train: True
dataset:
  format: indexed_binary
  num_files_train: 1
  num_samples_per_file: $3
  record_length_bytes: $2
reader:
  data_loader: pytorch
  batch_size: 1
  read_threads: 1
  file_shuffle: off
  sample_shuffle: $4
train:
  epochs: 1
  computation_time: 0
EOF
	"$fs" bench generate --config "$bdir/$1.yaml" --dir "$bdir/$1" --quiet >/dev/null 2>&1 ||
		echo "  bench generate $1 failed"
}
bench_cfg r4k 4096 65536 random
bench_cfg s1m 1048576 256 off
# the data file of a dataset: its manifest's file with samples
bench_file() { awk '$1 == "file" && $4 > 0 { print $2; exit }' "$bdir/$1/.feedscope-dataset"; }

# bench's figure: bench_figure NAME FIELD ARGS... prints "X WALL": its
# JSON's jobs[0].read.FIELD and the pipeline's read.wall_iops ($pin: the
# command that runs it on one CPU, or nothing)
pin=
bench_figure() {
	n=$1 field=$2
	shift 2
	# shellcheck disable=SC2086
	$pin "$fs" bench --config "$bdir/$n.yaml" --dir "$bdir/$n" --json --quiet "$@" 2>/dev/null |
		$py -c "import json,sys; r=json.load(sys.stdin)['jobs'][0]['read']; print(r['$field'], r['wall_iops'])" 2>/dev/null ||
		echo "0 0"
}

# bpair LABEL UNIT NAME FIELD "BENCH_ARGS" FIO_FIELD "FIO_ARGS" PRE [PIN]:
# as pair, with fio reading bench's data file (--readonly); PRE warm: the
# file is read just before each run of either tool; PIN: both tools run on
# that one CPU (taskset -c)
bpair() {
	a='' b='' wall=''
	pin=${9:+taskset -c $9}
	f=$bdir/$3/$(bench_file "$3")
	for i in $(seq "$rounds"); do
		for who in $( [ $((i % 2)) = 1 ] && echo "fio fs" || echo "fs fio"); do
			[ "$8" = warm ] && cat "$f" >/dev/null
			if [ "$who" = fs ]; then
				# shellcheck disable=SC2086
				v=$(bench_figure "$3" "$4" $5)
				a="$a ${v% *}" wall="$wall ${v#* }"
			else
				# shellcheck disable=SC2086
				v=$($pin fio --name=vs --filename="$f" --readonly --time_based --runtime="$secs" \
					--mem=mmap --output-format=json $7 2>/dev/null |
					$py -c "import json,sys; r=json.load(sys.stdin)['jobs'][0]['read']; print(r['$6'])" || true)
				b="$b ${v:-0}"
			fi
		done
	done
	row "$1" "$2" "$a" "$b" ""
	echo "$wall" | awk '{ n = split($0, v, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		m = n == 0 ? 0 : n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "  %-47s (bench pipeline, hand-overs included: %.1f k reads/s)\n", "", m / 1e3 }'
}

echo
echo "  feedscope bench (compute time 0, batch 1 unless said) against fio, on the same data file:"
printf '  %-47s %-26s %-26s %s\n' "figure" "bench" "fio" "ratio (rounds)"
bpair "4 KiB random read, psync, page cache" IOPS r4k iops "++workload.train.epochs=4" iops \
	"--rw=randread --bs=4k --ioengine=psync --invalidate=0 --norandommap" warm
bpair "4 KiB random read, psync, O_DIRECT (uncached)" IOPS r4k iops "--direct --steps 16384" iops \
	"--rw=randread --bs=4k --ioengine=psync --direct=1 --norandommap" cold
bpair "4 KiB random read, io_uring QD32, O_DIRECT" IOPS r4k iops \
	"--direct --engine io_uring --qd 32 ++workload.reader.batch_size=512" iops \
	"--rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1 --norandommap" cold
bpair "1 MiB sequential read, psync, O_DIRECT (uncached)" MB/s s1m bw_bytes "--direct ++workload.train.epochs=8" \
	bw_bytes "--rw=read --bs=1M --ioengine=psync --direct=1" cold
bpair "1 MiB sequential read, psync, page cache" MB/s s1m bw_bytes "++workload.train.epochs=24" bw_bytes \
	"--rw=read --bs=1M --ioengine=psync --invalidate=0" warm
# the same two from the page cache, each tool on one CPU (bench's reader and
# accelerator threads share it): on this VM what runs on the other vCPU
# slows this one's copies (fio's 1 MiB page-cache reads on CPU 0 went from
# 12.8 to 4.9-7.9 GB/s beside a process on CPU 1 that only slept 80 us at a
# time), and bench's accelerator thread wakes there at every batch
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
bpair "4 KiB random read, psync, page cache, 1 CPU" IOPS r4k iops "++workload.train.epochs=4" iops \
	"--rw=randread --bs=4k --ioengine=psync --invalidate=0 --norandommap" warm "$cpu"
bpair "1 MiB sequential read, psync, page cache, 1 CPU" MB/s s1m bw_bytes "++workload.train.epochs=24" bw_bytes \
	"--rw=read --bs=1M --ioengine=psync --invalidate=0" warm "$cpu"
