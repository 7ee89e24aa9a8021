# `feedscope bench generate`: a small dataset in every format, each read back
# by the format's own tools: numpy loads every .npy and .npz (and zipfile
# checks the CRCs), `tar tf` lists every shard, tests/bench/tfrecord_check.py
# checks every TFRecord CRC, PIL decodes the JPEGs (when installed); each
# file's size and every sample's byte range match the manifest. Sizes with a
# stdev vary around record_length_bytes; the same seed gives the same bytes
# (whatever the thread count), another seed other bytes; `bench clean`
# removes everything.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
PY=/usr/bin/python3
need_cmd tar
need_cmd cmp
[ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null || skip "needs numpy for $PY"
"$FEEDSCOPE" bench generate --help >/dev/null 2>&1 || skip "feedscope bench generate is not built in"

K=5 FILES=6 L=20000 SD=4000
cat >wl.yaml <<EOF
model:
  name: gen_test
framework: pytorch
workflow:
  train: True
dataset:
  format: npz
  num_files_train: $FILES
  num_samples_per_file: $K
  record_length_bytes: $L
  record_length_bytes_stdev: $SD
reader:
  batch_size: 4
  read_threads: 1
train:
  epochs: 1
  computation_time: 0.01
EOF

formats="npz npy tfrecord tar jpeg raw indexed"
for f in $formats; do
	expect_status 0 "$FEEDSCOPE" bench generate --config wl.yaml --format "$f" --dir "d_$f" --seed 11 --threads 2 >"gen_$f.out"
	cat "gen_$f.out"
	[ -f "d_$f/.feedscope-dataset" ] || fail "$f: no manifest"
	[ -e "d_$f/.feedscope-dataset.partial" ] && fail "$f: the partial plan is left"
done

# tar: every shard listed by tar itself, K members each, nothing on stderr
for t in d_tar/train/*.tar; do
	n=$(tar tf "$t" 2>tar.err | wc -l)
	[ -s tar.err ] && fail "tar tf $t: $(cat tar.err)"
	[ "$n" -eq "$K" ] || fail "tar tf $t lists $n members, expected $K"
done
[ "$(ls d_tar/train/*.tar | wc -l)" -eq "$FILES" ] || fail "tar: expected $FILES shards"

# tfrecord: every record's CRCs, and the manifest's ranges
"$PY" "$FEEDSCOPE_TOP/tests/bench/tfrecord_check.py" --dir d_tfrecord >tfr.out || { cat tfr.out; fail "tfrecord_check"; }
cat tfr.out
grep -q "^$((FILES * K)) records, 0 faults" tfr.out || fail "tfrecord: expected $((FILES * K)) records"

# everything else, against the manifest, in Python
"$PY" - "$K" "$FILES" "$L" "$SD" <<'EOF' || fail "format checks (above)"
import io, os, statistics, struct, sys, tarfile, zipfile
import numpy as np
K, FILES, L, SD = (int(x) for x in sys.argv[1:5])
bad = []

def manifest(d):
    head, files = {}, []
    with open(os.path.join(d, ".feedscope-dataset")) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "file":
                files.append([w[1], int(w[2]), int(w[3]), []])
            elif w[0] == "rec":
                files[-1][3].append((int(w[1]), int(w[2])))
            elif len(w) == 2:
                head[w[0]] = w[1]
    for rel, size, n, recs in files:
        p = os.path.join(d, rel)
        if os.path.getsize(p) != size:
            bad.append("%s: %d bytes, manifest %d" % (p, os.path.getsize(p), size))
        if len(recs) != n:
            bad.append("%s: %d rec lines, NRECORDS %d" % (p, len(recs), n))
        if n and (recs[0][0] != 0 or sum(l for _, l in recs) != size or
                  any(a[0] + a[1] != b[0] for a, b in zip(recs, recs[1:]))):
            bad.append("%s: records do not tile the file" % p)
    return head, files

def data(d, rel):
    with open(os.path.join(d, rel), "rb") as f:
        return f.read()

def check_rows(d, rel, x, recs):
    """Each array row lies in its record (row k's bytes end record k, but the last)."""
    buf = data(d, rel)
    if x.shape[0] != len(recs):
        bad.append("%s: %d rows, %d records" % (rel, x.shape[0], len(recs)))
        return
    for k, (off, ln) in enumerate(recs):
        row = x[k].tobytes()
        start = off if k else off + ln - len(row)
        if k == len(recs) - 1 and k:
            start = off
        if buf[start:start + len(row)] != row:
            bad.append("%s: row %d is not at record %d" % (rel, k, k))

sizes = {}
for fmt in ("npz", "npy"):
    d = "d_" + fmt
    head, files = manifest(d)
    assert head["format"] == fmt and int(head["samples_per_file"]) == K, head
    if len(files) != FILES:
        bad.append("%s: %d files" % (fmt, len(files)))
    widths = []
    for rel, size, n, recs in files:
        p = os.path.join(d, rel)
        if fmt == "npz":
            z = zipfile.ZipFile(p)
            if z.testzip() is not None or z.namelist() != ["x.npy", "y.npy"]:
                bad.append("%s: zip CRC or members wrong: %s" % (p, z.namelist()))
            a = np.load(p)
            x = a["x"]
            if a["y"].shape != (K,):
                bad.append("%s: y has shape %s" % (p, a["y"].shape))
        else:
            x = np.load(p)
        if x.dtype != np.uint8 or x.ndim != 2 or x.shape[0] != K:
            bad.append("%s: shape %s dtype %s" % (p, x.shape, x.dtype))
        widths.append(x.shape[1])
        check_rows(d, rel, x, recs)
    sizes[fmt] = widths

# tar: each member's data lies in its record, right after its 512-byte header
head, files = manifest("d_tar")
tsizes = []
for rel, size, n, recs in files:
    with tarfile.open(os.path.join("d_tar", rel)) as t:
        ms = t.getmembers()
    if len(ms) != K:
        bad.append("%s: %d members" % (rel, len(ms)))
    for m, (off, ln) in zip(ms, recs):
        if not m.isfile() or m.offset != off or m.offset_data != off + 512 or m.size > ln:
            bad.append("%s: member %s at %d, record at %d" % (rel, m.name, m.offset, off))
        tsizes.append(m.size)
sizes["tar"] = tsizes

# jpeg, raw: one sample per file
for fmt, ext in (("jpeg", ".jpg"), ("raw", ".bin")):
    head, files = manifest("d_" + fmt)
    if len(files) != FILES * K or head["samples_per_file"] != "1":
        bad.append("%s: %d files, samples_per_file %s" % (fmt, len(files), head["samples_per_file"]))
    s = []
    for rel, size, n, recs in files:
        if not rel.endswith(ext) or recs != [(0, size)]:
            bad.append("%s: %s %s" % (fmt, rel, recs))
        s.append(size)
        if fmt == "jpeg":
            b = data("d_jpeg", rel)
            if b[:2] != b"\xff\xd8" or b[-2:] != b"\xff\xd9":
                bad.append("%s: no SOI/EOI" % rel)
    sizes[fmt] = s
try:
    from PIL import Image
    head, files = manifest("d_jpeg")
    for rel, *_ in files:
        im = Image.open(os.path.join("d_jpeg", rel))
        im.load()
        if im.format != "JPEG" or im.size != (8, 8):
            bad.append("%s: PIL sees %s %s" % (rel, im.format, im.size))
except ImportError:
    print("PIL not installed: JPEG decoding not checked")

# indexed: data files, each followed by its index (NRECORDS 0) holding the ranges
head, files = manifest("d_indexed")
isz = []
for (rel, size, n, recs), (irel, isize, inr, irecs) in zip(files[0::2], files[1::2]):
    if inr != 0 or not irel.endswith(".idx") or isize != 16 * n:
        bad.append("indexed: %s is not the index of %s" % (irel, rel))
        continue
    pairs = list(struct.iter_unpack("<QQ", data("d_indexed", irel)))
    if pairs != recs:
        bad.append("indexed: %s disagrees with the manifest" % irel)
    isz += [l for _, l in recs]
sizes["indexed"] = isz

# sizes: they vary, around the mean (npy/npz: one length per file)
for fmt, s in sizes.items():
    mean = statistics.mean(s)
    print("%-8s %3d sizes: mean %.0f, stdev %.0f, %d distinct" % (fmt, len(s), mean, statistics.pstdev(s), len(set(s))))
    if len(set(s)) < len(s) // 2:
        bad.append("%s: sizes do not vary" % fmt)
    # three standard errors (jpeg: a file holds the bare image, 159 bytes, at least)
    if abs(mean - L) > 3 * SD / len(s) ** 0.5 and fmt != "jpeg":
        bad.append("%s: mean size %.0f, record_length_bytes %d" % (fmt, mean, L))
for b in bad:
    print("BAD", b)
sys.exit(1 if bad else 0)
EOF

# many samples: the mean size is record_length_bytes within 1%, the stdev
# record_length_bytes_stdev within 5%
sed -e 's/num_files_train: .*/num_files_train: 2/' -e 's/num_samples_per_file: .*/num_samples_per_file: 2000/' \
	-e 's/record_length_bytes: .*/record_length_bytes: 1000/' -e 's/record_length_bytes_stdev: .*/record_length_bytes_stdev: 200/' \
	wl.yaml >many.yaml
expect_status 0 "$FEEDSCOPE" bench generate --config many.yaml --format indexed --dir many >/dev/null
"$PY" - <<'EOF' || fail "sample sizes (above)"
import statistics
s = [int(l.split()[2]) for l in open("many/.feedscope-dataset") if l.startswith("rec ")]
m, sd = statistics.mean(s), statistics.pstdev(s)
print("indexed %d sizes: mean %.1f (1000), stdev %.1f (200)" % (len(s), m, sd))
assert len(s) == 4000 and abs(m - 1000) < 10 and abs(sd - 200) < 10
EOF

# the same seed: the same bytes, whatever the thread count; another seed: others
for f in npz tfrecord; do
	expect_status 0 "$FEEDSCOPE" bench generate --config wl.yaml --format "$f" --dir "s_$f" --seed 11 --threads 1 >/dev/null
	cmp "d_$f/.feedscope-dataset" "s_$f/.feedscope-dataset" || fail "$f: same seed, another manifest"
	for p in d_$f/train/*; do
		cmp "$p" "s_$f/train/${p##*/}" || fail "$f: same seed, other bytes in ${p##*/}"
	done
	expect_status 0 "$FEEDSCOPE" bench generate --config wl.yaml --format "$f" --dir "o_$f" --seed 12 >/dev/null
	cmp -s "d_$f/train/img_0_of_$FILES.$f" "o_$f/train/img_0_of_$FILES.$f" && fail "$f: seeds 11 and 12 gave the same bytes"
done

# --scale scales the file count; a workload preset with --format
expect_status 0 "$FEEDSCOPE" bench generate --config wl.yaml --scale 0.5 --format raw --dir scaled >/dev/null
[ "$(ls scaled/train | wc -l)" -eq $((FILES / 2 * K)) ] || fail "--scale 0.5: $(ls scaled/train | wc -l) files"

# bench clean removes every dataset, and the directories it created
for d in d_* s_* o_* scaled many; do
	expect_status 0 "$FEEDSCOPE" bench clean --dir "$d" >/dev/null
	[ -e "$d" ] && fail "bench clean left $d: $(ls -A "$d")"
done
echo "all formats generated, read back and cleaned"
