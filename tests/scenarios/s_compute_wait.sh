# compute_wait: compute-bound with a little input wait (5-10% of the loop,
# under the input-wait floor of docs/verdicts.md). One persistent worker
# with one batch of prefetch loads batches of 8 warm .npy files in ~20 ms
# (2 ms of sleep a sample) while the accelerator computes 100 ms a step;
# but every 512th sample is slow (480 ms: a stall, as a slow shard or a
# remote retry), and the loop waits for it: ~0.49 s, three times in 200
# steps, ~7% of the loop (1.517-1.561 s of 21.6 s by the job's clock here).
# The wait is the stall's length, not a balance of the loader's rate
# against the step's (a loader within a few ms of the step waited 2.7-10.8%
# from run to run, by the machine's load), and one batch of prefetch makes
# it exact: with two, one or two batches were ready when a stall came, by
# how far ahead the worker was (5.8-8.7% from run to run).
# Nothing a user changes in the loader is worth it here, so the verdict is
# compute_bound and no loader recommendation is made (a report that told
# this job to add workers was the false alarm of issue 29).
# Run with the hook off by its twin s_nohook_compute_wait.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect compute_bound job_b_input
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 1600 --batch 8 --workers 1 \
	--persistent --prefetch 1 --item-sleep-ms 2 --stall-every 512 --stall-ms 480 --compute-ms 100
DEVICE=$DATA_DEV verdict run
twin_check
show job_b_input job_b_busy wait_share gpu_util wk_R wk_D cpu_busy disk_util
need "job_b_input >= 0.05" "a little input wait (5-10%)"
need "job_b_input <= 0.10" "a little input wait (5-10%)"
# no recommendation for the loader (num_workers, prefetch, ...)
recs=$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["verdict"]["recommendations"]))' "$S/run.json")
result recommendations "$recs"
[ "$recs" = 0 ] || EV[verdict]="${EV[verdict]}(with $recs recommendations)"
finish
