# mem_shm: a batch stream close to a small /dev/shm. The job runs in a
# private mount namespace whose /dev/shm is a 64 MiB tmpfs (a container's
# default); 3 workers x prefetch 2 batches of 32 x 256 KiB samples are in
# flight there, with the batches the main process still holds: ~56 MiB.
# Expected: shm_headroom, its peak within 30% of the most /dev/shm the job
# itself saw (statvfs, read by the main process after each step).
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/memlib.sh"
twin
command -v unshare >/dev/null || die "no unshare (util-linux)"
WRAP=(unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=64m tmpfs /dev/shm && exec "$@"' sh)
record run "${HOOK_OPTS[@]}" -- --index numpy --items 100000 --workers 3 --batch 32 --sample-kib 256 --steps 400 \
	--compute-ms 20 --truth-dir "$S/truth"
mem_verdict run shm_headroom
