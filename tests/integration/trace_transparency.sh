# The tracer changes nothing a job can see: each command of a corpus runs
# twice, in empty directories plain/NAME and traced/NAME, without and with
# LD_PRELOAD=libfeedscope-trace.so; stdout, stderr, exit status and every
# file written must be identical. The corpus: cat, dd (plain, iflag=direct,
# conv=fsync, skip/count), tar c/t/x, sha256sum, a Python script doing
# file I/O every common way (tests/trace/py_corpus.py, numpy included), a
# C program checking errno and return values of failing and partial calls
# (tests/trace/errno_check.c), and many threads reading and writing
# (tests/trace/threads.c). Each traced run must also have been traced:
# its region counted the bytes it read. The PyTorch DataLoader is in
# trace_loader.sh.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/trace/lib.sh"
need_cmd tar
need_cmd sha256sum
need_cmd dd

data=$PWD/data
mkdir -p "$data/many" "$data/tree/a/b" "$data/tree/c"
sizes=(0 1 511 512 4095 4096 4097 65536 100000 1048576)
for i in "${!sizes[@]}"; do
	head -c "${sizes[$i]}" /dev/urandom >"$data/f$i"
done
seq 1 5000 | sed 's/$/ some text/' >"$data/lines.txt"
for i in $(seq 0 999); do : >"$data/many/e$i"; done
echo one >"$data/tree/a/b/x"
echo two >"$data/tree/c/y"
ln -s ../c/y "$data/tree/a/link"
big=$data/f9

# same NAME CMD... : CMD in plain/NAME and in traced/NAME (regions in
# regions/NAME); $FILTER (a sed script) is applied to stderr first
same() {
	local name=$1 x
	shift
	rm -rf "plain/$name" "traced/$name" "regions/$name"
	mkdir -p "plain/$name" "traced/$name" "regions/$name"
	(cd "plain/$name" && untraced "$@" >"../$name.out" 2>"../$name.err"; echo $? >"../$name.rc")
	(cd "traced/$name" && traced "$OLDPWD/regions/$name" "$@" >"../$name.out" 2>"../$name.err"; echo $? >"../$name.rc")
	for d in plain traced; do
		sed -e "${FILTER:-}" "$d/$name.err" >"$d/$name.err.f"
	done
	for x in out err.f rc; do
		cmp -s "plain/$name.$x" "traced/$name.$x" ||
			fail "$name: $x differs: $(diff "plain/$name.$x" "traced/$name.$x" | head -10)"
	done
	diff -r --no-dereference "plain/$name" "traced/$name" >/dev/null ||
		fail "$name: the files written differ: $(diff -rq --no-dereference "plain/$name" "traced/$name" | head -5)"
	dump "regions/$name" "regions/$name.txt" "$data/"
	[ -s "regions/$name.txt" ] || fail "$name: no region: was the tracer loaded?"
}

# read_of NAME PATH BYTES : the traced run of NAME read all of PATH
read_of() {
	awk -v p="path=$2" -v want="read_bytes=$3" '$1 == "file" && $NF == p { for (i = 3; i < NF; i++) if ($i == want) ok = 1 }
		END { exit !ok }' "regions/$1.txt" || fail "$1: no record of $2 with $3 bytes read: $(grep "$2" "regions/$1.txt")"
}

same cat cat "$data/f2" "$data/f5" "$big"
cmp -s traced/cat.out <(cat "$data/f2" "$data/f5" "$big") || fail "cat: wrong output"
read_of cat f9 1048576
same cat_redirect sh -c 'cat "$1" >copy.bin && cat missing-file' sh "$big"
[ "$(cat plain/cat_redirect.rc)" -eq 1 ] || fail "cat of a missing file should fail"

