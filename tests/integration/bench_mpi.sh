# `mpirun -n 4 feedscope bench` on one machine (make MPI=1, Debian's
# OpenMPI), checked against the same run on one rank:
#   - "ranks": 4, and exactly one JSON document on stdout (rank 0's);
#   - each epoch reads every file exactly once across the ranks: samples
#     delivered = the dataset's samples and bytes read = the dataset's bytes,
#     per epoch, as on one rank (files split, none read twice);
#   - AU is a mean (in [0, 1]); throughput is summed over ranks (at least
#     the samples over the longest rank's time);
#   - the checkpoint is one file per rank: 4 files, 4 shares of the model;
#   - a usage error is said once, by rank 0, with exit status 2.
# Skipped when mpicc or mpirun is missing. Builds $FEEDSCOPE_BUILD/mpi.
# feedscope-binary: unused (the MPI build is tested; the ASan pass adds nothing)
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd mpicc
need_cmd mpirun
need_cmd python3

mpibin=$FEEDSCOPE_BUILD/mpi/feedscope
make -s -j"$(nproc)" -C "$FEEDSCOPE_TOP" MPI=1 BUILD="$FEEDSCOPE_BUILD" >make.out 2>&1 ||
	{ tail -20 make.out; fail "make MPI=1 failed"; }
[ -x "$mpibin" ] || fail "make MPI=1 did not build $mpibin"

# One machine, no network: shared memory between ranks, no ssh launcher.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm_rsh_agent='' OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_base_warn_component_unused=0

# 48 files of 1 sample (12 a rank), batch 2: 6 steps a rank an epoch.
MODEL=4194307 # not a multiple of 4: the shares must still add up to it
cat >w.yaml <<EOF
model:
  name: mpi_check
  model_size: $MODEL
framework: pytorch
workflow:
  generate_data: False
  train: True
  checkpoint: True
dataset:
  format: npy
  num_files_train: 48
  num_samples_per_file: 1
  record_length_bytes: 65536
  record_length_bytes_stdev: 8192
reader:
  data_loader: pytorch
  batch_size: 2
  read_threads: 1
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: 2
  computation_time: 0.002
metric:
  au: 0.50
EOF
D=$TEST_TMP/ds
"$FEEDSCOPE" bench generate --config w.yaml --dir "$D" --seed 3 >gen.out 2>&1 || { cat gen.out; fail "bench generate"; }

expect_status 0 "$mpibin" bench --config w.yaml --dir "$D" --checkpoint --json >one.json 2>one.err
mpirun --allow-run-as-root --oversubscribe -n 4 "$mpibin" bench --config w.yaml --dir "$D" --checkpoint --json \
	>four.json 2>four.err
rc=$?
[ $rc -eq 0 ] || { cat four.err; fail "mpirun -n 4 exited $rc"; }

python3 - "$D" one.json four.json "$MODEL" <<'EOF' || fail "the 4-rank run's JSON is wrong (above)"
import json, sys

ddir, one_path, four_path, model = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bad = []
def check(ok, what):
    print(("ok   " if ok else "BAD  ") + what)
    if not ok:
        bad.append(what)

# the manifest: "file PATH SIZE NRECORDS" lines
files = samples = size = 0
for line in open(ddir + "/.feedscope-dataset"):
    f = line.split()
    if f and f[0] == "file" and int(f[3]) > 0:
        files += 1; samples += int(f[3]); size += int(f[2])

text = open(four_path).read()
try:
    four = json.loads(text)  # raises on a second document
except ValueError as e:
    print(text[:2000]); raise SystemExit("stdout is not exactly one JSON document: %s" % e)
one = json.load(open(one_path))

def job(d): return d["jobs"][0]
def epochs(d): return job(d)["epochs"]

check(one.get("ranks") == 1, "one rank: ranks = %s" % one.get("ranks"))
check(four.get("ranks") == 4, "four ranks: ranks = %s" % four.get("ranks"))
for name, d in (("1 rank", one), ("4 ranks", four)):
    ep = epochs(d)
    check(len(ep) == 2, "%s: 2 epochs (%d)" % (name, len(ep)))
    for i, e in enumerate(ep):
        check(e["samples"] == samples, "%s epoch %d: %s samples delivered, dataset has %d" % (name, i, e["samples"], samples))
        rb = e["read"]["io_bytes"] if "read" in e else e["read_bytes"]
        check(rb == size, "%s epoch %d: %s bytes read, dataset has %d (each file once)" % (name, i, rb, size))
    au = job(d)["au"]
    check(0 <= au <= 1, "%s: AU %s in [0, 1]" % (name, au))
    check(abs(au - sum(e["au"] for e in ep) / len(ep)) < 1e-6, "%s: AU is the mean of the epochs'" % name)

j = job(four)
rate = j["samples_per_s"]
dur = j["duration_s"]
check(rate * dur >= 0.99 * 2 * samples,
      "4 ranks: samples/s %.1f summed over ranks (>= %d samples / %.3f s)" % (rate, 2 * samples, dur))

c = four.get("checkpoint") or j.get("checkpoint")
check(c is not None, "4 ranks: a checkpoint section")
if c:
    check(c.get("files") == 4, "checkpoint: %s files (one a rank)" % c.get("files"))
    wb = c.get("bytes")
    check(wb == model, "checkpoint: %s bytes written, model %d" % (wb, model))
sys.exit(1 if bad else 0)
EOF
[ -z "$(ls "$D/checkpoints" 2>/dev/null)" ] || fail "checkpoint files left in $D/checkpoints"

# Bad usage under mpirun: exit 2, and the message once (rank 0's), not once a rank.
mpirun --allow-run-as-root --oversubscribe -n 4 "$mpibin" bench --config w.yaml --dir "$D" --epochs 0 \
	>bad.out 2>bad.err
rc=$?
[ $rc -eq 2 ] || { cat bad.err; fail "mpirun -n 4 with --epochs 0 exited $rc, expected 2"; }
[ "$(grep -c '^feedscope: ' bad.err)" -eq 1 ] || { cat bad.err; fail "expected the usage error once"; }
exit 0
