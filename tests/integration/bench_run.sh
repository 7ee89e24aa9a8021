# `feedscope bench` (the run): a small generated dataset read by each engine
# (psync, io_uring, mmap; and with --direct on a loop-mounted ext4 when
# root), the fio-shaped JSON checked (every sample of every step read once,
# bytes read >= the samples' bytes, AU in [0, 1], percentiles monotone,
# passed = AU >= threshold), the run file's bench rows and `report` on it,
# --find-max-accelerators' trials, and bad input (exit 2, one stderr line,
# nothing written). No timing asserts.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd sqlite3
PY=python3
"$FEEDSCOPE" bench --help >/dev/null 2>&1 || fail "feedscope bench --help failed"

FILES=8 PER=16 REC=32768 BATCH=4 ACC=2 EPOCHS=2
cat >w.yaml <<EOF
model:
  name: runtest
  model_size: 1048576
framework: pytorch
workflow:
  train: True
dataset:
  format: tfrecord
  num_files_train: $FILES
  num_samples_per_file: $PER
  record_length_bytes: $REC
reader:
  data_loader: pytorch
  batch_size: $BATCH
  read_threads: 2
  prefetch_size: 2
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: $EPOCHS
  computation_time: 0.001
metric:
  au: 0.5
EOF
D=$TEST_TMP/data
expect_status 0 "$FEEDSCOPE" bench generate --config w.yaml --dir "$D" --seed 1 >gen.out 2>&1 || cat gen.out

# check_json FILE DIRECT: the document's invariants
check_json() {
	$PY - "$1" "$2" $((FILES * PER)) $REC $BATCH $ACC $EPOCHS <<'EOF'
import json, sys
path, direct, samples, rec, batch, acc, epochs = sys.argv[1], sys.argv[2] == "1", *map(int, sys.argv[3:])
text = open(path).read()
d = json.loads(text)  # exactly one document
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
for k in ("feedscope version", "timestamp", "time", "global options", "jobs", "ranks"):
    check(k in d, "top-level key %r" % k)
o = d["global options"]
for k in ("workload", "dir", "accelerators", "engine", "direct", "qd", "read_threads", "prefetch", "epochs", "seed"):
    check(k in o, "global option %r" % k)
j = d["jobs"][0]
check(j["accelerators"] == acc, "accelerators %s" % j["accelerators"])
steps = samples // (acc * batch)
check(len(j["epochs"]) == epochs, "%d epochs" % len(j["epochs"]))
def lat_ok(r, what):
    l = r["lat_ns"]
    p = [l["percentile"][k] for k in ("50.000000", "90.000000", "99.000000", "99.900000")]
    check(all(a <= b for a, b in zip(p, p[1:])), "%s: percentiles monotone %s" % (what, p))
    check(l["min"] <= l["mean"] <= l["max"], "%s: min <= mean <= max" % what)
for i, e in enumerate(j["epochs"] + [j]):
    w = "epoch %d" % i if i < epochs else "whole run"
    n = 1 if i < epochs else epochs
    check(e["steps"] == steps * n, "%s: %s steps, expected %d" % (w, e["steps"], steps * n))
    check(e["samples"] == steps * acc * batch * n, "%s: %s samples, expected %d" % (w, e["samples"], steps * acc * batch * n))
    r = e["read"]
    check(r["io_bytes"] >= r["sample_bytes"] > 0, "%s: bytes read %s >= samples' bytes %s" % (w, r["io_bytes"], r["sample_bytes"]))
    check(direct or r["io_bytes"] == r["sample_bytes"], "%s: buffered reads read exactly the samples" % w)
    check(r["sample_bytes"] >= r["nominal_bytes"] == e["samples"] * rec, "%s: nominal = samples x record length" % w)
    check(e["au"] is not None and 0 <= e["au"] <= 1, "%s: AU %s in [0, 1]" % (w, e["au"]))
    check(r["total_ios"] >= e["samples"], "%s: a read a sample at least" % w)
    # fio's rates over the readers' I/O time (within the wall time), the pipeline's over the wall time
    check(0 < r["io_s"] <= e["duration_s"], "%s: I/O time %s within the wall time %s" % (w, r["io_s"], e["duration_s"]))
    for rate, n, t in (("iops", "total_ios", "io_s"), ("bw_bytes", "io_bytes", "io_s")):
        check(abs(r[rate] * r[t] - r[n]) <= 1e-6 * r[n], "%s: %s x %s = %s" % (w, rate, t, n))
    for rate, n in (("wall_iops", "total_ios"), ("wall_bw_bytes", "io_bytes")):
        check(abs(r[rate] * e["duration_s"] - r[n]) <= 1e-6 * r[n], "%s: %s x duration_s = %s" % (w, rate, n))
    lat_ok(r, w)
check(j["passed"] == (j["au"] >= j["au_threshold"]), "passed %s, AU %s, threshold %s" % (j["passed"], j["au"], j["au_threshold"]))
check(abs(j["au"] - sum(e["au"] for e in j["epochs"]) / epochs) < 1e-9, "AU is the mean of the epochs'")
# a 1 ms step from the page cache, 4 samples of 32 KiB: sane, not measured
check(j["au"] > 0.05, "AU %s from the page cache is implausibly low" % j["au"])
for b in bad:
    print("BAD", path, b)
sys.exit(1 if bad else 0)
EOF
}