FILTER='s/, [0-9.e+-]* s, .*$//'
same dd dd if="$big" of=out.bin bs=64k
same dd_direct dd if="$big" of=direct.bin bs=64k iflag=direct
same dd_fsync dd if="$big" of=sync.bin bs=1M conv=fsync
same dd_part dd if="$big" of=part.bin bs=4096 skip=3 count=7
# dd asks aligned_alloc(4096, bs): with bs not a multiple of 4096 ASan
# aborts dd itself, traced or not, so odd sizes only without ASan
if [ -z "$asan_rt" ]; then
	same dd_odd dd if="$big" of=odd.bin bs=1000 skip=3 count=7
	same dd_stdout dd if="$data/f7" bs=100 count=5
fi
read_of dd f9 1048576
FILTER=

same tar sh -c 'tar cf t.tar -C "$1" tree f3 && tar tvf t.tar && mkdir x && tar xf t.tar -C x && tar cf - -C x . | wc -c' \
	sh "$data"
read_of tar f3 512
same sha256sum sha256sum "$data"/f* "$data/lines.txt"
read_of sha256sum f9 1048576
grep -q ' stdio_ops=[1-9].* path=f9$' regions/sha256sum.txt || fail "sha256sum reads through stdio: $(grep f9 regions/sha256sum.txt)"

same errno_check "$TRACE_PROGS/errno_check" .
grep -q '^done$' traced/errno_check.out || fail "errno_check did not finish"

# Loaded but off: no FEEDSCOPE_TRACE_DIR, or one that cannot be used (the
# recorder is gone): every wrapper passes through, nothing is written, and
# only FEEDSCOPE_TRACE_DEBUG makes it say why (one line)
for how in unset gone debug; do
	rm -rf "off_$how" && mkdir "off_$how"
	case $how in
	unset) (cd "off_$how" && env "${TRACE_SAN_ENV[@]}" LD_PRELOAD="$TRACE_PRELOAD" \
		"$TRACE_PROGS/errno_check" . >../off_$how.out 2>../off_$how.err) ;;
	gone) (cd "off_$how" && env "${TRACE_SAN_ENV[@]}" LD_PRELOAD="$TRACE_PRELOAD" FEEDSCOPE_TRACE_DIR="$PWD/../nowhere" \
		"$TRACE_PROGS/errno_check" . >../off_$how.out 2>../off_$how.err) ;;
	debug) (cd "off_$how" && env "${TRACE_SAN_ENV[@]}" LD_PRELOAD="$TRACE_PRELOAD" FEEDSCOPE_TRACE_DIR="$PWD/../nowhere" \
		FEEDSCOPE_TRACE_DEBUG=1 "$TRACE_PROGS/errno_check" . >../off_$how.out 2>../off_$how.err) ;;
	esac
	cmp -s plain/errno_check.out "off_$how.out" || fail "tracer off ($how): stdout differs"
	diff -r --no-dereference plain/errno_check "off_$how" >/dev/null || fail "tracer off ($how): files differ"
done
[ ! -e nowhere ] || fail "the tracer created its directory"
[ ! -s off_unset.err ] && [ ! -s off_gone.err ] || fail "the tracer wrote to stderr: $(cat off_unset.err off_gone.err)"
# one line from the process, and one from each child it forks or execs
grep -q '^feedscope-trace: cannot create the region file in FEEDSCOPE_TRACE_DIR (errno 2)$' off_debug.err &&
	[ "$(grep -vc '^feedscope-trace: ' off_debug.err)" -eq 0 ] || fail "FEEDSCOPE_TRACE_DEBUG: $(cat off_debug.err)"
same threads "$TRACE_PROGS/threads" . 8

if [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null; then
	same python "$PY" "$TRACE_DATA/py_corpus.py" "$data"
	grep -q '^done$' traced/python.err || fail "py_corpus did not finish: $(tail -3 traced/python.err)"
	read_of python f9 $((4 * 1048576 + 100)) # read() x2, os.read loop, sendfile, pread
else
	skip "python3 with numpy missing: py_corpus did not run (the rest passed)"
fi
exit 0
