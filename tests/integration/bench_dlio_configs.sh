# Every DLIO / MLPerf Storage workload config in tests/fixtures/dlio/
# (written from DLIO's documented keys) and every preset loads and runs at a
# small --scale (generate, then bench: exit 0), or is refused with exit 2 and
# a message naming the key; the keys feedscope honours change what happens:
# output.metric exclude_*_steps the steps in the AU window (compute_s / the
# fixed computation_time), num_subfolders_train the folders, the checkpoint
# schedule the number of checkpoints, record_dims the sample size, --scale
# the samples of a one-file dataset, workflow.generate_data makes `bench`
# write the dataset; unknown keys warn once and --quiet silences them.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd python3
FX=$FEEDSCOPE_TOP/tests/fixtures/dlio
F=$FEEDSCOPE
[ -d "$FX" ] || fail "no $FX"

# small samples and short steps for every run: the I/O path is the same,
# the test stays short on a 2-core machine
SMALL="++workload.dataset.record_length_bytes=65536 ++workload.dataset.record_length_bytes_stdev=0"
FAST="++workload.train.computation_time=0.002"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# ok NAME SCALE STEPS [OVERRIDES...]: generate (unless the dataset is there) and run
ok() {
	name=$1 scale=$2 steps=$3
	shift 3
	d=$TEST_TMP/d-$name
	if [ ! -f "$d/.feedscope-dataset" ]; then
		"$F" bench generate --config "$FX/$name.yaml" --dir "$d" --scale "$scale" --threads 1 --quiet "$@" \
			>gen.out 2>gen.err || fail "$name: generate exited $? ($(cat gen.err))"
	fi
	"$F" bench --config "$FX/$name.yaml" --dir "$d" --scale "$scale" --steps "$steps" --json --quiet "$@" \
		>"$name.json" 2>run.err || fail "$name: bench exited $? ($(cat run.err))"
	[ ! -s run.err ] || fail "$name: --quiet printed: $(cat run.err)"
	accepted=$((accepted + 1))
}

# refused NAME KEY [ARGS...]: exit 2 before anything is written, the message names KEY
refused() {
	name=$1 key=$2
	shift 2
	d=$TEST_TMP/r-$name
	"$F" bench --config "$FX/$name.yaml" --dir "$d" --scale 0.001 "$@" >out 2>err
	rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, not 2 ($(cat err))"
	grep -q -- "$key" err || fail "$name: the refusal does not name $key: $(cat err)"
	[ ! -e "$d" ] || fail "$name: a refused run made $d"
	[ -n "$BADVALUE" ] || refusals="$refusals $name($key)"
}