for eng in psync io_uring mmap; do
	# --allow-cache: this small dataset trips the page-cache guard, and "passed" is checked below
	expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --accelerators $ACC --engine $eng --qd 4 --allow-cache \
		--json --output "$eng.db" >"$eng.json" 2>"$eng.err"
	check_json "$eng.json" 0 || fail "$eng: JSON (above)"
	[ "$(q "$eng.db" 'select count(*) from bench')" = $((EPOCHS + 1)) ] || fail "$eng: bench rows"
	[ "$(q "$eng.db" 'select count(*) from bench where epoch = -1')" = 1 ] || fail "$eng: whole-run row"
	[ "$(q "$eng.db" "select value from meta where key = 'mode'")" = bench ] || fail "$eng: meta mode"
	"$FEEDSCOPE" report "$eng.db" >"$eng.report" 2>&1 || fail "$eng: report on the run file"
	grep -q "bench run" "$eng.report" && grep -q runtest "$eng.report" || fail "$eng: report output: $(cat "$eng.report")"
	"$FEEDSCOPE" report --json "$eng.db" | $PY -c 'import json,sys; d=json.load(sys.stdin); assert d["mode"]=="bench" and len(d["bench"])==3' ||
		fail "$eng: report --json"
done

# --checkpoint after training: in the JSON and the run file, files removed
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --epochs 1 --checkpoint --json --output ckpt.db >ckpt.json 2>ckpt.err
$PY -c 'import json; c=json.load(open("ckpt.json"))["checkpoint"]; assert c["bytes"] == 1048576 and c["files"] == 1 and c["write_s"] > 0, c' ||
	fail "--checkpoint JSON: $(cat ckpt.json)"
[ "$(q ckpt.db 'select bytes || " " || files from bench_checkpoint')" = "1048576 1" ] || fail "bench_checkpoint row"
[ -z "$(ls "$D/checkpoints" 2>/dev/null)" ] || fail "checkpoint files left in $D/checkpoints"

# text output: a table and the pass/fail line; nothing on stderr but warnings
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --accelerators $ACC --allow-cache >text.out 2>text.err
grep -q '^epoch' text.out && grep -q '^all' text.out && grep -Eq '^AU .*(PASS|FAIL)' text.out || fail "text output: $(cat text.out)"
grep -Eq '^reads: [0-9.]+k?, [0-9.]+[kM]?/s and .* while the readers read' text.out || fail "text output: no reads line: $(cat text.out)"

