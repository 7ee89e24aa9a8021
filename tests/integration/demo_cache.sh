# feedscope-binary: unused (tests examples/evict_cache.py and scripts/demo.sh)
# `make demo` makes its dataset cold without dropping the machine's page
# cache: examples/evict_cache.py evicts exactly the files it is given (fsync,
# then posix_fadvise DONTNEED; dirty pages too), no root needed, and leaves
# every other file's cached pages where they were; a missing path is a usage
# error (exit 2) before anything is evicted; scripts/demo.sh uses it and no
# longer writes /proc/sys/vm/drop_caches. Pages counted with fincore.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd fincore
PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs $PY"
evict() { "$PY" "$FEEDSCOPE_TOP/examples/evict_cache.py" "$@"; }
case $(stat -f -c %T "$TEST_TMP") in
tmpfs | ramfs) skip "$TEST_TMP is on $(stat -f -c %T "$TEST_TMP"): its pages are the files, nothing to evict" ;;
esac

res() { fincore --bytes --noheadings --output RES "$1" | tr -d ' '; } # cached bytes of one file
total() { local t=0 f; for f in "$@"; do t=$((t + $(res "$f"))); done; echo $t; }

mkdir -p data/sub
for i in 1 2 3 4 5 6; do head -c 1048576 /dev/urandom >data/f$i.bin; done
head -c 1048576 /dev/urandom >data/sub/deep.bin
head -c 4194304 /dev/urandom >other.bin
sync
cat data/*.bin data/sub/deep.bin other.bin >/dev/null # now cached
head -c 1048576 /dev/urandom >data/dirty.bin          # cached and dirty
files=(data/*.bin data/sub/deep.bin)
before=$(total "${files[@]}")
other_before=$(res other.bin)
[ "$before" -gt 0 ] || fail "the data files are not in the page cache after reading them: nothing to test"
[ "$other_before" -gt 0 ] || fail "other.bin is not in the page cache after reading it"

# a missing path: usage error, nothing evicted
expect_status 2 evict data/no-such-file data
[ "$(total "${files[@]}")" -gt 0 ] || fail "a refused call evicted pages"

out=$(evict data) || fail "evict_cache.py failed: $out"
echo "$out" | grep -q "^evict_cache: 8 files, 8388608 bytes evicted" || fail "unexpected summary: $out"
after=$(total "${files[@]}")
other_after=$(res other.bin)
echo "data: $before bytes cached before, $after after; other.bin: $other_before before, $other_after after"
[ "$after" -eq 0 ] || fail "$after bytes of the evicted files are still cached: $(fincore data/*.bin data/sub/deep.bin)"
[ "$other_after" -gt 0 ] || fail "other.bin left the cache too (evicted beyond the given files)"

# the demo uses it, and leaves the machine's cache alone
demo=$FEEDSCOPE_TOP/scripts/demo.sh
grep -q 'examples/evict_cache.py' "$demo" || fail "scripts/demo.sh does not evict its dataset with evict_cache.py"
! grep -q drop_caches "$demo" || fail "scripts/demo.sh still writes drop_caches"
exit 0
