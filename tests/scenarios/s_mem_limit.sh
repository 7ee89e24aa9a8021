# mem_limit: a memory cgroup limit approached. The copy-on-read job of
# mem_cor (its PSS summed reaches ~0.9-1 GiB over 1000 steps) in a memory
# cgroup limited to 1.1 GiB (memory.limit_in_bytes). Expected:
# memory_limit_headroom, the job's peak within 30% of its own figure (its
# PSS summed at the loop's end).
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/memlib.sh"
twin
cgroup memory
cg_set memory memory.limit_in_bytes $((1126 << 20))
record run "${HOOK_OPTS[@]}" -- --index list --items 1500000 --workers 3 --steps 1000 --compute-ms 20 \
	--truth-dir "$S/truth"
mem_verdict run memory_limit_headroom