# --steps beyond the data: samples read again, said in the JSON
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --steps 40 --epochs 1 --json --quiet >wrap.json
$PY -c 'import json; j=json.load(open("wrap.json"))["jobs"][0]; assert j["samples_reused"] and j["samples"] == 40 * 4' ||
	fail "--steps 40: $(cat wrap.json)"

# --find-max-accelerators: trials, then a result (the data caps the search)
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --epochs 1 --find-max-accelerators >fm.out 2>fm.err
grep -q '^trial: 1 accelerator' fm.out && grep -q '^trial: 2 accelerators' fm.out || fail "find-max trials: $(cat fm.out)"
grep -q 'largest number of accelerators' fm.out || grep -q 'not even 1' fm.out || fail "find-max result: $(cat fm.out)"
grep -q 'at least' fm.out || fail "find-max: the dataset capped the search but the result does not say so"
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --epochs 1 --find-max-accelerators --json >fm.json 2>fm.jerr
$PY -c 'import json,sys; d=json.load(open("fm.json")); assert len(d["jobs"]) >= 2 and "max_accelerators" in d' ||
	fail "find-max JSON"

# --direct: on a loop-mounted ext4 (root), else wherever $TEST_TMP is if it takes O_DIRECT
DD=
if [ "$(id -u)" -eq 0 ] && command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null; then
	IMG=$TEST_TMP/ext4.img MNT=$TEST_TMP/mnt
	truncate -s 64M "$IMG" && mkfs.ext4 -q -F "$IMG" && mkdir -p "$MNT" || fail "mkfs.ext4"
	LOOP=$(losetup -f --show "$IMG") || fail "losetup"
	trap 'umount "$MNT" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null' EXIT
	mount "$LOOP" "$MNT" || fail "mount $LOOP"
	DD=$MNT/data
	expect_status 0 "$FEEDSCOPE" bench generate --config w.yaml --dir "$DD" --seed 1 >gen2.out 2>&1 || cat gen2.out
elif "$FEEDSCOPE" bench --config w.yaml --dir "$D" --direct --epochs 1 --quiet >/dev/null 2>&1; then
	DD=$D
else
	echo "note: --direct not tested (not root, and $TEST_TMP refuses O_DIRECT)"
fi
if [ -n "$DD" ]; then
	for eng in psync io_uring; do
		expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$DD" --accelerators $ACC --engine $eng --direct \
			--json >"direct_$eng.json" 2>"direct_$eng.err"
		check_json "direct_$eng.json" 1 || fail "$eng --direct: JSON (above)"
	done
	expect_status 2 "$FEEDSCOPE" bench --config w.yaml --dir "$DD" --engine mmap --direct 2>/dev/null
fi
# The loop-mounted ext4 is done with: while mounted, the kernel keeps writing
# its image (ext4lazyinit zeroes inode tables in the background), which
# changes the image file under the "nothing changed" snapshots below.
if [ -n "${LOOP:-}" ]; then
	umount "$MNT" && losetup -d "$LOOP" || fail "umount $MNT / losetup -d $LOOP"
	trap - EXIT
	LOOP=
fi

