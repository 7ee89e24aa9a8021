# mem_cor: copy-on-read (pytorch/pytorch#13246). The dataset's index is a
# Python list of 1.5 M (path, label) tuples built before the DataLoader
# forks 3 workers; each item a worker reads writes the reference counts of
# its tuple, string and int, and the kernel copies those pages into the
# worker. The job's memory grows over the loop while the workers' resident
# size barely moves. Expected: loader_memory_growth within 30% of the job's
# own figure (its PSS summed at the loop's end less the main process's
# before the workers), with the copy-on-read explanation.
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/memlib.sh"
twin
record run "${HOOK_OPTS[@]}" -- --index list --items 1500000 --workers 3 --steps 1000 --compute-ms 20 \
	--truth-dir "$S/truth"
mem_verdict run loader_memory_growth
