# The tracer's counters are exact: tests/trace/accuracy.c makes a known
# sequence of calls and every counter of every record it touches is held to
# the value worked out below; a fork child's reads are in the child's own
# region (and not the parent's) although it leaves by _exit right after
# them; an exec'd image has a region <pid>.1; a vfork child's calls before
# its exec are not seen; process totals are the sums of the records;
# descriptor classes (file, socket, pipe, device) and threads (main, other)
# hold exact counts and bytes, in the region and in io_classes. Also the op
# ring (--trace-ops) and the CLOCK_MONOTONIC clock.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/trace/lib.sh"

data=$PWD/data
mkdir -p "$data"
head -c 3000 /dev/zero >"$data/f_inherited"
head -c 3000 /dev/zero >"$data/f_child"
head -c 2000 /dev/zero >"$data/g_exec"
head -c 2000 /dev/zero >"$data/i_vfork_exec"
head -c 1000 /dev/zero >"$data/h_vfork"

traced regions "$TRACE_PROGS/accuracy" "$data" >acc.out 2>acc.err || { cat acc.err; fail "accuracy failed"; }
read -r _ main fork exec vfork <acc.out
main=${main#main=} fork=${fork#fork=} exec=${exec#exec=} vfork=${vfork#vfork=}
[ -n "$vfork" ] || fail "accuracy printed: $(cat acc.out)"
dump regions dump.txt "$data/"

# a_posix: write 10000 + fsync; reads 4096, 4096, 1808, 0 (EOF); lseek 0;
# pread 100@5000, 100@5100, 100@7000; read 512@0; readv 600@512;
# preadv 100@9000; pread 0@20000 (beyond EOF); fstat, mmap, stat, lstat,
# access, statx. Sequential (starts at or after the previous read's end):
# reads 2,3,4, pread@5100, pread@7000, readv, preadv, pread@20000 = 8;
# consecutive (exactly at it): reads 2,3,4, pread@5100, readv = 5.
# Sizes: 0..511 -> bucket 0 (EOF, 3x100, 100, 0), 512..1023 -> 1 (512, 600),
# 1808 -> 2, 4096 -> 4 (x2), 10000 -> 5 (the write). meta: 2 opens, 2 closes,
# lseek, fstat, mmap, 4 stat-likes = 11.
expect dump.txt "$main" a_posix opens=2 reads=11 read_bytes=11512 writes=1 write_bytes=10000 \
	seeks=1 stats=5 mmaps=1 fsyncs=1 meta_ops=11 seq_reads=8 consec_reads=5 max_offset=10000 \
	stdio_ops=0 hist=6,2,1,0,2,1,0,0,0,0,0,0,0,0,0,0
no_record dump.txt "$main" a_missing

# b_stdio: fwrite 3x1000, fputs 6, fprintf 6; then fread 1000 x3, fgets 6,
# fgetc 1, ftell, fseek 0, fread 100@0, fseek end, fread 0@3012, getline
# EOF (0@3012). Each stdio call counts once (glibc's own read/write under
# it are not seen). seq: fread 2,3, fgets, fgetc, fread@3012, getline = 6;
# consec: the same but fread@3012 (after fread 100@0 ended at 100) = 5.
expect dump.txt "$main" b_stdio opens=2 reads=8 read_bytes=3107 writes=3 write_bytes=3012 seeks=2 \
	stats=0 meta_ops=7 seq_reads=6 consec_reads=5 max_offset=3012 stdio_ops=18 \
	hist=7,3,0,1,0,0,0,0,0,0,0,0,0,0,0,0

# c_dup: write 8192; dup; lseek(dup, 0); read 4096@0 via dup; F_DUPFD of
# the dup reads 4096@4096 (its offset copied); dup2 onto the first fd;
# fdopen + fread at EOF (0@8192): all one record. 2 closes, lseek, open,
# fdopen, fclose = 6 meta ops; stdio: fdopen, fread, fclose.
expect dump.txt "$main" c_dup opens=1 reads=3 read_bytes=8192 writes=1 write_bytes=8192 seeks=1 \
	meta_ops=6 seq_reads=2 consec_reads=2 max_offset=8192 stdio_ops=3 \
	hist=1,0,0,0,2,1,0,0,0,0,0,0,0,0,0,0

# d_dir: opendir, 8 readdir calls (5 files, ".", "..", the end), closedir
expect dump.txt "$main" d_dir opens=1 reads=0 meta_ops=10 stats=0
expect dump.txt "$main" d_dir/f0 opens=1 meta_ops=2

# e_norm: "DIR//e_norm", "DIR/./e_norm", openat(DIR fd, "e_norm"), and
# "e_norm" after chdir(DIR) are one file
expect dump.txt "$main" e_norm opens=4 meta_ops=8
[ "$(grep -c 'e_norm$' dump.txt)" -eq 1 ] || fail "e_norm has more than one record: $(grep e_norm dump.txt)"

# fork: the parent read 1000 of f_inherited; the child read 2000 more on the
# inherited fd and 3x1000 of f_child, then _exit(0)
expect dump.txt "$main" f_inherited opens=1 reads=1 read_bytes=1000 meta_ops=2
no_record dump.txt "$main" f_child
expect dump.txt "$fork" f_inherited opens=0 reads=2 read_bytes=2000 seq_reads=1 consec_reads=1 meta_ops=0
expect dump.txt "$fork" f_child opens=1 reads=3 read_bytes=3000 seq_reads=2 consec_reads=2 meta_ops=1
grep -q "^region $fork pid=$fork ppid=$main " dump.txt || fail "fork child's region: $(grep "^region $fork" dump.txt)"

# exec: the fork child's image is <pid>, the image it exec'd is <pid>.1
grep -q "^region $exec.1 pid=$exec ppid=$main exe=$TRACE_PROGS/accuracy " dump.txt ||
	fail "no region $exec.1: $(grep '^region' dump.txt)"
expect dump.txt "$exec.1" g_exec opens=1 reads=1 read_bytes=2000
no_record dump.txt "$exec" g_exec

# vfork: the child closed its copy of the fd and exec'd; the parent's record
# has only the parent's open and close, and its two reads (consecutive)
expect dump.txt "$main" h_vfork opens=1 reads=2 read_bytes=200 seq_reads=1 consec_reads=1 meta_ops=2
grep -q "^region $vfork pid=$vfork " dump.txt || fail "no region for the vfork child's exec'd image"
! grep -q "^region $vfork\.1 " dump.txt || fail "the vfork child made a region before its exec"
expect dump.txt "$vfork" i_vfork_exec opens=1 reads=1 read_bytes=2000

totals_add_up dump.txt

# Eight threads at once (tests/trace/threads.c): counts stay exact, records
# shared between threads included
mkdir -p tdata
traced tregions "$TRACE_PROGS/threads" "$PWD/tdata" 8 >threads.out 2>&1 || fail "threads: $(cat threads.out)"
dump tregions tdump.txt "$PWD/tdata/"
[ "$(grep -c '^region' tdump.txt)" -eq 1 ] || fail "threads: one region expected"
tpid=$(awk '$1 == "region" { print $2 }' tdump.txt)
expect tdump.txt "$tpid" shared opens=9 reads=2048 read_bytes=8388608 writes=256 write_bytes=1048576 \
	meta_ops=18 hist=0,0,0,0,2304,0,0,0,0,0,0,0,0,0,0,0
expect tdump.txt "$tpid" log opens=2 reads=1 read_bytes=12800 writes=400 write_bytes=12800 stats=1 meta_ops=5 \
	max_offset=12800
for t in 0 3 7; do
	expect tdump.txt "$tpid" own$t opens=1 reads=64 read_bytes=262144 writes=64 write_bytes=262144 \
		fsyncs=1 seeks=1 stats=10 meta_ops=13 seq_reads=63 consec_reads=63 max_offset=262144
	expect tdump.txt "$tpid" own${t}s opens=2 reads=26 read_bytes=100000 writes=100 write_bytes=100000 \
		stdio_ops=130 seq_reads=25 consec_reads=25
done
totals_add_up tdump.txt
# every thread's pipe (4 calls, 100 bytes each way) in one class line of
# the other threads; the main thread made no pipe
grep -q "^class $tpid thread=other class=pipe calls=32 read_bytes=800 write_bytes=800\$" tdump.txt ||
	fail "threads: pipe class: $(grep '^class' tdump.txt)"
! grep -q "^class $tpid thread=main class=pipe" tdump.txt || fail "threads: main thread pipe calls"

# Descriptor classes and threads (tests/trace/classes.c). Main thread, class
# file: ckpt (open, 3 writes of 10000, fsync, fdatasync, close = 7), mapped
# (open, mmap, 2 msyncs, close = 5), data (open, reads 4096 + 904 + 0 at
# EOF, close = 5), the open of /dev/null (a call on a path) = 18 calls;
# device: /dev/null write 123, read 0, close = 3; pipe: write 700, read 700,
# 2 closes = 4; socket: send/recv 300, write/read 200, sendmsg/recvmsg 100,
# 2 closes = 8. The other thread: data2 (open, 3 reads of 1000 + EOF,
# close = 6). The fork child (forked by that thread, its main one now):
# open and 2 reads of 100 of data = 3, all main.
mkdir -p cdata
head -c 5000 /dev/zero >cdata/data
head -c 3000 /dev/zero >cdata/data2
traced cregions "$TRACE_PROGS/classes" "$PWD/cdata" >classes.out 2>&1 || fail "classes: $(cat classes.out)"
cmain=$(sed -n 's/^pids main=\([0-9]*\) .*/\1/p' classes.out)
cchild=$(sed -n 's/^pids .* child=\([0-9]*\)$/\1/p' classes.out)
[ -n "$cchild" ] || fail "classes printed: $(cat classes.out)"
dump cregions cdump.txt "$PWD/cdata/"
# expect_class DUMP REGION "THREAD CLASS CALLS READ_BYTES WRITE_BYTES"...: those
# lines exactly, and no other class line for the region
expect_class() {
	local d_=$1 r_=$2 want_ have_
	shift 2
	want_=$(printf '%s\n' "$@" | sort)
	have_=$(awk '$1 == "class" && $2 == R { sub("thread=", "", $3); sub("class=", "", $4); sub("calls=", "", $5)
		sub("read_bytes=", "", $6); sub("write_bytes=", "", $7); print $3, $4, $5, $6, $7 }' R="$r_" "$d_" | sort)
	[ "$have_" = "$want_" ] || fail "region $r_ classes: want
$want_
have
$have_"
}
expect_class cdump.txt "$cmain" "main file 18 5000 30000" "main device 3 0 123" "main pipe 4 700 700" \
	"main socket 8 600 600" "other file 6 3000 0"
expect_class cdump.txt "$cchild" "main file 3 200 0"
expect cdump.txt "$cmain" ckpt writes=3 write_bytes=30000 fsyncs=2 meta_ops=2
expect cdump.txt "$cmain" mapped mmaps=1 fsyncs=2 meta_ops=3
expect cdump.txt "$cmain" data2 reads=4 read_bytes=3000
totals_add_up cdump.txt
# times: the main thread's write and sync time of ckpt and mapped is all of
# it; data2 (the other thread) has none of the main thread's
"$TRACE_DUMP" --strip "$PWD/cdata/" cregions >ctimes.txt || fail "trace_dump with times"
for f in ckpt mapped; do
	file_line ctimes.txt "$cmain" $f | awk '{ for (i = 3; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] } }
		END { exit !(v["sync_time_s"] > 0 && v["main_sync_time_s"] == v["sync_time_s"] &&
			v["main_write_time_s"] == v["write_time_s"] && v["write_time_s"] >= v["sync_time_s"]) }' ||
		fail "$f: sync and main thread times: $(file_line ctimes.txt "$cmain" $f)"
done
file_line ctimes.txt "$cmain" data2 | grep -q ' main_write_time_s=0\.000000000 main_sync_time_s=0\.000000000 main_meta_time_s=0\.000000000 ' ||
	fail "data2 (other thread) has main thread time: $(file_line ctimes.txt "$cmain" data2)"

# the same through feedscope run: io_classes sums to the same counts and
# bytes, files has the main thread's checkpoint time
rm -f cdata/ckpt cdata/mapped
expect_status 0 "$FEEDSCOPE" run -q -o classes.db -- "$TRACE_PROGS/classes" "$PWD/cdata" >crun.out
rmain=$(sed -n 's/^pids main=\([0-9]*\) .*/\1/p' crun.out)
got=$(q classes.db "SELECT thread, class, sum(calls), sum(read_bytes), sum(write_bytes) FROM io_classes
	WHERE pid = $rmain GROUP BY thread, class ORDER BY thread, class" | tr '|' ' ')
want="main device 3 0 123
main file 18 5000 30000
main pipe 4 700 700
main socket 8 600 600
other file 6 3000 0"
[ "$got" = "$want" ] || fail "io_classes: want
$want
have
$got"
[ "$(q classes.db "SELECT count(*) FROM io_classes WHERE read_s < 0 OR write_s < 0 OR sync_s < 0 OR meta_s < 0")" = 0 ] ||
	fail "io_classes: negative times"
[ "$(q classes.db "SELECT sum(sync_s) > 0 FROM io_classes WHERE pid = $rmain AND class = 'file' AND thread = 'main'")" = 1 ] ||
	fail "io_classes: no sync time"
[ "$(q classes.db "SELECT count(*) FROM files WHERE pid = $rmain AND path = '$PWD/cdata/ckpt' AND fsyncs = 2
	AND main_sync_time_s > 0 AND main_write_time_s >= main_sync_time_s AND sync_time_s = main_sync_time_s")" = 1 ] ||
	fail "files: ckpt's main thread times: $(q classes.db "SELECT * FROM files WHERE path = '$PWD/cdata/ckpt'")"

# --trace-ops: the ring has one entry per counted call, with offsets; and
# the CLOCK_MONOTONIC clock gives the same counts
rm -rf data2 && mkdir data2 && cp "$data"/[f-i]_* data2/
FEEDSCOPE_TRACE_OPS=1 traced regions_ops "$TRACE_PROGS/accuracy" "$PWD/data2" >ops.out 2>&1 || fail "accuracy with ops"
main2=$(sed 's/^pids main=\([0-9]*\).*/\1/' ops.out)
"$TRACE_DUMP" --no-times --ops --strip "$PWD/data2/" regions_ops >ops.txt || fail "trace_dump --ops"
grep -q "^region $main2 .* ops_enabled=1 " ops.txt || fail "ops_enabled not set"
a_idx=$(file_line ops.txt "$main2" a_posix | sed 's/.* idx=\([0-9]*\) .*/\1/')
# reads on a_posix, in order: offsets 0 4096 8192 10000 5000 5100 7000 0 512 9000 20000
got=$(awk -v r="$main2" -v f="file=$a_idx" '$1 == "op" && $2 == r && $5 == "op=1" && $7 == f { sub("offset=", "", $8); printf "%s ", $8 }' ops.txt)
[ "$got" = "0 4096 8192 10000 5000 5100 7000 0 512 9000 20000 " ] || fail "a_posix read offsets in the op ring: $got"
ops_main=$(awk -v r="$main2" '$1 == "op" && $2 == r' ops.txt | wc -l)
head=$(sed -n "s/^region $main2 .* ops_head=\([0-9]*\)$/\1/p" ops.txt)
[ "$ops_main" -eq "$head" ] || fail "op ring: $ops_main entries, head $head"

rm -rf data3 && mkdir data3 && cp "$data"/[f-i]_* data3/
FEEDSCOPE_TRACE_CLOCK=mono traced regions_mono "$TRACE_PROGS/accuracy" "$PWD/data3" >mono.out 2>&1 || fail "accuracy, mono clock"
main3=$(sed 's/^pids main=\([0-9]*\).*/\1/' mono.out)
dump regions_mono mono.txt "$PWD/data3/"
grep -q "^region $main3 .* clock=ns " mono.txt || fail "FEEDSCOPE_TRACE_CLOCK=mono: not the ns clock"
expect mono.txt "$main3" a_posix opens=2 reads=11 read_bytes=11512 seq_reads=8 consec_reads=5
"$TRACE_DUMP" regions_mono | awk -v r="$main3" '$1 == "file" && $2 == r && /path=.*a_posix$/' |
	grep -q 'read_time_s=0\.0[0-9]*[1-9]' || fail "no read time with the ns clock"
exit 0