# bad input: exit 2, one line on stderr, nothing on stdout, no run file
bad() {
	local rc
	"$FEEDSCOPE" bench "$@" --output bad.db >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 2 ] || fail "'bench $*' exited $rc, expected 2: $(cat bad.err)"
	[ "$(wc -l <bad.err)" -eq 1 ] || fail "'bench $*': stderr is not one line: $(cat bad.err)"
	[ ! -s bad.out ] || fail "'bench $*' wrote to stdout"
	[ ! -e bad.db ] || fail "'bench $*' wrote a run file"
}
mkdir -p empty
bad --config w.yaml
bad --config w.yaml --dir "$D" --bogus
bad --config w.yaml --dir "$D" --accelerators 0
bad --config w.yaml --dir "$D" --accelerators many
bad --config w.yaml --dir "$D" --engine floppy
bad --config w.yaml --dir "$D" --engine mmap --direct
bad --config w.yaml --dir "$D" --qd
bad --config w.yaml --dir "$D" --scale -2
bad --config w.yaml --dir "$D" --steps 0
bad --config w.yaml --dir "$D" --accelerator-type tpu
bad --config w.yaml --dir "$D" extra
bad --workload imagenet --dir "$D"
bad --workload resnet50 --config w.yaml --dir "$D"
bad --config "$FEEDSCOPE_TOP/tests/bench/yaml/bad_batch.yaml" --dir "$D"
bad --config w.yaml --dir "$TEST_TMP/missing"
bad --config w.yaml --dir empty
grep -q 'feedscope bench generate' bad.err || fail "no-dataset message: $(cat bad.err)"
bad --config w.yaml --dir "$D" --accelerators 100
bad --workload resnet50 --dir "$D" --checkpoint
bad --config "$FEEDSCOPE_TOP/tests/bench/yaml/bad_compute_huge.yaml" --dir "$D"
grep -q "computation_time: '1e300'" bad.err || fail "1e300 seconds: $(cat bad.err)"
bad --config "$FEEDSCOPE_TOP/tests/bench/yaml/bad_deep.yaml" --dir "$D"
bad --config "$FEEDSCOPE_TOP/tests/bench/yaml/bad_size_product.yaml" --dir "$D"
bad --workload resnet50 --scale 1e300 --dir "$D"

# refused_here WHAT ARGS...: exit 2 at once (a hang is killed: exit 124/137),
# one line on stderr, nothing on stdout, and nothing in $TEST_TMP changed
snap() { find "$TEST_TMP" -printf '%p %y %s %m %T@\n' | grep -v -e '/r\.out ' -e '/r\.err ' | sort; }
: >r.out
: >r.err
refused_here() {
	local what=$1 rc before after
	shift
	before=$(snap)
	timeout -k 5 60 "$FEEDSCOPE" bench "$@" >r.out 2>r.err
	rc=$?
	after=$(snap)
	[ $rc -eq 2 ] || fail "$what: exit $rc, expected 2 (124/137: it hung): $(cat r.err)"
	[ "$(wc -l <r.err)" -eq 1 ] || fail "$what: stderr is not one line: $(cat r.err)"
	[ ! -s r.out ] || fail "$what: wrote to stdout: $(cat r.out)"
	[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "$what: something changed"; }
	echo "refused ($what): $(cat r.err)"
}
# --output that cannot be created: refused before the benchmark reads anything
refused_here "--output in a missing directory" --config w.yaml --dir "$D" --output "$TEST_TMP/nodir/run.db"
grep -q 'nodir/run.db' r.err || fail "--output message: $(cat r.err)"
refused_here "--output in /proc" --config w.yaml --dir "$D" --output /proc/feedscope-run.db
refused_here "--output is a directory" --config w.yaml --dir "$D" --output "$D"
# a FIFO, a symlink, a device, another size planted in the dataset: refused
# up front, never opened for reading, never followed
P=$TEST_TMP/planted
expect_status 0 "$FEEDSCOPE" bench generate --config w.yaml --dir "$P" --seed 1 >/dev/null 2>&1
victim=$P/train/img_3_of_8.tfrecord
cp "$victim" "$TEST_TMP/outside.tfrecord"
rm "$victim" && mkfifo "$victim"
refused_here "a FIFO in the dataset" --config w.yaml --dir "$P" --output fifo.db
grep -q 'a FIFO' r.err || fail "FIFO message: $(cat r.err)"
refused_here "a FIFO in the dataset, --direct" --config w.yaml --dir "$P" --direct
rm "$victim" && ln -s "$TEST_TMP/outside.tfrecord" "$victim"
refused_here "a symlink in the dataset" --config w.yaml --dir "$P"
grep -q 'symlink' r.err || fail "symlink message: $(cat r.err)"
rm "$victim" && ln -s /dev/zero "$victim"
refused_here "a symlink to a device in the dataset" --config w.yaml --dir "$P"
if [ "$(id -u)" -eq 0 ]; then
	rm "$victim" && mknod "$victim" c 1 5 # /dev/zero's numbers
	refused_here "a device node in the dataset" --config w.yaml --dir "$P"
	grep -q 'a device' r.err || fail "device message: $(cat r.err)"
