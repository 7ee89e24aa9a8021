# The safety rules of `feedscope bench generate` and `bench clean`
# (src/bench/host/safety.h): bad usage and every refusal exit 2 before writing
# anything; a non-empty directory without the marker is left exactly as it
# was (listing and mtimes); symlinks planted inside are never followed;
# `bench clean` removes only what feedscope made; nothing is ever written
# outside --dir. As root, also: a block device (and a symlink to one) is
# refused and its bytes are unchanged, and a small tmpfs without room is
# refused before any write.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
"$FEEDSCOPE" bench generate --help >/dev/null 2>&1 || skip "feedscope bench generate is not built in"

cat >wl.yaml <<'EOF'
model:
  name: safety_test
workflow:
  train: True
dataset:
  format: npy
  num_files_train: 3
  num_samples_per_file: 2
  record_length_bytes: 4096
train:
  computation_time: 0.01
EOF
gen() { "$FEEDSCOPE" bench generate --config "$TEST_TMP/wl.yaml" --threads 2 "$@"; }

: >out.txt
: >err.txt # made once: rewriting them leaves the directory's mtime alone

# A listing with sizes, modes and mtimes (ns) of everything under $1 but $2.
snap() { find "$1" -path "$2" -prune -o -printf '%p %y %s %m %T@\n' 2>/dev/null | sort; }