accepted=0 refusals=
n=$(ls "$FX"/*.yaml | wc -l)

# ---- the datagen configs generate through `bench` itself and exit 0 ----
for w in unet3d resnet50 cosmoflow; do
	case $w in unet3d) s=0.03 ;; resnet50) s=0.002 ;; cosmoflow) s=0.00002 ;; esac
	d=$TEST_TMP/d-${w}_h100
	"$F" bench --config "$FX/${w}_datagen.yaml" --dir "$d" --scale $s --quiet $SMALL >out 2>err ||
		fail "${w}_datagen: bench exited $? ($(cat err))"
	[ -f "$d/.feedscope-dataset" ] || fail "${w}_datagen: no dataset in $d"
	grep -q "generated" out || fail "${w}_datagen: no word of the generation: $(cat out)"
	accepted=$((accepted + 1))
done
# ... and the training configs read what they wrote
ok unet3d_h100 0.03 2 $SMALL $FAST
ok unet3d_a100 0.03 2 $SMALL $FAST
ok resnet50_h100 0.002 2 $SMALL $FAST ++workload.reader.batch_size=4
ok resnet50_a100 0.002 2 $SMALL $FAST ++workload.reader.batch_size=4
ok cosmoflow_h100 0.00002 4 $SMALL
ok cosmoflow_a100 0.00002 4 $SMALL

# ---- one huge file: --scale shrinks its samples (DLIO's indexed names) ----
ok dlrm 0.000002 2 ++workload.dataset.record_length_bytes=4096 ++workload.reader.batch_size=16 $FAST
grep -qx "samples_per_file 8390" "$TEST_TMP/d-dlrm/.feedscope-dataset" ||
	fail "dlrm at --scale 2e-6: not 4195198976 x 2e-6 = 8390 samples in its file"
grep -qx "format indexed" "$TEST_TMP/d-dlrm/.feedscope-dataset" || fail "dlrm: indexed_binary is not indexed"
ok megatron_deepspeed 0.000001 3 ++workload.reader.batch_size=16 ++workload.train.epochs=1 $FAST
ok bert_v100 0.00001 4 $FAST ++workload.checkpoint.steps_between_checkpoints=2 \
	++workload.model.model_size_bytes=1048576
# (overrides come before --scale: a checkpoint is model_size x scale)
[ "$(json bert_v100.json 'd["checkpoint"]["bytes"]')" = $((2 * 10)) ] ||
	fail "bert: steps_between_checkpoints 2 over 4 steps is 2 checkpoints of 1 MiB x 1e-5: $(json bert_v100.json 'd["checkpoint"]')"

# ---- checkpointing only: num_checkpoints_write (time_between shortened) ----
ok_ckpt() {
	"$F" bench --config "$FX/llama3_8b_checkpoint.yaml" --dir "$TEST_TMP/ck" --scale 0.00001 --json --quiet "$@" \
		>ck.json 2>err || fail "llama3_8b_checkpoint: exit $? ($(cat err))"
}
ok_ckpt ++workload.checkpoint.time_between_checkpoints=0.05 ++workload.checkpoint.num_checkpoints_write=3 \
	++workload.checkpoint.num_checkpoints_read=3
one=$(json ck.json 'd["checkpoint"]["bytes"]')
ok_ckpt ++workload.checkpoint.time_between_checkpoints=0.05 ++workload.checkpoint.num_checkpoints_write=1 \
	++workload.checkpoint.num_checkpoints_read=1
[ "$one" -eq $((3 * $(json ck.json 'd["checkpoint"]["bytes"]'))) ] ||
	fail "llama3_8b_checkpoint: 3 checkpoints wrote $one bytes, not 3 x $(json ck.json 'd["checkpoint"]["bytes"]')"
accepted=$((accepted + 1))
BADVALUE=1 refused llama3_8b_checkpoint num_checkpoints_read ++workload.checkpoint.num_checkpoints_read=2

# ---- generate_data + train + checkpoint in one `bench` ----
d=$TEST_TMP/d-llama_8b_zero3
"$F" bench --config "$FX/llama_8b_zero3.yaml" --dir "$d" --scale 0.0001 --json --quiet $FAST \
	++workload.model.model_size=65536 ++workload.model.num_layers=0 >z.json 2>err ||
	fail "llama_8b_zero3: exit $? ($(cat err))"
[ "$(json z.json 'd["checkpoint"]["bytes"]')" = $((5 * 7)) ] ||
	fail "llama_8b_zero3: 5 steps, a checkpoint each: $(json z.json 'd.get("checkpoint")')"
accepted=$((accepted + 1))

# ---- llama_1t: a 1.33e12-parameter transformer, a 16.9 TiB checkpoint ----
# too big for the disk: refused (exit 2) before the dataset or anything else
# is written, the message naming the keys and a --scale that fits (at
# --scale 1000 where a disk could hold 17.7 TiB: no disk holds 17 PiB)
s=1
[ "$(df --output=avail -B1 "$TEST_TMP" | tail -1)" -lt 19000000000000 ] || s=1000
d=$TEST_TMP/d-llama_1t
"$F" bench --config "$FX/llama_1t.yaml" --dir "$d" --scale $s --quiet >out 2>err
rc=$?
[ "$rc" -eq 2 ] || fail "llama_1t at --scale $s: exit $rc, not 2 ($(cat err))"
for k in "model.num_layers 128" "hidden_size 25872" "ffn_hidden_size 98304" "vocab_size 128256" \
	"cannot be written in --dir" "or less fits it"; do
	grep -q -- "$k" err || fail "llama_1t: the refusal does not say '$k': $(cat err)"
done
[ ! -e "$d" ] || fail "llama_1t: the refused run wrote $(find "$d" | head -5)"
fits=$(sed -n 's/.*--scale \([0-9.e+-]*\) or less fits it.*/\1/p' err)
[ -n "$fits" ] || fail "llama_1t: no scale in: $(cat err)"
# ... and at a small --scale: DLIO's default dataset (no dataset section)
# generated and read, then one checkpoint (checkpoint_after_epoch 1 of 1
# epoch; num_checkpoints_write is for checkpoint-only runs, as in DLIO)
"$F" bench --config "$FX/llama_1t.yaml" --dir "$d" --scale 0.000001 --json --quiet >l1t.json 2>err ||
	fail "llama_1t at --scale 1e-6: exit $? ($(cat err))"
[ ! -s err ] || fail "llama_1t: --quiet printed: $(cat err)"
json l1t.json '(d["checkpoint"]["files"], d["jobs"][0]["samples"])' | grep -qx "(1, 1)" ||
	fail "llama_1t: not one checkpoint and one sample: $(json l1t.json 'd.get("checkpoint")')"
ck1=$(json l1t.json 'd["checkpoint"]["bytes"]')
# the message's scale is what fits: its checkpoint is ck1 x (fits / 1e-6), checked against the free space
python3 - "$ck1" "$fits" "$(df --output=avail -B1 "$TEST_TMP" | tail -1)" <<'EOF' || fail "llama_1t: --scale $fits does not fit"
import sys
ck, fits, avail = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
assert 1.5e13 < ck / 1e-6 < 2e13, ck          # 16.9 TiB at --scale 1
assert ck / 1e-6 * fits * 1.05 < avail, (ck, fits, avail)
EOF
[ -z "$(ls "$d/checkpoints" 2>/dev/null)" ] || fail "llama_1t: checkpoint files left in $d/checkpoints"
accepted=$((accepted + 1))

# ---- pt_custom_checkpoint: a checkpoint after each of 5 epochs; its Python
# checkpointing class is not loaded, said once (quiet: not at all) ----
ok pt_custom_checkpoint 1 4 $FAST
[ "$(json pt_custom_checkpoint.json 'd["checkpoint"]["bytes"]')" = $((5 * 4096)) ] ||
	fail "pt_custom_checkpoint: 5 checkpoints of model_size 4096: $(json pt_custom_checkpoint.json 'd.get("checkpoint")')"
"$F" bench --config "$FX/pt_custom_checkpoint.yaml" --dir "$TEST_TMP/d-pt_custom_checkpoint" --steps 2 --epochs 1 \
	$FAST >/dev/null 2>err || fail "pt_custom_checkpoint: $(cat err)"
[ "$(grep -c "checkpoint.checkpoint_mechanism_classname 'dlio_benchmark.plugins.experimental.src.checkpoint.pytorch_checkpointing.CustomPyTorchCheckpointing' is not used" err)" -eq 1 ] ||
	fail "pt_custom_checkpoint: the class is not said to be unused, once: $(cat err)"

# ---- png, subfolders and the AU window ----
ok image_png 1 8
[ "$(find "$TEST_TMP/d-image_png/train" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 4 ] ||
	fail "image_png: num_subfolders_train 4 did not make 4 folders: $(ls "$TEST_TMP/d-image_png/train")"
[ "$(find "$TEST_TMP/d-image_png/train/1" -name '*.png' | wc -l)" -eq 16 ] || fail "image_png: not 16 files in train/1"
python3 - "$TEST_TMP/d-image_png/train/0/img_00_of_64.png" <<'EOF' || fail "image_png: not a PNG zlib decodes"
import sys, zlib, struct
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(b):
    n, t = struct.unpack(">I4s", b[pos:pos + 8])
    data = b[pos + 8:pos + 8 + n]
    assert struct.unpack(">I", b[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(t + data), "chunk CRC"
    if t == b"IHDR": w, h = struct.unpack(">II", data[:8])
    if t == b"IDAT": idat += data
    pos += 12 + n
assert len(zlib.decompress(idat)) == h * (w + 1) and w == 256
EOF
window() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(round(d['jobs'][0]['compute_s'] / 0.005))" "$1"; }
[ "$(window image_png.json)" -eq 5 ] || fail "image_png: exclude_start_steps 2, exclude_end_steps 1 of 8 steps: window $(window image_png.json), not 5"
"$F" bench --config "$FX/image_png.yaml" --dir "$TEST_TMP/d-image_png" --steps 8 --json --quiet \
	++workload.output.metric.exclude_start_steps=1 ++workload.output.metric.exclude_end_steps=0 >w2.json 2>err ||
	fail "image_png (window 1, 0): $(cat err)"
[ "$(window w2.json)" -eq 7 ] || fail "image_png: DLIO's default window of 8 steps is 7, not $(window w2.json)"
"$F" bench clean --dir "$TEST_TMP/d-image_png" >/dev/null 2>err || fail "clean of a dataset in subfolders: $(cat err)"
[ ! -e "$TEST_TMP/d-image_png" ] || fail "clean left $(find "$TEST_TMP/d-image_png")"

# ---- csv: record_dims x record_element_bytes is the row ----
ok tabular_csv 1 4
grep -qx "record_length_bytes 4096" "$TEST_TMP/d-tabular_csv/.feedscope-dataset" || fail "csv: [64, 16] x 4 bytes is not 4096"
python3 - "$TEST_TMP/d-tabular_csv/train/img_00_of_16.csv" <<'EOF' || fail "tabular_csv: not 32 rows of 4096 bytes that csv reads"
import csv, sys
rows = open(sys.argv[1], newline="").read().split("\n")[:-1]
assert len(rows) == 32 and all(len(r) == 4095 for r in rows)
assert all(all(f.isdigit() for f in r) for r in csv.reader(open(sys.argv[1], newline="")))
EOF

# ---- hdf5 through libhdf5: h5py (Debian's, /usr/bin/python3) reads each record where the manifest says ----
ok hdf5_records 1 4
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import h5py" 2>/dev/null || fail "needs python3-h5py (scripts/deps.sh test)"
/usr/bin/python3 - "$TEST_TMP/d-hdf5_records" <<'EOF' || fail "hdf5_records: the files are not HDF5 whose records are the manifest's ranges"
import h5py, sys
d = sys.argv[1]
lines = open(d + "/.feedscope-dataset").read().split("\n")
assert "record_length_bytes 16384" in lines  # [64, 64] x float32
files = [l.split() for l in lines if l.startswith("file ")]
assert len(files) == 8
for _, path, size, nrec in files:
    raw = open(d + "/" + path, "rb").read()
    f = h5py.File(d + "/" + path, "r")
    r = f["records"]
    assert r.shape == (8, 16384) and len(raw) == int(size) and f["labels"].shape == (8,)
    at = r.id.get_offset()
    assert all(bytes(r[k]) == raw[at + k * 16384:at + (k + 1) * 16384] for k in range(8))
EOF

# ---- what is refused, by name ----
refused unet3d_h100_s3 storage.storage_type
refused cosmoflow_hdf5 hdf5.num_dset_per_record
refused in_memory reader.read_type
refused shared_file reader.file_access
refused synthetic dataset.format
"$F" bench generate --config "$FX/synthetic.yaml" --dir "$TEST_TMP/syn" >out 2>&1 || fail "synthetic: generate exited $?"
grep -q "nothing to generate" out || fail "synthetic: generate said $(cat out)"
BADVALUE=1 refused unet3d_h100 "exclude_start_steps" ++workload.output.metric.exclude_start_steps=x

# ---- overrides: a count, and a bad one ----
"$F" bench generate --config "$FX/unet3d_h100.yaml" --dir "$TEST_TMP/ov" $SMALL ++workload.dataset.num_files_train=3 \
	--quiet >/dev/null 2>err || fail "override: $(cat err)"
[ "$(find "$TEST_TMP/ov/train" -name '*.npz' | wc -l)" -eq 3 ] || fail "++workload.dataset.num_files_train=3 did not make 3 files"
"$F" bench generate --config "$FX/unet3d_h100.yaml" --dir "$TEST_TMP/ov2" dataset.num_files_train=3 >/dev/null 2>err
[ $? -eq 2 ] && grep -q "override" err || fail "a bare KEY=VALUE was not refused as an override: $(cat err)"

# ---- unknown keys: one warning each; --quiet: none ----
sed 's/^  read_threads: 4$/  read_threads: 4\n  turbo: 1\n  warp: 2/' "$FX/unet3d_h100.yaml" >unk.yaml
"$F" bench generate --config unk.yaml --dir "$TEST_TMP/unk" $SMALL ++workload.dataset.num_files_train=1 >/dev/null 2>err ||
	fail "unknown keys: $(cat err)"
[ "$(grep -c "unknown key 'reader.turbo'" err)" -eq 1 ] && [ "$(grep -c "unknown key 'reader.warp'" err)" -eq 1 ] ||
	fail "unknown keys are not warned once each: $(cat err)"
"$F" bench --config unk.yaml --dir "$TEST_TMP/unk" --steps 1 --quiet $SMALL $FAST ++workload.dataset.num_files_train=1 \
	++workload.reader.batch_size=1 >/dev/null 2>err || fail "unknown keys (run): $(cat err)"
[ ! -s err ] || fail "--quiet did not silence: $(cat err)"

# ---- storage_library on local storage: not used, said once (reader or
# storage section, file or override); --quiet: nothing ----
sed 's/^  read_threads: 4$/  read_threads: 4\n  storage_library: s3torchconnector/' "$FX/unet3d_h100.yaml" >lib.yaml
grep -q 'storage_library: s3torchconnector' lib.yaml || fail "lib.yaml: the sed did not add the key"
"$F" bench generate --config lib.yaml --dir "$TEST_TMP/lib" $SMALL ++workload.dataset.num_files_train=1 \
	++workload.storage.storage_library=s3torchconnector >/dev/null 2>err || fail "storage_library: $(cat err)"
[ "$(grep -c "storage_library 's3torchconnector' is not used" err)" -eq 1 ] ||
	fail "storage_library is not warned once per document: $(cat err)"
grep -q "lib.yaml:[0-9]*: reader.storage_library" err || fail "storage_library: no file:line and key: $(cat err)"
"$F" bench generate --config lib.yaml --dir "$TEST_TMP/lib2" $SMALL --quiet ++workload.dataset.num_files_train=1 \
	>/dev/null 2>err || fail "storage_library --quiet: $(cat err)"
[ ! -s err ] || fail "--quiet did not silence storage_library: $(cat err)"

# ---- older DLIO format names: dlio_npz, dlio_tfrecord ----
for old in dlio_npz:npz DLIO_TFRECORD:tfrecord; do
	"$F" bench generate --config "$FX/unet3d_h100.yaml" --dir "$TEST_TMP/old-${old%%:*}" $SMALL --quiet \
		++workload.dataset.num_files_train=1 ++workload.dataset.format=${old%%:*} >/dev/null 2>err ||
		fail "format ${old%%:*}: $(cat err)"
	grep -qx "format ${old#*:}" "$TEST_TMP/old-${old%%:*}/.feedscope-dataset" ||
		fail "format ${old%%:*} did not write ${old#*:}: $(head -3 "$TEST_TMP/old-${old%%:*}/.feedscope-dataset")"
done

# ---- every preset at a small scale ----
for p in unet3d resnet50 cosmoflow bert; do
	case $p in unet3d) s=0.02 ;; resnet50) s=0.002 ;; cosmoflow) s=0.00002 ;; bert) s=0.00001 ;; esac
	"$F" bench generate --workload $p --dir "$TEST_TMP/p-$p" --scale $s --threads 1 $SMALL >/dev/null 2>err ||
		fail "preset $p: generate: $(cat err)"
	"$F" bench --workload $p --dir "$TEST_TMP/p-$p" --scale $s --steps 2 --quiet --json $SMALL $FAST \
		++workload.reader.batch_size=2 ++workload.model.model_size_bytes=65536 >p.json 2>err ||
		fail "preset $p: bench exited $? ($(cat err))"
	json p.json 'd["jobs"][0]["epochs"][0]["steps"]' | grep -qx 2 || fail "preset $p: not 2 steps in its first epoch"
done
"$F" bench --workload llama3-8b-checkpoint --dir "$TEST_TMP/p-llama" --scale 0.00001 --quiet >/dev/null 2>err ||
	fail "preset llama3-8b-checkpoint: $(cat err)"

echo "configs accepted: $accepted of $n; refused:$refusals"
