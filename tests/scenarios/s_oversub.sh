# oversub: threads fighting for the cores (issue 39 item 2). Two DataLoader
# workers on the machine's 2 cores, each sample a transform of torch ops
# (8 products of a 128x128 matrix, train.py --matmul-n), each worker's
# torch intra-op pool set to the machine's 2 cores in its worker_init_fn
# (--worker-threads 2: the DataLoader sets 1 as a worker starts; a job that
# sets it back, or a pool that ignores it, as OpenCV's and OpenBLAS's do,
# sizes it to the cores): 2 workers x 2 threads + the trainer on 2 cores.
# Expected: cpu_preprocess (the workers' CPU is what the loop waits for)
# and the oversubscription finding beside it, with its fix (one thread per
# worker) and its figures against the job's own (threads per worker, the
# cores it may use: train.py's `threads:` line).
# Truth of the fix: the same job rerun with one thread per worker
# (--worker-threads 1: torch.set_num_threads(1) in worker_init_fn), the
# gain its own clock measures (steady_step_s, steps after the 10th), beside
# the finding's predicted speedup. The nohook_ twin runs no fix.
. "$FS_TOP/tests/scenarios/lib.sh"
expect cpu_preprocess job_b_input
twin

mount_data
warm "$DATA/npy"
job=(--data "$DATA/npy" --format npy --samples 320 --batch 4 --workers 2 --matmul-n 128 --matmul-ops 8
	--compute-ms 20 --steady-after 10)
record run "${HOOK_OPTS[@]}" -- "${job[@]}" --worker-threads 2
DEVICE=$DATA_DEV verdict run
twin_check
show job_b_input wait_share gpu_util wk_R wk_cpu cpu_busy disk_util
need "job_b_input >= 0.5" "input-bound"
need "cpu_busy >= 85" "cores saturated"
need "disk_util <= 5" "storage idle"
finish
# the finding, against the job's own account of its threads
declare -A OS=()
while IFS='=' read -r k v; do OS[$k]=$v; done < <("$PY" "$SCEN_DIR/oversubcheck.py" "$S/run.json" "$S/run.out")
[ -n "${OS[found]:-}" ] || die "oversubcheck.py failed"
say "oversubscription: found=${OS[found]} runnable=${OS[runnable]} of ${OS[cores]} cores (${OS[cores_from]}), ${OS[threads_at_work]} threads at work per worker (the job's own: ${OS[job_per_worker]} per worker, ${OS[job_workers]} workers, ${OS[job_cpus]} CPUs), run-queue wait ${OS[wait_share]}, predicted ${OS[predicted]}x"
say "fix: ${OS[fix]}"
result expected "cpu_preprocess+oversubscription"
got=${EV[verdict]}
[ "${OS[found]}" = yes ] && got="$got+oversubscription"
[ "${OS[figures_ok]}" = yes ] || got="$got(figures ${OS[figures_why]})"
result got "$got"
result predicted_speedup "${OS[predicted]}"
if [ "${NOHOOK:-0}" = 1 ]; then exit 0; fi
# the job's own mean step after the 10th (train.py's summary)
steady() { grep -o ' steady_step_s=[0-9.]*' "$S/$1.out" | tail -1 | cut -d= -f2; }
before=$(steady run)

# The fix: one thread per worker.
record fixed -- "${job[@]}" --worker-threads 1
DEVICE=$DATA_DEV verdict fixed
show job_b_input wait_share gpu_util wk_cpu
result fixed_by "torch.set_num_threads(1) in worker_init_fn (2 threads a worker before)"
result step_mean_s "$before"
after=$(steady fixed)
say "the job's own mean step: $before s with 2 threads a worker, $after s with 1"
result fixed_step_mean_s "$after"
result obtained_speedup "$(speedup "$before" "$after")"