fi
rm "$victim" && head -c 1000 "$TEST_TMP/outside.tfrecord" >"$victim"
refused_here "a file of another size" --config w.yaml --dir "$P"
grep -q 'the manifest says' r.err || fail "size message: $(cat r.err)"
mv "$TEST_TMP/outside.tfrecord" "$victim"
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$P" --epochs 1 --quiet >/dev/null
# a checkpoint that cannot be written: refused before training (as root: a
# read-only file system)
if [ "$(id -u)" -eq 0 ]; then
	RO=$TEST_TMP/ro
	mkdir "$RO" && mount -t tmpfs -o size=8m feedscope-ro "$RO" || fail "mount tmpfs"
	trap 'umount "$RO" 2>/dev/null; umount "${MNT:-/nonexistent}" 2>/dev/null; [ -n "${LOOP:-}" ] && losetup -d "$LOOP" 2>/dev/null' EXIT
	expect_status 0 "$FEEDSCOPE" bench generate --config w.yaml --dir "$RO/d" --seed 1 >/dev/null 2>&1
	mount -o remount,ro "$RO" || fail "remount ro"
	refused_here "a checkpoint on a read-only file system" --config w.yaml --dir "$RO/d" --checkpoint
	umount "$RO"
fi

touch exists.db
"$FEEDSCOPE" bench --config w.yaml --dir "$D" --output exists.db >/dev/null 2>&1
[ $? -eq 2 ] || fail "an existing --output file is not refused"
[ ! -s exists.db ] || fail "an existing --output file was written"

# SIGTERM mid-run (Ctrl-C alike): the run stops, prints the figures of what
# ran (interrupted: true, the epoch cut short, no further epoch), writes the
# run file, and exits 128 + 15.
"$FEEDSCOPE" bench --config w.yaml --dir "$D" --steps 1000000 --epochs 3 --json --output int.db >int.json 2>int.err &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "bench after SIGTERM exited $rc, expected 143 ($(cat int.err))"
/usr/bin/python3 - <<'PY' || fail "interrupted JSON"
import json
d = json.load(open("int.json"))
j = d["jobs"][0]
assert j["interrupted"] is True, j["interrupted"]
assert len(j["epochs"]) == 1, len(j["epochs"])
assert 0 < j["epochs"][0]["steps"] < 1000000, j["epochs"][0]["steps"]
assert j["samples"] > 0
PY
[ "$(q int.db "SELECT count(*) FROM bench")" = 2 ] || fail "interrupted run file: $(q int.db "SELECT * FROM bench")"

# one SIGINT (Ctrl-C) is enough: never swallowed. (A background job of a
# script starts with SIGINT ignored, which bench keeps: start it with the
# default disposition, as a terminal's job has.) A run still going a minute
# after the signal swallowed it: killed, and a failure.
$PY -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
	"$FEEDSCOPE" bench --config w.yaml --dir "$D" --steps 1000000 --epochs 3 --quiet >sigint.out 2>&1 &
pid=$!
# once its threads run (its handler is in place long before)
for _ in $(seq 300); do [ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -gt 2 ] && break; sleep 0.1; done
kill -INT $pid
for _ in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "bench still running a minute after one SIGINT"; }
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "bench after one SIGINT exited $rc, expected 130: $(cat sigint.out)"
grep -q 'interrupted by signal 2' sigint.out || fail "SIGINT: $(cat sigint.out)"

expect_status 0 "$FEEDSCOPE" bench clean --dir "$D" >/dev/null
exit 0