# expect_refused WHAT ARGS...: exit 2, one line on stderr, nothing new here
expect_refused() {
	local what=$1 before after
	shift
	before=$(snap "$TEST_TMP" /nonexistent)
	"$@" >out.txt 2>err.txt
	rc=$?
	after=$(snap "$TEST_TMP" /nonexistent)
	# out.txt and err.txt are ours
	before=$(printf '%s\n' "$before" | grep -v -e '/out.txt ' -e '/err.txt ')
	after=$(printf '%s\n' "$after" | grep -v -e '/out.txt ' -e '/err.txt ')
	[ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "$what: stderr is not one line: $(cat err.txt)"
	[ -s out.txt ] && fail "$what: wrote to stdout: $(cat out.txt)"
	[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "$what: something changed"; }
	echo "refused ($what): $(cat err.txt)"
}

# ---- usage ----
expect_refused "no --dir" gen
expect_refused "no workload" "$FEEDSCOPE" bench generate --dir u1
expect_refused "both workload and config" gen --workload unet3d --dir u1
expect_refused "bad format" gen --format zip --dir u1
expect_refused "bad scale" gen --scale -1 --dir u1
expect_refused "bad threads" gen --threads 0 --dir u1
expect_refused "bad seed" gen --seed x --dir u1
expect_refused "unknown option" gen --bogus --dir u1
expect_refused "stray argument" gen --dir u1 extra
expect_refused "unknown preset" "$FEEDSCOPE" bench generate --workload nosuch --dir u1
expect_refused "checkpoint-only workload" "$FEEDSCOPE" bench generate --workload llama3-8b-checkpoint --dir u1
expect_refused "clean without --dir" "$FEEDSCOPE" bench clean

# ---- refusals ----
expect_refused "character device" gen --dir /dev/null
expect_refused "a regular file" gen --dir wl.yaml
expect_refused "missing parent" gen --dir missing/parent/d
mkdir user && echo mine >user/mine.txt && mkdir user/sub && touch -d '2001-01-01' user/mine.txt user/sub user
expect_refused "non-empty directory without the marker" gen --dir user
expect_refused "clean without the marker" "$FEEDSCOPE" bench clean --dir user

# symlinks planted inside a marked directory are never followed
mkdir outside && echo keep >outside/target
mkdir p1 && : >p1/.feedscope-bench && ln -s "$TEST_TMP/outside" p1/train
expect_refused "train/ is a symlink" gen --dir p1
mkdir -p p2/train && : >p2/.feedscope-bench && ln -s "$TEST_TMP/outside/target" p2/train/img_0_of_3.npy
expect_refused "a symlink at a file's name" gen --dir p2
[ "$(cat outside/target)" = keep ] || fail "outside/target changed"
[ "$(ls outside)" = target ] || fail "something was written to outside/"

# a dataset already there: clean it first
expect_status 0 gen --dir ds >/dev/null
expect_refused "a dataset already there" gen --dir ds

# ---- bench clean removes only what feedscope made ----
echo mine >ds/mine.txt
echo mine >ds/train/mine.txt
ln -s "$TEST_TMP/outside/target" ds/train/img_1_of_3.npy.link
rm ds/train/img_2_of_3.npy && ln -s "$TEST_TMP/outside/target" ds/train/img_2_of_3.npy
"$FEEDSCOPE" bench clean --dir ds >clean.out 2>clean.err
rc=$?
cat clean.out clean.err
[ "$rc" -eq 1 ] || fail "clean with a planted symlink at a manifest name: exit $rc, expected 1"
[ "$(cat outside/target)" = keep ] || fail "clean followed a symlink"
[ -L ds/train/img_2_of_3.npy ] || fail "clean removed a symlink it did not make"
for f in ds/mine.txt ds/train/mine.txt ds/train/img_1_of_3.npy.link; do
	[ -e "$f" ] || [ -L "$f" ] || fail "clean removed $f"
done
for f in ds/train/img_0_of_3.npy ds/train/img_1_of_3.npy ds/.feedscope-dataset ds/.feedscope-bench; do
	[ -e "$f" ] && fail "clean left $f"
done
expect_refused "clean again (no marker now)" "$FEEDSCOPE" bench clean --dir ds

# a directory feedscope created goes; one it did not make stays (empty)
expect_status 0 gen --dir made >/dev/null
mkdir given
expect_status 0 gen --dir given >/dev/null
[ -f given/.feedscope-bench ] || fail "no marker in given/"
expect_status 0 "$FEEDSCOPE" bench clean --dir made >/dev/null
[ -e made ] && fail "clean left made/, which feedscope created"
expect_status 0 "$FEEDSCOPE" bench clean --dir given >/dev/null
[ -d given ] || fail "clean removed given/, which feedscope did not create"
[ -z "$(ls -A given)" ] || fail "clean left $(ls -A given) in given/"

# an interrupted generation: its plan lists what to remove
expect_status 0 gen --dir half >/dev/null
mv half/.feedscope-dataset half/.feedscope-dataset.partial
rm half/train/img_2_of_3.npy
expect_status 0 "$FEEDSCOPE" bench clean --dir half >/dev/null
[ -e half ] && fail "clean left half/: $(ls -A half)"

# ---- bench clean and a forged or edited list: only the generator's files go ----
# clean_keeps DIR WHAT FILES...: clean exits 1, and every FILE is still there
clean_keeps() {
	local d=$1 what=$2 rc f
	shift 2
	"$FEEDSCOPE" bench clean --dir "$d" >clean.out 2>clean.err
	rc=$?
	[ "$rc" -eq 1 ] || fail "clean ($what): exit $rc, expected 1: $(cat clean.out clean.err)"
	for f in "$@"; do
		[ -e "$f" ] || [ -L "$f" ] || fail "clean ($what) removed $f: $(cat clean.out clean.err)"
	done
	echo "kept ($what): $(head -1 clean.err)"
}
# a manifest edited to list a user's files (names feedscope never writes)
expect_status 0 gen --dir forged >/dev/null
echo notes >forged/notes.txt && echo keep >forged/train/keep.dat
sed -i 's/^files 3$/files 5/' forged/.feedscope-dataset
printf 'file notes.txt 6 0\nfile train/keep.dat 5 0\n' >>forged/.feedscope-dataset
clean_keeps forged "a forged manifest" forged/notes.txt forged/train/keep.dat forged/train/img_0_of_3.npy \
	forged/.feedscope-dataset forged/.feedscope-bench
grep -q 'was not written by feedscope bench generate' clean.err || fail "forged manifest: $(cat clean.err)"
# the same names renumbered (the list no longer matches its own header)
expect_status 0 gen --dir renum >/dev/null
sed -i 's/img_2_of_3/img_9_of_3/' renum/.feedscope-dataset && echo mine >renum/train/img_9_of_3.npy
clean_keeps renum "a renumbered manifest" renum/train/img_9_of_3.npy renum/train/img_0_of_3.npy
# '..', absolute paths: the manifest itself is refused, nothing is removed
for p in ../outside/target /etc/hostname train/../notes.txt; do
	rm -rf dots && expect_status 0 gen --dir dots >/dev/null && echo notes >dots/notes.txt
	sed -i "s|^file train/img_1_of_3.npy |file $p |" dots/.feedscope-dataset
	clean_keeps dots "a manifest listing $p" dots/notes.txt dots/train/img_0_of_3.npy outside/target
done
[ "$(cat outside/target)" = keep ] || fail "outside/target changed"
# a user's file at a generator's name: older than the marker, of another
# size, another link to it: each left alone, the rest removed
expect_status 0 gen --dir planted >/dev/null
size0=$(stat -c %s planted/train/img_0_of_3.npy) && rm planted/train/img_0_of_3.npy
head -c "$size0" /dev/zero >planted/train/img_0_of_3.npy && touch -d 2001-01-01 planted/train/img_0_of_3.npy
truncate -s 100 planted/train/img_1_of_3.npy
ln planted/train/img_2_of_3.npy planted/mylink
clean_keeps planted "planted files" planted/train/img_0_of_3.npy planted/train/img_1_of_3.npy \
	planted/train/img_2_of_3.npy planted/mylink
grep -q 'older than the dataset' clean.err && grep -q 'size is not' clean.err && grep -q 'hard links' clean.err ||
	fail "planted files: $(cat clean.err)"
if [ "$(id -u)" -eq 0 ]; then # a file of another user at a generator's name
	expect_status 0 gen --dir owner >/dev/null
	chown 65534 owner/train/img_1_of_3.npy
	clean_keeps owner "another user's file" owner/train/img_1_of_3.npy
	grep -q 'another user' clean.err || fail "another user's file: $(cat clean.err)"
	[ -e owner/train/img_0_of_3.npy ] && fail "clean left owner/train/img_0_of_3.npy, which it made"
fi

# a real interruption (SIGINT once the plan is written): exit 1, the plan
# stays, no manifest; clean removes it all
sed 's/num_files_train: 3$/num_files_train: 3000/' wl.yaml >many.yaml
"$FEEDSCOPE" bench generate --config many.yaml --dir intr --threads 1 >/dev/null 2>intr.err &
pid=$!
for _ in $(seq 400); do [ -f intr/.feedscope-dataset.partial ] && break; sleep 0.02; done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" -eq 0 ]; then
	echo "the generation finished before SIGINT arrived: interruption not checked"
else
	[ "$rc" -eq 1 ] || fail "interrupted generation: exit $rc, expected 1 ($(cat intr.err))"
	grep -q interrupted intr.err || fail "interrupted generation said: $(cat intr.err)"
	[ -f intr/.feedscope-dataset.partial ] || fail "interrupted generation: no plan left"
	[ -e intr/.feedscope-dataset ] && fail "interrupted generation wrote the manifest"
	echo "interrupted: $(cat intr.err), $(ls intr/train | wc -l) files written"
fi
expect_status 0 "$FEEDSCOPE" bench clean --dir intr >/dev/null
[ -e intr ] && fail "clean after an interruption left intr/: $(ls -A intr)"

# nothing outside --dir: a generate + clean leaves the parent as it was
mkdir par && echo sibling >par/sibling && mkdir par/other
before=$(snap "$TEST_TMP/par" "$TEST_TMP/par/d")
expect_status 0 gen --dir par/d --format tar >/dev/null
expect_status 0 "$FEEDSCOPE" bench clean --dir par/d >/dev/null
after=$(snap "$TEST_TMP/par" "$TEST_TMP/par/d")
# the parent's own mtime changes (d was made and removed in it); nothing else may
[ "$(echo "$before" | tail -n +2)" = "$(echo "$after" | tail -n +2)" ] || fail "something changed beside par/d"
[ -e par/d ] && fail "par/d left"

# ---- as root: a block device, a file system without room ----
[ "$(id -u)" -eq 0 ] || skip "the block device and free-space checks need root (the rest passed)"
need_cmd losetup
need_cmd mount
img=$TEST_TMP/blk.img
dev= mnt=$TEST_TMP/small
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -f "$img"
}
trap cleanup EXIT
head -c 4194304 /dev/urandom >"$img"
sum_before=$(md5sum <"$img")
dev=$(losetup -f --show "$img") || skip "losetup failed"
expect_refused "block device" gen --dir "$dev"
ln -s "$dev" blk_link
expect_refused "symlink to a block device" gen --dir blk_link
expect_refused "clean of a block device" "$FEEDSCOPE" bench clean --dir "$dev"
losetup -d "$dev" && dev=
[ "$(md5sum <"$img")" = "$sum_before" ] || fail "the block device's bytes changed"

# 2 MiB of tmpfs, a dataset of 3 x 4 MiB: refused before any write
mkdir "$mnt"
mount -t tmpfs -o size=2m feedscope-test "$mnt" || skip "cannot mount a tmpfs"
sed -i 's/record_length_bytes: .*/record_length_bytes: 2097152/' wl.yaml
expect_refused "no room" gen --dir "$mnt/d"
[ -z "$(ls -A "$mnt")" ] || fail "wrote into the small file system: $(ls -A "$mnt")"
mkdir "$mnt/empty"
expect_refused "no room (existing empty directory)" gen --dir "$mnt/empty"
[ -z "$(ls -A "$mnt/empty")" ] || fail "wrote the marker before the space check"
echo "all refusals held"
