#!/bin/sh
# tsan.sh TSAN_BUILD BUILD - `make tsan`: tests/trace/threads.c (8 threads
# reading and writing their own and shared files, POSIX and stdio), built
# with ThreadSanitizer, run under a ThreadSanitizer build of the tracer.
# Fails on any race TSan reports (in the tracer or anywhere), or if the
# counts of the shared records are not exact. BUILD provides trace_dump.
set -eu
tsan=$1
build=$2
dir=$(mktemp -d /tmp/feedscope-tsan.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/data" "$dir/regions"
# the TSan runtime first: it must be up before the tracer's constructor
rt=$(ldd "$tsan/libfeedscope-trace.so" | awk '/libtsan/ { print $3 }')
if ! TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" LD_PRELOAD="$rt $tsan/libfeedscope-trace.so" \
	FEEDSCOPE_TRACE_DIR="$dir/regions" "$tsan/tests/trace/threads" "$dir/data" 8 >"$dir/out" 2>"$dir/err"; then
	cat "$dir/err" >&2
	echo "FAIL  tsan: threads under the tracer" >&2
	exit 1
fi
"$build/tests/trace_dump" --no-times --strip "$dir/data/" "$dir/regions" >"$dir/dump"
grep -q ' reads=2048 read_bytes=8388608 .* path=shared$' "$dir/dump" &&
	grep -q ' writes=400 write_bytes=12800 .* path=log$' "$dir/dump" &&
	grep -q ' thread=other class=pipe calls=32 read_bytes=800 write_bytes=800$' "$dir/dump" || {
	grep -E 'path=(shared|log)$|^class' "$dir/dump" >&2
	echo "FAIL  tsan: counts under ThreadSanitizer" >&2
	exit 1
}
echo "PASS  tsan: 8 threads under the tracer, no race reported, counts exact"

# tests/trace/peers.c: sockets used by two threads at once (the TCP client
# in the main thread, the server in another), their endpoints read and
# their peers entries claimed concurrently
mkdir "$dir/peers" "$dir/pregions"
if ! TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" LD_PRELOAD="$rt $tsan/libfeedscope-trace.so" \
	FEEDSCOPE_TRACE_DIR="$dir/pregions" "$tsan/tests/trace/peers" "$dir/peers" >"$dir/out" 2>"$dir/err"; then
	cat "$dir/err" >&2
	echo "FAIL  tsan: peers under the tracer" >&2
	exit 1
fi
echo "PASS  tsan: socket endpoints and peers entries from two threads, no race reported"
