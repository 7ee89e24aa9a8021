# mem_numpy: mem_cor's twin with the index in numpy arrays: reading an item
# writes no reference count in the parent's pages, nothing is copied, and
# the job's memory does not grow. Expected: no memory finding.
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/memlib.sh"
twin
record run "${HOOK_OPTS[@]}" -- --index numpy --items 1500000 --workers 3 --steps 1000 --compute-ms 20 \
	--truth-dir "$S/truth"
mem_verdict run none
