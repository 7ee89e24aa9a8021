# loader_parallelism: too little concurrency in the loader. One worker; each
# sample waits 5 ms for a remote service (a sleep: no CPU, no disk); a batch
# of 16 takes 80 ms, a step computes 20 ms. Cores and storage are idle, the
# worker sleeps, the loop waits.
# Prediction check: the same job with 8 workers.
. "$FS_TOP/tests/scenarios/lib.sh"
expect loader_parallelism job_b_input
twin

mount_data
warm "$DATA/npy"
job=(--data "$DATA/npy" --format npy --samples 1280 --batch 16 --item-sleep-ms 5 --compute-ms 20)
record run "${HOOK_OPTS[@]}" -- "${job[@]}" --workers 1
DEVICE=$DATA_DEV verdict run
twin_check
show job_b_input wait_share gpu_util wk_R wk_D wk_cpu cpu_busy disk_util
need "job_b_input >= 0.6" "input-bound"
need "cpu_busy <= 50" "cores idle"
need "wk_cpu <= 20" "the worker mostly sleeps"
need "disk_util <= 5" "storage idle"
finish
if [ "${NOHOOK:-0}" = 1 ]; then exit 0; fi # the fix run compares step times (the hook's)
before=${EV[step_mean_s]}

# The cause removed: 8 workers.
record fixed -- "${job[@]}" --workers 8
DEVICE=$DATA_DEV verdict fixed
show wait_share gpu_util step_mean_s
result fixed_by "8 workers instead of 1"
result fixed_step_mean_s "${EV[step_mean_s]}"
result obtained_speedup "$(awk -v a="$before" -v b="${EV[step_mean_s]}" 'BEGIN { printf "%.2f", a / b }')"
