# mem_shm: a batch stream close to a small /dev/shm. The job runs in a
# private mount namespace whose /dev/shm is a 64 MiB tmpfs (a container's
# default); 2 workers x prefetch 13 batches of 8 x 256 KiB samples (2 MiB)
# are in flight there, with the one or two the main process still holds:
# 54-56 MiB, 84-88% of it (shm_full_share is 75%). Small batches, many of
# them: one batch more or less moves the peak by 3%. (Batches of 8 MiB, 3
# workers x prefetch 2, sat at 56 MiB and now and then an eighth 8 MiB
# batch killed a worker with SIGBUS: 2 of 10 runs on 2026-12-07.)
# Expected: shm_headroom, its peak within 30% of the most /dev/shm the job
# itself saw (statvfs, read by the main process after each step).
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/memlib.sh"
twin
command -v unshare >/dev/null || die "no unshare (util-linux)"
WRAP=(unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=64m tmpfs /dev/shm && exec "$@"' sh)
record run "${HOOK_OPTS[@]}" -- --index numpy --items 100000 --workers 2 --prefetch 13 --batch 8 --sample-kib 256 --steps 400 \
	--compute-ms 20 --truth-dir "$S/truth"
mem_verdict run shm_headroom
