# The AU of `feedscope bench` against the analytic value (issue 6: "AU within
# 2 points"), on storage with a known read rate: a loop-mounted ext4 (loop in
# direct-I/O mode) whose reads by the benchmark are limited by a cgroup v1
# blkio read_bps rule (on the disk under the image, else on the loop device),
# the dataset cold (caches dropped, then only the inodes warmed), O_DIRECT
# reads, one accelerator with one reader thread, a fixed computation_time c.
#
# A step needs one batch of B bytes (from the run's own read byte count), so
# in the steady state a step takes max(c, B/R) and
#     AU = c / max(c, B/R)
# DLIO excludes the first step; enough steps are run that the throttle's
# start-up burst and the prefetch queue's filling weigh < 1%.
#   I/O-bound:     c = B/(2R)  ->  AU = 0.50
#   compute-bound: c = 3B/R    ->  AU = 1.00 (prefetch hides every read,
#                                   and a late read or two)
# Loop device, mount, cgroup and rule are undone on every exit (the ledger of
# tests/scenarios/lib.sh, whose helpers this test uses).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd losetup
need_cmd mkfs.ext4
need_cmd findmnt
need_cmd lsblk
need_cmd tac
need_cmd python3
[ -f /sys/fs/cgroup/blkio/cgroup.procs ] || skip "needs the cgroup v1 blkio controller at /sys/fs/cgroup/blkio"
"$FEEDSCOPE" bench --help >/dev/null 2>&1 || fail "feedscope bench --help failed"

# tests/scenarios/lib.sh's helpers (loop_attach, read_limit, cgroup, the
# ledger undone by its EXIT trap) with this test's directory as the run's
export FS_TOP=$FEEDSCOPE_TOP FS_BUILD=$FEEDSCOPE_BUILD FEEDSCOPE
export FS_RUN_DIR=$TEST_TMP/run.$$ FS_SCEN=au
export FS_DATA_IMG=$FS_RUN_DIR/data.img
mkdir -p "$FS_RUN_DIR"
# shellcheck source=/dev/null
. "$FEEDSCOPE_TOP/tests/scenarios/lib.sh"

RATE=10485760        # bytes/s: the read limit
REC=131072           # bytes per sample (one file each, raw: no header)
BATCH=4              # B = 512 KiB: B/R = 0.05 s
STEPS_IO=120         # 6 s at 0.05 s a step
STEPS_CPU=40         # 6 s at 0.15 s a step
FILES=$((STEPS_IO * BATCH))

# workload FILE COMPUTE_S
workload() {
	cat >"$1" <<EOF
model:
  name: au_check
framework: pytorch
workflow:
  generate_data: False
  train: True
  checkpoint: False
dataset:
  format: raw
  num_files_train: $FILES
  num_samples_per_file: 1
  record_length_bytes: $REC
  record_length_bytes_stdev: 0
reader:
  data_loader: pytorch
  batch_size: $BATCH
  read_threads: 1
  prefetch_size: 4
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: 1
  computation_time: $2
metric:
  au: 0.90
EOF
}

# ---- the storage: a private ext4 on a loop device -----------------------
truncate -s 192M "$FS_DATA_IMG"
mkfs.ext4 -q -F "$FS_DATA_IMG" || die "mkfs.ext4"
dev=$(loop_attach "$FS_DATA_IMG") || die "losetup"
DATA=$S/data
mkdir -p "$DATA"
ledger mount "$DATA"
mount "$dev" "$DATA" || die "mount $dev"
DATA_MM=$(majmin "$dev")
D=$DATA/ds

workload "$S/io.yaml" 0.025
workload "$S/cpu.yaml" 0.15
"$FEEDSCOPE" bench generate --config "$S/io.yaml" --dir "$D" --seed 1 >"$S/gen.out" 2>&1 ||
	{ cat "$S/gen.out"; fail "bench generate"; }

cgroup blkio
read_limit bps $RATE
echo "throttle: $RATE B/s on $THROTTLED_MM (loop device $DATA_MM)"

# run NAME YAML STEPS: the benchmark in the throttled cgroup, cold; prints
# "au bytes_per_step"
run() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	find "$D" -type f -exec stat -c %s {} + >/dev/null # inodes warm, data cold
	# shellcheck disable=SC2016,SC2154
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG_blkio" \
		"$FEEDSCOPE" bench --config "$2" --dir "$D" --engine psync --direct --accelerators 1 \
		--steps "$3" --epochs 1 --no-checkpoint --json --quiet --output "$S/$1.db" \
		>"$S/$1.json" 2>"$S/$1.err" || { echo "$1: feedscope bench exited $?" >&2; cat "$S/$1.err" >&2; return 1; }
	python3 - "$S/$1.json" <<'EOF' || { echo "$1: unexpected JSON" >&2; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][0]
steps = j["epochs"][0]["steps"] if isinstance(j.get("epochs"), list) else j["steps"]
print(j["au"], j["read"]["io_bytes"] / steps)
EOF
}

check() { # NAME COMPUTE_S AU BYTES_PER_STEP
	local want
	want=$(awk -v c="$2" -v b="$4" -v r=$RATE 'BEGIN { t = b / r; if (c > t) t = c; printf "%.4f", c / t }')
	echo "$1: c=$2 s, B=$4 bytes/step, B/R=$(awk -v b="$4" -v r=$RATE 'BEGIN { printf "%.4f", b / r }') s: AU measured $3, analytic $want"
	awk -v a="$3" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.02) }' ||
		fail "$1: AU $3 is more than 0.02 from the analytic $want"
}

read -r au bps <<<"$(run io "$S/io.yaml" $STEPS_IO)"
[ -n "$bps" ] || fail "io_bound: no result"
check io_bound 0.025 "$au" "$bps"
awk -v a="$au" 'BEGIN { exit !(a < 0.75) }' || fail "io_bound: AU $au: the throttle did not bite"

read -r au bps <<<"$(run cpu "$S/cpu.yaml" $STEPS_CPU)"
[ -n "$bps" ] || fail "compute_bound: no result"
check compute_bound 0.15 "$au" "$bps"
exit 0
