# mem_limit: a memory cgroup limit approached. A job whose 3 workers each
# hold 224 MiB of their own from their start (memjob.py --worker-mib; a
# numpy index: nothing grows), ~0.95-1 GiB of PSS summed with the trainer's
# ~280 MiB, in a memory cgroup limited to 1.1 GiB (memory.limit_in_bytes):
# ~85-90% of it, held flat over the whole loop. Expected:
# memory_limit_headroom (at 80%: mem_headroom_min) and no other finding, the
# job's peak within 30% of its own figure (its PSS summed at the loop's end).
# (It was mem_cor's copy-on-read job, growing until its last step: the
# recorder reads each process's smaps_rollup every few seconds, and one run
# in ten missed the last seconds' growth and read 899 MiB, under the 901 of
# 80%: a scenario next to its threshold.)
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/memlib.sh"
twin
cgroup memory
cg_set memory memory.limit_in_bytes $((1126 << 20))
record run "${HOOK_OPTS[@]}" -- --index numpy --items 100000 --workers 3 --worker-mib 224 --steps 600 --compute-ms 20 \
	--truth-dir "$S/truth"
mem_verdict run memory_limit_headroom
